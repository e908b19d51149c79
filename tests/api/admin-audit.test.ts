import { randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { rowsOf, withTenant } from '#server/db/tenancy'
import { recordAudit, recordAuditIn, type AuditAction } from '#server/domain/audit'
import type { AuditEntry } from '#server/domain/admin/audit'
import { parseCsv } from '#server/domain/doc-control/deliverables-csv'
import type { ChainVerification } from '#server/domain/admin/audit-verify'
import { auditOf, client, expectProblem, show, type TestTenant } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, organisation, signedMember, type Signed } from '#tests/helpers/reporting-a'

/** docs/admin/audit.md: the audit log, its exports and the hash chain check. Through HTTP, and the chain in the database. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-20T09:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

type Page = { items: AuditEntry[]; nextCursor: string | null }
type ChainRow = { id: string; chain_seq: string | number; prev_hash: string | null; hash: string | null; recomputed: string; action: string }

/** Writes entries into the tenant's log as the application does (one transaction each), at `at` when given. */
async function write(
  tenantId: string,
  entries: Array<{ action?: AuditAction; actorUserId?: string; targetType?: string; targetId?: string; data?: Record<string, unknown>; at?: Date }>,
) {
  for (const entry of entries) {
    await withTenant(t.db, tenantId, (tx) =>
      recordAuditIn(tx, {
        tenantId,
        action: entry.action ?? 'admin.user.changed',
        actorUserId: entry.actorUserId,
        targetType: entry.targetType ?? 'User',
        targetId: entry.targetId ?? randomUUID(),
        ip: '203.0.113.9',
        correlationId: randomUUID(),
        data: entry.data,
        at: entry.at,
      }),
    )
  }
}

/** The tenant's chain as the owner connection sees it, with each hash recomputed by the database. */
async function chainOf(tenantId: string): Promise<ChainRow[]> {
  return rowsOf<ChainRow>(
    await t.db.execute(
      sql`select e.id, e.chain_seq, e.prev_hash, e.hash, e.action, audit_entry_hash(e.prev_hash, e) as recomputed from audit_events e where e.tenant_id = ${tenantId} order by e.chain_seq`,
    ),
  )
}

function expectIntact(chain: ChainRow[]) {
  chain.forEach((row, index) => {
    expect(Number(row.chain_seq)).toBe(index + 1)
    expect(row.prev_hash).toBe(index === 0 ? null : chain[index - 1]?.hash)
    expect(row.hash).toMatch(/^[0-9a-f]{64}$/)
    expect(row.recomputed).toBe(row.hash)
  })
}

async function verify(c: Signed['c']): Promise<ChainVerification> {
  return body<ChainVerification>(await c.get('/api/admin/audit/verify'))
}

async function csvOf(response: Response): Promise<string[][]> {
  expect(response.status, await show(response)).toBe(200)
  const bytes = new Uint8Array(await response.arrayBuffer())
  // A byte-order mark first, so spreadsheets read UTF-8.
  expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
  return parseCsv(new TextDecoder().decode(bytes)).rows.map((row) => row.cells)
}

/** The rows after the header as records by column name, so a column added to the export moves nothing here. */
function recordsOf(rows: string[][]): Record<string, string>[] {
  const [header = [], ...rest] = rows
  return rest.map((cells) => Object.fromEntries(header.map((name, index) => [name, cells[index] ?? ''])))
}

