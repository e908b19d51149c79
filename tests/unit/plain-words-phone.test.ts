import { describe, expect, test } from 'vitest'
import { errorTitle, retryCanHelp } from '~/components/errors/error-screen'
import { withProjectWhenSeveral } from '~/components/reporting/item-list'
import { auditActionLabel, auditSentence } from '~/lib/admin/audit-words'
import { seatStandingWords } from '~/lib/licensing/seats'
import type { Item } from '~/lib/reporting/types'

describe('the audit log in sentences', () => {
  test('a role change names both roles; the key is not shown', () => {
    const sentence = auditSentence({
      action: 'admin.member.role.changed',
      actor: { id: 'a', displayName: 'Alex Admin', email: 'admin@demo.example.com' } as never,
      data: { from: 'read-write', to: 'read-only' },
    })
    expect(sentence).toBe('Alex Admin changed a member’s role to Read Only (was Read & Write)')
  })

  test('the target is named where the log knows its name', () => {
    const actor = { id: 'a', displayName: 'Alex Admin', email: 'admin@demo.example.com' } as never
    expect(
      auditSentence({ action: 'admin.member.role.changed', actor, data: { from: 'read-write', to: 'read-only' }, targetType: 'User', targetName: 'Sam Site' }),
    ).toBe('Alex Admin changed Sam Site’s role to Read Only (was Read & Write)')
    expect(auditSentence({ action: 'admin.user.deactivated', actor, data: null, targetType: 'User', targetName: 'Sam Site' })).toBe('Alex Admin suspended Sam Site')
    expect(auditSentence({ action: 'admin.user.password.set', actor, data: null, targetType: 'User', targetName: 'Sam Site' })).toBe('Alex Admin set Sam Site’s password')
    expect(auditSentence({ action: 'documents.revision.issued', actor, data: null, targetType: 'Document', targetName: 'SYM-ARC-0001' })).toBe(
      'Alex Admin issued a revision',
    )
    expect(auditSentence({ action: 'documents.document.changed', actor, data: null, targetType: 'Document', targetName: 'SYM-ARC-0001' })).toBe(
      'Alex Admin changed document SYM-ARC-0001',
    )
    expect(auditSentence({ action: 'documents.folder.created', actor, data: null, targetType: 'DocumentFolder', targetName: 'Drawings' })).toBe(
      'Alex Admin created the folder “Drawings”',
    )
    // No name known (removed since): the general words.
    expect(auditSentence({ action: 'admin.user.deactivated', actor, data: null, targetType: 'User', targetName: null })).toBe('Alex Admin suspended a member')
  })

  test('an action without an actor is the system’s; an unknown action is still words', () => {
    expect(auditSentence({ action: 'auth.signin', actor: null, data: null })).toBe('The system signed in')
    expect(auditActionLabel('settings.admin.changed')).toBe('Changed the organisation’s settings')
    expect(auditActionLabel('some.new.thing')).toBe('Some new thing')
  })
})

describe('seats in one set of words', () => {
  const standing = { total: 10, used: 2, reserved: 1, free: 7, enforced: true, nearLimit: false, plan: 'team' as const, planName: 'Team', lapsed: false }
  test('how many, how many used, on which plan, whether enforced', () => {
    const words = seatStandingWords(standing, 'en-GB')
    expect(words.detail).toBe('10 seats on the Team plan: 2 used, 1 reserved by invites, 7 free.')
    expect(words.limit).toBe('The seat limit is enforced: invites stop when no seat is free.')
    expect(seatStandingWords({ ...standing, enforced: false }, 'en-GB').limit).toMatch(/not enforced/)
  })
})

describe('errors that help', () => {
  test('titles by status, and "Try again" only where retrying can work', () => {
    expect(errorTitle(404)).toBe('Not found')
    expect(errorTitle(403)).toBe('Access denied')
    expect(errorTitle(500)).toBe('Unexpected error')
    expect(retryCanHelp(404)).toBe(false)
    expect(retryCanHelp(403)).toBe(false)
    expect(retryCanHelp(503)).toBe(true)
    expect(retryCanHelp(undefined)).toBe(true)
  })
})

describe('the items list names the project when it lists several', () => {
  const item = (projectId: string) => ({ projectId }) as Item
  const query = { columns: ['number', 'title', 'status'] as const, groupBy: 'none' as const }
  test('one project: the columns as chosen; several: the project after the title', () => {
    expect(withProjectWhenSeveral([item('p1'), item('p1')], { ...query, columns: [...query.columns] })).toEqual(['number', 'title', 'status'])
    expect(withProjectWhenSeveral([item('p1'), item('p2')], { ...query, columns: [...query.columns] })).toEqual(['number', 'title', 'project', 'status'])
    expect(withProjectWhenSeveral([item('p1'), item('p2')], { columns: [...query.columns], groupBy: 'project' })).toEqual(['number', 'title', 'status'])
  })
})
