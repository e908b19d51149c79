import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { memberships } from '#server/db/schema'
import { notificationPreferences } from '#server/db/schema-settings'
import { withTenant } from '#server/db/tenancy'
import { dailySlot, sendDigests } from '#server/jobs/notification-digest'
import type { Item } from '~/lib/reporting/types'
import { DEFAULT_NOTIFICATION_PREFERENCES, type NotificationPreferences } from '~/lib/settings/notifications'
import { mailsTo } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, insertItem, newProject, newReport, organisation, patch, put, signedMember, type Signed } from '#tests/helpers/reporting-a'

/**
 * docs/settings-appearance-notifications.md "Item mails" and "Daily digest": who is mailed when an
 * item is assigned, answered or asked to close, as their preferences say, never the one who acted;
 * and the daily digest job.
 */

const PREFS = '/api/user/notification-preferences/'
let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-03-02T08:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

async function prefer(member: Signed, change: Partial<NotificationPreferences>) {
  await body(await put(member.c, PREFS, { ...DEFAULT_NOTIFICATION_PREFERENCES, ...change }))
}

async function templatesTo(member: Signed): Promise<string[]> {
  return (await mailsTo(t.db, member.user.email)).map((mail) => mail.template)
}

async function newItem(c: Signed['c'], reportId: string, json: Record<string, unknown>): Promise<Item> {
  return body<Item>(await c.post(`/api/reports/${reportId}/items`, { title: 'Cracked kerb at gate 3', ...json }), 201)
}

test('assigned: the new assignee is mailed (with the item’s link), not whoever assigned it, and not when they switched it off', async () => {
  const { admin, writer, reader } = await organisation(t)
  const project = await newProject(writer.c, { title: 'Harbour Bridge' })
  const report = await newReport(writer.c, project.id)

  const item = await newItem(writer.c, report.id, { assigneeUserId: reader.user.id, dueDate: '2026-03-09' })
  const [mail] = await mailsTo(t.db, reader.user.email)
  expect(mail).toMatchObject({ template: 'item-assigned' })
  expect(mail?.subject).toContain('Cracked kerb at gate 3')
  expect(mail?.textBody).toContain(`${t.config.publicUrl}/items/${item.id}`)
  expect(mail?.textBody).toContain('Harbour Bridge')
  expect(mail?.textBody).toContain(writer.user.displayName)
  expect(mail?.textBody).toContain('2026-03-09')

  // Assigning oneself mails nobody.
  await newItem(writer.c, report.id, { assigneeUserId: writer.user.id })
  expect(await templatesTo(writer)).toEqual([])

  // A change of assignee mails the new one; the same assignee again, or another field, does not.
  await body(await patch(writer.c, `/api/items/${item.id}`, { assigneeUserId: admin.user.id }))
  expect(await templatesTo(admin)).toEqual(['item-assigned'])
  await body(await patch(writer.c, `/api/items/${item.id}`, { assigneeUserId: admin.user.id, title: 'Cracked kerb at gate 4' }))
  await body(await patch(writer.c, `/api/items/${item.id}`, { assigneeUserId: null }))
  expect(await templatesTo(admin)).toEqual(['item-assigned'])

  // Switched off: nothing.
  await prefer(reader, { assigned: false })
  await body(await patch(writer.c, `/api/items/${item.id}`, { assigneeUserId: reader.user.id }))
  expect(await templatesTo(reader)).toEqual(['item-assigned'])

  // Bulk assignment mails as the single call does.
  const other = await newItem(admin.c, report.id, {})
  await body(await admin.c.post('/api/items/bulk', { ids: [other.id], action: 'assign', assigneeUserId: writer.user.id }))
  expect(await templatesTo(writer)).toEqual(['item-assigned'])
})