describe('the hash chain kept by the database', () => {
  test('each entry links to the one before it in its tenant, through recordAudit and recordAuditIn', async () => {
    const { tenant, admin } = await organisation(t)
    await write(tenant.id, [{ action: 'admin.user.changed' }, { action: 'admin.invite.created', data: { note: 'first' } }])
    await recordAudit(t.db, { tenantId: tenant.id, action: 'admin.member.added', actorUserId: admin.user.id, targetType: 'User', targetId: admin.user.id })
    const chain = await chainOf(tenant.id)
    expect(chain.map((row) => row.action)).toEqual(['admin.user.changed', 'admin.invite.created', 'admin.member.added'])
    expectIntact(chain)
    // Another tenant's chain starts at 1 of its own.
    const other = await organisation(t)
    await write(other.tenant.id, [{}])
    expect((await chainOf(other.tenant.id)).map((row) => [Number(row.chain_seq), row.prev_hash])).toEqual([[1, null]])
    const [head] = rowsOf<{ seq: string | number; hash: string }>(await t.db.execute(sql`select seq, hash from audit_chain_heads where chain_key = ${tenant.id}`))
    expect(Number(head?.seq)).toBe(3)
    expect(head?.hash).toBe(chain[2]?.hash)
  })

  test('entries written at the same time in one tenant still form one chain', async () => {
    const { tenant } = await organisation(t)
    await Promise.all(Array.from({ length: 16 }, (_, i) => write(tenant.id, [{ data: { i } }])))
    const chain = await chainOf(tenant.id)
    expect(chain).toHaveLength(16)
    expectIntact(chain)
  })

  test('the application role may neither change nor remove an entry', async () => {
    const { tenant } = await organisation(t)
    await write(tenant.id, [{}])
    await expect(withTenant(t.db, tenant.id, (tx) => tx.execute(sql`update audit_events set action = 'x'`))).rejects.toThrow()
    await expect(withTenant(t.db, tenant.id, (tx) => tx.execute(sql`delete from audit_events`))).rejects.toThrow()
    expectIntact(await chainOf(tenant.id))
  })
})

describe('GET /api/admin/audit', () => {
  test('an entry names its target: a member by name; never someone of another organisation, nor an unknown id', async () => {
    const { tenant, admin, writer } = await organisation(t)
    const other = await organisation(t)
    await write(tenant.id, [
      { action: 'admin.member.role.changed', actorUserId: admin.user.id, targetType: 'User', targetId: writer.user.id, data: { from: 'read-write', to: 'read-only' } },
      { action: 'admin.user.changed', actorUserId: admin.user.id, targetType: 'User', targetId: other.writer.user.id },
      { action: 'admin.user.changed', actorUserId: admin.user.id, targetType: 'User', targetId: 'not-an-id' },
    ])
    const page = await body<Page>(await admin.c.get('/api/admin/audit?limit=3'))
    expect(page.items.map((e) => [e.targetId, e.targetName])).toEqual([
      ['not-an-id', null],
      [other.writer.user.id, null],
      [writer.user.id, writer.user.displayName],
    ])
  })

  test('newest first, with the actor, paged by cursor; limit=1 is the sample', async () => {
    const { tenant, admin } = await organisation(t)
    await write(tenant.id, [{ action: 'admin.invite.created', actorUserId: admin.user.id, targetType: 'Invite', targetId: 'inv-1', data: { roleKey: 'read-only' } }])
    await write(
      tenant.id,
      Array.from({ length: 4 }, (_, i) => ({ action: 'admin.user.changed' as const, targetId: `u-${i}` })),
    )
    const all = await body<Page>(await admin.c.get('/api/admin/audit'))
    expect(all.items.map((e) => e.chainSeq)).toEqual([5, 4, 3, 2, 1])
    expect(all.nextCursor).toBeNull()
    const oldest = all.items[4]
    expect(oldest).toMatchObject({
      action: 'admin.invite.created',
      actor: { id: admin.user.id, displayName: admin.user.displayName, email: admin.user.email },
      targetType: 'Invite',
      targetId: 'inv-1',
      ip: '203.0.113.9',
      data: { roleKey: 'read-only' },
      prevHash: null,
      createdAtUtc: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    })
    expect(oldest?.correlationId).toMatch(/^[0-9a-f-]{36}$/)
    expect(all.items[3]?.prevHash).toBe(oldest?.hash)
    expect(all.items[0]?.actor).toBeNull()

    const sample = await body<Page>(await admin.c.get('/api/admin/audit?limit=1'))
    expect(sample.items.map((e) => e.chainSeq)).toEqual([5])
    expect(sample.nextCursor).toEqual(expect.any(String))

    const seen: number[] = []
    let cursor: string | null = ''
    let pages = 0
    while (cursor !== null) {
      const page: Page = await body<Page>(await admin.c.get(`/api/admin/audit?limit=2${cursor ? `&after=${cursor}` : ''}`))
      seen.push(...page.items.map((e) => e.chainSeq))
      cursor = page.nextCursor
      pages++
    }
    expect(seen).toEqual([5, 4, 3, 2, 1])
    expect(pages).toBe(3)
  })

  test('filters: action exact and prefix, actor, target, period, text', async () => {
    const { tenant, admin, writer } = await organisation(t)
    await write(tenant.id, [
      { action: 'auth.signin', actorUserId: writer.user.id, targetType: 'User', targetId: writer.user.id, at: new Date('2026-11-01T10:00:00Z') },
      { action: 'admin.user.changed', actorUserId: admin.user.id, targetType: 'User', targetId: writer.user.id, at: new Date('2026-11-05T10:00:00Z') },
      { action: 'admin.invite.created', actorUserId: admin.user.id, targetType: 'Invite', targetId: 'invite-9', at: new Date('2026-11-10T23:30:00Z') },
    ])
    const actions = async (query: string) => (await body<Page>(await admin.c.get(`/api/admin/audit?${query}`))).items.map((e) => e.action)
    expect(await actions('action=admin.user.changed')).toEqual(['admin.user.changed'])
    expect(await actions('action=admin.')).toEqual(['admin.invite.created', 'admin.user.changed'])
    expect(await actions('action=admin.*')).toEqual(['admin.invite.created', 'admin.user.changed'])
    expect(await actions('action=admin')).toEqual([])
    expect(await actions(`actorUserId=${writer.user.id}`)).toEqual(['auth.signin'])
    expect(await actions(`targetType=User&targetId=${writer.user.id}`)).toEqual(['admin.user.changed', 'auth.signin'])
    expect(await actions('from=2026-11-05&to=2026-11-10')).toEqual(['admin.invite.created', 'admin.user.changed'])
    expect(await actions('to=2026-11-05T09:59:59Z')).toEqual(['auth.signin'])
    expect(await actions('from=2026-11-10T23:30:00.000Z')).toEqual(['admin.invite.created'])
    expect(await actions(`q=${encodeURIComponent(writer.user.email.toUpperCase())}`)).toEqual(['auth.signin'])
    expect(await actions('q=invite-9')).toEqual(['admin.invite.created'])
    expect(await actions('q=100%25')).toEqual([])
    // Empty form fields mean "no filter".
    expect(await actions('action=&actorUserId=&from=&to=&q=&targetType=&targetId=&after=&limit=')).toHaveLength(3)
  })

  test('bad input is a 400 with field errors', async () => {
    const { admin } = await organisation(t)
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=ten', 'limit'],
      ['after=nonsense', 'after'],
      [`after=${Buffer.from('{"s":-1}').toString('base64url')}`, 'after'],
      ['actorUserId=me', 'actorUserId'],
      ['from=yesterday', 'from'],
      ['to=2026-13-01', 'to'],
      ['action=a%20b', 'action'],
      ['from=2026-11-10&to=2026-11-09', 'to'],
      [`q=${'x'.repeat(201)}`, 'q'],
    ] as const) {
      const problem = await expectProblem(await admin.c.get(`/api/admin/audit?${query}`), 400, 'KR_VALIDATION')
      expect(problem.errors, query).toHaveProperty(field)
    }
    expect((await body<Page>(await admin.c.get('/api/admin/audit?limit=200'))).items).toBeDefined()
  })
})

describe('exports', () => {
  test('the entries as streamed CSV: filtered, a header, formulas defused, the export audited first', async () => {
    const { tenant, admin } = await organisation(t)
    await write(tenant.id, [
      { action: 'admin.invite.created', actorUserId: admin.user.id, targetType: 'Invite', targetId: '=HYPERLINK("http://evil")', data: { message: 'hello, "world"\nline 2' } },
      { action: 'admin.user.changed', targetId: '@SUM(A1)' },
      { action: 'auth.signin', targetId: '+1', data: { tab: '\tx' } },
    ])
    const response = await admin.c.get('/api/admin/audit/export?action=admin.')
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="audit-2026-11-20.csv"')
    const rows = await csvOf(response)
    expect(rows[0]).toEqual([
      'chainSeq',
      'createdAtUtc',
      'summary',
      'action',
      'actorId',
      'actorName',
      'actorEmail',
      'targetType',
      'targetId',
      'targetName',
      'ip',
      'correlationId',
      'data',
      'id',
      'prevHash',
      'hash',
    ])
    const records = recordsOf(rows)
    // The export's own entry (admin.audit.exported) was written before the file: it is in it, first.
    expect(records.map((r) => r.action)).toEqual(['admin.audit.exported', 'admin.user.changed', 'admin.invite.created'])
    const invite = records[2] ?? {}
    expect(invite.targetId).toBe(`'=HYPERLINK("http://evil")`)
    expect(JSON.parse(invite.data ?? '')).toEqual({ message: 'hello, "world"\nline 2' })
    expect(invite.actorEmail).toBe(admin.user.email)
    expect(invite.summary).toBe(`${admin.user.displayName} sent an invite`)
    expect(records[1]?.targetId).toBe("'@SUM(A1)")
    const all = recordsOf(await csvOf(await admin.c.get('/api/admin/audit/export')))
    expect(all.find((r) => r.action === 'auth.signin')?.targetId).toBe("'+1")

    const audit = await auditOf(t.db, { action: 'admin.audit.exported', tenantId: tenant.id })
    expect(audit.map((a) => a.data)).toEqual([
      { what: 'entries', filters: { action: 'admin.' } },
      { what: 'entries', filters: {} },
    ])
    expect(audit[0]).toMatchObject({ actorUserId: admin.user.id, ip: expect.any(String), correlationId: expect.any(String) })
  })

  test('each row says what happened in the screen’s sentence and names its target: a member of this organisation only', async () => {
    const { tenant, admin, writer } = await organisation(t)
    const other = await organisation(t)
    await write(tenant.id, [
      { action: 'admin.member.role.changed', actorUserId: admin.user.id, targetType: 'User', targetId: writer.user.id, data: { from: 'read-write', to: 'read-only' } },
      { action: 'admin.user.deactivated', actorUserId: admin.user.id, targetType: 'User', targetId: other.writer.user.id },
      { action: 'admin.user.changed', targetType: 'User', targetId: 'not-an-id' },
    ])
    const records = recordsOf(await csvOf(await admin.c.get('/api/admin/audit/export?action=admin.')))
    const row = (action: string) => records.find((r) => r.action === action)
    expect(row('admin.member.role.changed')).toMatchObject({
      summary: `${admin.user.displayName} changed ${writer.user.displayName}’s role to Read Only (was Read & Write)`,
      targetName: writer.user.displayName,
      targetId: writer.user.id,
    })
    // Someone of another organisation keeps no name here: the general words, and the id only.
    expect(row('admin.user.deactivated')).toMatchObject({ summary: `${admin.user.displayName} suspended a member`, targetName: '', targetId: other.writer.user.id })
    expect(row('admin.user.changed')).toMatchObject({ summary: 'The system changed a member’s details', targetName: '' })
    expect(row('admin.audit.exported')?.summary).toBe(`${admin.user.displayName} exported the audit log`)
    const text = JSON.stringify(records)
    expect(text).not.toContain(other.writer.user.displayName)
    // The page shows the same words for the same entry.
    const page = await body<Page>(await admin.c.get('/api/admin/audit?action=admin.member.role.changed'))
    expect(page.items[0]?.targetName).toBe(writer.user.displayName)
  })

  test('a long log streams in batches, every entry once', async () => {
    const { tenant, admin } = await organisation(t)
    await withTenant(t.db, tenant.id, (tx) =>
      tx.execute(
        sql`insert into audit_events (tenant_id, action, target_type, target_id) select ${tenant.id}, 'admin.user.changed', 'User', 'u-' || n from generate_series(1, 1234) n`,
      ),
    )
    const rows = await csvOf(await admin.c.get('/api/admin/audit/export?action=admin.user.changed'))
    expect(rows).toHaveLength(1235)
    const records = recordsOf(rows)
    expect(new Set(records.map((r) => r.targetId)).size).toBe(1234)
    expect(records.map((r) => Number(r.chainSeq))).toEqual(Array.from({ length: 1234 }, (_, i) => 1234 - i))
    expect((await verify(admin.c)).checked).toBe(1235)
  })

  test('the actions with counts, and as CSV', async () => {
    const { tenant, admin } = await organisation(t)
    await write(tenant.id, [
      { action: 'admin.user.changed', at: new Date('2026-11-01T10:00:00Z') },
      { action: 'admin.user.changed', at: new Date('2026-11-03T10:00:00Z') },
      { action: 'auth.signin', at: new Date('2026-11-02T10:00:00Z') },
    ])
    const actions = await body<{ items: Array<{ action: string; count: number; lastAtUtc: string }> }>(await admin.c.get('/api/admin/audit/actions'))
    expect(actions.items).toEqual([
      { action: 'admin.user.changed', count: 2, lastAtUtc: '2026-11-03T10:00:00.000Z' },
      { action: 'auth.signin', count: 1, lastAtUtc: '2026-11-02T10:00:00.000Z' },
    ])
    expect((await body<typeof actions>(await admin.c.get('/api/admin/audit/actions?action=auth.'))).items.map((a) => a.action)).toEqual(['auth.signin'])
    const response = await admin.c.get('/api/admin/audit/actions/export')
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="audit-actions-2026-11-20.csv"')
    const rows = await csvOf(response)
    expect(rows[0]).toEqual(['action', 'count', 'lastAtUtc'])
    // The export is recorded before the counts are read.
    expect(rows.slice(1)).toEqual([
      ['admin.audit.exported', '1', '2026-11-20T09:00:00.000Z'],
      ['admin.user.changed', '2', '2026-11-03T10:00:00.000Z'],
      ['auth.signin', '1', '2026-11-02T10:00:00.000Z'],
    ])
    expect((await auditOf(t.db, { action: 'admin.audit.exported', tenantId: tenant.id })).map((a) => a.data)).toEqual([{ what: 'actions', filters: {} }])
  })
})