test('response: the assignee and the creator are mailed, never the responder; a preference switched off is honoured', async () => {
  const { admin, writer, tenant } = await organisation(t)
  const assignee = await signedMember(t, 'read-write', tenant)
  const project = await newProject(writer.c)
  const report = await newReport(writer.c, project.id)
  const item = await newItem(writer.c, report.id, { assigneeUserId: assignee.user.id })
  const before = { writer: (await templatesTo(writer)).length, assignee: (await templatesTo(assignee)).length }

  await body(await admin.c.post(`/api/items/${item.id}/responses`, { body: 'Replaced the kerb stone;\n\nphotos attached.' }), 201)
  const [toWriter] = (await mailsTo(t.db, writer.user.email)).slice(before.writer)
  expect(toWriter).toMatchObject({ template: 'item-response' })
  expect(toWriter?.textBody).toContain('Replaced the kerb stone; photos attached.')
  expect(toWriter?.textBody).toContain(admin.user.displayName)
  expect((await templatesTo(assignee)).slice(before.assignee)).toEqual(['item-response'])
  expect(await templatesTo(admin)).toEqual([])

  // The assignee answers: the creator hears of it, the assignee does not hear of their own response.
  await body(await assignee.c.post(`/api/items/${item.id}/responses`, { body: 'Done.' }), 201)
  expect((await templatesTo(writer)).slice(before.writer)).toEqual(['item-response', 'item-response'])
  expect((await templatesTo(assignee)).slice(before.assignee)).toEqual(['item-response'])

  await prefer(writer, { response: false })
  await body(await assignee.c.post(`/api/items/${item.id}/responses`, { body: 'And tidied up.' }), 201)
  expect((await templatesTo(writer)).slice(before.writer)).toEqual(['item-response', 'item-response'])
})

test('close requested: whoever confirms the close is mailed (the creator; the administrators when the creator cannot), once, never the requester', async () => {
  const { admin, writer, tenant } = await organisation(t)
  const assignee = await signedMember(t, 'read-write', tenant)
  const project = await newProject(writer.c)
  const report = await newReport(writer.c, project.id)
  const item = await newItem(writer.c, report.id, { assigneeUserId: assignee.user.id })
  const start = (await templatesTo(writer)).length

  await body(await assignee.c.post(`/api/items/${item.id}/responses`, { body: 'Fixed, please close.', requestClose: true }), 201)
  // One mail to the creator, the close request (not also a response mail).
  const mails = (await mailsTo(t.db, writer.user.email)).slice(start)
  expect(mails.map((mail) => mail.template)).toEqual(['item-close-requested'])
  expect(mails[0]?.textBody).toContain(`${t.config.publicUrl}/items/${item.id}`)
  expect(mails[0]?.textBody).toContain(assignee.user.displayName)
  expect(await templatesTo(admin)).toEqual([])
  expect((await templatesTo(assignee)).filter((key) => key === 'item-close-requested')).toEqual([])

  // Switched off by the creator: nothing.
  await body(await writer.c.post(`/api/items/${item.id}/confirm-close`, { confirmed: false, body: 'The gate is still cracked.' }))
  await prefer(writer, { closeRequested: false })
  await body(await assignee.c.post(`/api/items/${item.id}/responses`, { body: 'Now it is fixed.', requestClose: true }), 201)
  expect((await templatesTo(writer)).slice(start)).toEqual(['item-close-requested'])

  // The creator is no longer an active member: the administrators confirm, so they are asked.
  const second = await newItem(writer.c, report.id, { assigneeUserId: assignee.user.id })
  await withTenant(t.db, tenant.id, (tx) =>
    tx
      .update(memberships)
      .set({ status: 'suspended' })
      .where(and(eq(memberships.tenantId, tenant.id), eq(memberships.userId, writer.user.id))),
  )
  await body(await assignee.c.post(`/api/items/${second.id}/responses`, { body: 'Fixed.', requestClose: true }), 201)
  expect(await templatesTo(admin)).toEqual(['item-close-requested'])
  expect((await templatesTo(writer)).slice(start)).toEqual(['item-close-requested'])

  // A creator asking to close their own item confirms it themselves: nobody is mailed.
  const own = await newItem(assignee.c, report.id, {})
  await body(await assignee.c.post(`/api/items/${own.id}/responses`, { body: 'Done.', requestClose: true }), 201)
  expect(await templatesTo(admin)).toEqual(['item-close-requested'])
})