describe('GET /api/admin/audit/verify', () => {
  async function tampered(tenant: TestTenant, admin: Signed, change: (chain: ChainRow[]) => Promise<unknown>) {
    await write(
      tenant.id,
      Array.from({ length: 5 }, (_, i) => ({ data: { i } })),
    )
    const chain = await chainOf(tenant.id)
    await change(chain)
    return { chain, result: await verify(admin.c) }
  }

  test('an intact chain: every entry checked; the check is audited after the walk', async () => {
    const { tenant, admin } = await organisation(t)
    const empty = await verify(admin.c)
    expect(empty).toEqual({ ok: true, checked: 0, headSeq: 0, firstBroken: null, verifiedAtUtc: '2026-11-20T09:00:00.000Z' })
    await write(tenant.id, [{}, {}, {}])
    // 1 verified entry + 3.
    expect(await verify(admin.c)).toMatchObject({ ok: true, checked: 4, headSeq: 4, firstBroken: null })
    const audit = await auditOf(t.db, { action: 'admin.audit.verified', tenantId: tenant.id })
    expect(audit.map((a) => a.data)).toEqual([
      { ok: true, checked: 0, headSeq: 0, firstBroken: null },
      { ok: true, checked: 4, headSeq: 4, firstBroken: null },
    ])
    expect(await verify(admin.c)).toMatchObject({ ok: true, checked: 5 })
  })

  test('a changed entry: hash-mismatch at that entry', async () => {
    const { tenant, admin } = await organisation(t)
    const { chain, result } = await tampered(tenant, admin, (chain) => t.db.execute(sql`update audit_events set data = '{"i": 99}' where id = ${chain[2]?.id}`))
    expect(result).toMatchObject({ ok: false, checked: 2, headSeq: 5, firstBroken: { chainSeq: 3, id: chain[2]?.id, reason: 'hash-mismatch' } })
    expect((await auditOf(t.db, { action: 'admin.audit.verified', tenantId: tenant.id })).at(-1)?.data).toMatchObject({
      ok: false,
      firstBroken: { chainSeq: 3, reason: 'hash-mismatch' },
    })
  })

  test('a changed entry whose hash was recomputed: link-mismatch at the next one', async () => {
    const { tenant, admin } = await organisation(t)
    const { chain, result } = await tampered(tenant, admin, async (chain) => {
      await t.db.execute(sql`update audit_events set data = '{"i": 99}' where id = ${chain[1]?.id}`)
      await t.db.execute(sql`update audit_events e set hash = audit_entry_hash(e.prev_hash, e) where id = ${chain[1]?.id}`)
    })
    expect(result.firstBroken).toMatchObject({ chainSeq: 3, id: chain[2]?.id, reason: 'link-mismatch' })
  })

  test('an entry removed in the middle: missing-entry where the gap is', async () => {
    const { tenant, admin } = await organisation(t)
    const { chain, result } = await tampered(tenant, admin, (chain) => t.db.execute(sql`delete from audit_events where id = ${chain[2]?.id}`))
    expect(result).toMatchObject({ ok: false, checked: 2, firstBroken: { chainSeq: 4, id: chain[3]?.id, reason: 'missing-entry' } })
    expect(result.firstBroken?.detail).toContain('Entry 3 is missing')
  })

  test('the first entry removed: missing-entry at the second', async () => {
    const { tenant, admin } = await organisation(t)
    const { chain, result } = await tampered(tenant, admin, (chain) => t.db.execute(sql`delete from audit_events where id = ${chain[0]?.id}`))
    expect(result.firstBroken).toMatchObject({ chainSeq: 2, id: chain[1]?.id, reason: 'missing-entry' })
  })

  test('the newest entry removed: head-mismatch', async () => {
    const { tenant, admin } = await organisation(t)
    const { result } = await tampered(tenant, admin, (chain) => t.db.execute(sql`delete from audit_events where id = ${chain[4]?.id}`))
    expect(result).toMatchObject({ ok: false, checked: 4, headSeq: 5, firstBroken: { chainSeq: 5, id: null, reason: 'head-mismatch' } })
  })

  test('the newest entry replaced with a consistent hash: head-mismatch', async () => {
    const { tenant, admin } = await organisation(t)
    const { chain, result } = await tampered(tenant, admin, async (chain) => {
      await t.db.execute(sql`update audit_events set data = '{"i": 99}' where id = ${chain[4]?.id}`)
      await t.db.execute(sql`update audit_events e set hash = audit_entry_hash(e.prev_hash, e) where id = ${chain[4]?.id}`)
    })
    expect(result.firstBroken).toMatchObject({ chainSeq: 5, id: chain[4]?.id, reason: 'head-mismatch' })
  })

  test('one tenant’s chain verifies while another’s is tampered with', async () => {
    const a = await organisation(t)
    const b = await organisation(t)
    await write(a.tenant.id, [{}, {}])
    await tampered(b.tenant, b.admin, (chain) => t.db.execute(sql`delete from audit_events where id = ${chain[1]?.id}`))
    expect(await verify(a.admin.c)).toMatchObject({ ok: true, checked: 2, firstBroken: null })
    expect((await verify(b.admin.c)).ok).toBe(false)
  })
})

describe('who may', () => {
  const calls = [
    '/api/admin/audit',
    '/api/admin/audit?limit=1',
    '/api/admin/audit/export',
    '/api/admin/audit/actions',
    '/api/admin/audit/actions/export',
    '/api/admin/audit/verify',
  ]

  test('read-write and read-only members get 403; nobody signed in gets 401; nothing is audited for them', async () => {
    const { tenant, writer, reader } = await organisation(t)
    for (const member of [writer, reader]) {
      for (const path of calls) await expectProblem(await member.c.get(path), 403, 'KR_FORBIDDEN')
    }
    for (const path of calls) await expectProblem(await client(t).get(path), 401)
    expect(await auditOf(t.db, { tenantId: tenant.id })).toEqual([])
  })

  test('another organisation’s entries are never visible, whatever the filters', async () => {
    const a = await organisation(t)
    await write(a.tenant.id, [{ action: 'admin.user.changed', actorUserId: a.admin.user.id, targetType: 'User', targetId: 'secret-target' }])
    const b = await signedMember(t, 'admin')
    await write(b.tenant.id, [{ action: 'admin.invite.created' }])
    for (const query of ['', `actorUserId=${a.admin.user.id}`, 'targetId=secret-target', 'q=secret-target', `q=${encodeURIComponent(a.admin.user.email)}`]) {
      const page = await body<Page>(await b.c.get(`/api/admin/audit?${query}`))
      expect(
        page.items.every((e) => e.targetId !== 'secret-target' && e.actor?.id !== a.admin.user.id),
        query,
      ).toBe(true)
    }
    expect((await body<Page>(await b.c.get('/api/admin/audit?targetId=secret-target'))).items).toEqual([])
    const csv = await csvOf(await b.c.get('/api/admin/audit/export'))
    expect(csv.flat()).not.toContain('secret-target')
    const actions = await body<{ items: Array<{ action: string }> }>(await b.c.get('/api/admin/audit/actions'))
    expect(actions.items.map((x) => x.action)).not.toContain('admin.user.changed')
    // A cursor is a position in one's own chain only.
    const cursor = Buffer.from(JSON.stringify({ s: 2 })).toString('base64url')
    expect((await body<Page>(await b.c.get(`/api/admin/audit?after=${cursor}`))).items.map((e) => e.action)).toEqual(['admin.invite.created'])
  })
})