test('the daily digest: once a day from 06:00 for members who chose it, open items overdue first, nothing when there are none, claimed once across passes', async () => {
  t.now.set('2026-03-02T08:00:00.000Z')
  const { writer, reader, admin, tenant } = await organisation(t)
  const project = await newProject(writer.c, { title: 'Harbour Bridge' })
  const report = await newReport(writer.c, project.id)
  const actor = { tenantId: tenant.id, userId: admin.user.id }
  const later = await insertItem(t, actor, report, { title: 'Missing handrail', assigneeUserId: writer.user.id, dueDate: '2026-03-20' })
  const overdue = await insertItem(t, actor, report, { title: 'Cracked kerb', assigneeUserId: writer.user.id, dueDate: '2026-02-20' })
  await insertItem(t, actor, report, { title: 'Undated', assigneeUserId: writer.user.id })
  await insertItem(t, actor, report, { title: 'Already closed', assigneeUserId: writer.user.id, status: 'closed', dueDate: '2026-01-01' })
  await insertItem(t, actor, report, { title: 'Someone else’s', assigneeUserId: admin.user.id })
  await prefer(writer, { digest: 'daily' })
  await prefer(reader, { digest: 'daily' }) // nothing assigned
  // admin keeps the default: off, so their item is never digested.
  const links = { publicUrl: 'https://fallback.example' }

  // Before 06:00 (UTC, the organisation's default time zone) nothing is due.
  expect(await sendDigests(t.db, new Date('2026-03-02T05:59:00.000Z'), links)).toBe(0)

  // Two passes at once (two instances): one digest.
  const now = new Date('2026-03-02T08:00:00.000Z')
  const results = await Promise.all([sendDigests(t.db, now, links), sendDigests(t.db, now, links)])
  expect(results.reduce((a, b) => a + b, 0)).toBe(1)
  const digests = await mailsTo(t.db, writer.user.email)
  expect(digests.map((mail) => mail.template)).toEqual(['digest'])
  const text = digests[0]?.textBody ?? ''
  expect(text).toMatch(/3 open items assigned to you, 1 of them overdue/)
  expect(text.indexOf('Cracked kerb')).toBeLessThan(text.indexOf('Missing handrail'))
  expect(text.indexOf('Missing handrail')).toBeLessThan(text.indexOf('Undated'))
  expect(text).not.toContain('Already closed')
  expect(text).not.toContain('Someone else')
  expect(text).toContain(`https://fallback.example/items/${overdue.id}`)
  expect(text).toContain(`https://fallback.example/items/${later.id}`)
  expect(await mailsTo(t.db, reader.user.email)).toEqual([])
  expect(await mailsTo(t.db, admin.user.email)).toEqual([])
  const claimed = await withTenant(t.db, tenant.id, (tx) =>
    tx.select({ userId: notificationPreferences.userId, at: notificationPreferences.lastDigestAt }).from(notificationPreferences),
  )
  // The member with nothing open was claimed too: not looked at again today.
  expect(claimed.map((row) => row.at?.toISOString()).sort()).toEqual([now.toISOString(), now.toISOString()])

  // Later the same day: nothing more. The next morning: the next digest.
  expect(await sendDigests(t.db, new Date('2026-03-02T23:00:00.000Z'), links)).toBe(0)
  expect(await sendDigests(t.db, new Date('2026-03-03T06:30:00.000Z'), links)).toBe(1)
  expect(await templatesTo(writer)).toEqual(['digest', 'digest'])

  // Switched off: no more digests.
  await prefer(writer, { digest: 'off' })
  expect(await sendDigests(t.db, new Date('2026-03-04T07:00:00.000Z'), links)).toBe(0)
  expect(await templatesTo(writer)).toEqual(['digest', 'digest'])
})

test('the digest’s daily slot is 06:00 in the organisation’s time zone', () => {
  const at = new Date('2026-07-01T12:00:00.000Z')
  expect(dailySlot(at, 'UTC', 6).toISOString()).toBe('2026-07-01T06:00:00.000Z')
  expect(dailySlot(at, 'Europe/Berlin', 6).toISOString()).toBe('2026-07-01T04:00:00.000Z')
  expect(dailySlot(at, 'America/New_York', 6).toISOString()).toBe('2026-07-01T10:00:00.000Z')
  // 22:00 on 1 July in Sydney: that day's 06:00 was 30 June in UTC; at 20:00 UTC it is 2 July there.
  expect(dailySlot(at, 'Australia/Sydney', 6).toISOString()).toBe('2026-06-30T20:00:00.000Z')
  expect(dailySlot(new Date('2026-07-01T20:30:00.000Z'), 'Australia/Sydney', 6).toISOString()).toBe('2026-07-01T20:00:00.000Z')
  expect(dailySlot(at, 'Not/A_Zone', 6).toISOString()).toBe('2026-07-01T06:00:00.000Z')
})
