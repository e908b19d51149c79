import { createHash, randomUUID } from 'node:crypto'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { mailOutbox } from '#server/db/schema'
import { invites, joinRequests } from '#server/db/schema-admin'
import { withTenant } from '#server/db/tenancy'
import type { AdminOverview } from '~/lib/schemas/admin-retention'
import { addMembership, createMember, createUser, expectProblem } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, organisation, put } from '#tests/helpers/reporting-a'

/** docs/admin/shell-and-retention.md "Control panel": GET /api/admin/overview, counted from the tables. */

const DAY = 24 * 60 * 60_000
let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-05-04T10:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

async function invite(tenantId: string, state: { expiresInDays?: number; accepted?: boolean; cancelled?: boolean } = {}) {
  const now = t.now()
  await withTenant(t.db, tenantId, (tx) =>
    tx.insert(invites).values({
      tenantId,
      email: `${randomUUID()}@example.test`,
      roleKey: 'read-only',
      tokenHash: createHash('sha256').update(randomUUID()).digest('hex'),
      expiresAt: new Date(now.getTime() + (state.expiresInDays ?? 7) * DAY),
      acceptedAt: state.accepted ? now : null,
      cancelledAt: state.cancelled ? now : null,
    }),
  )
}

async function joinRequest(tenantId: string, status: 'pending' | 'declined') {
  const user = await createUser(t.db)
  await withTenant(t.db, tenantId, (tx) => tx.insert(joinRequests).values({ tenantId, userId: user.id, status }))
}

test('an administrator sees the figures of their own organisation; other roles are refused', async () => {
  const { admin, writer, reader, tenant } = await organisation(t)
  for (const member of [writer, reader]) await expectProblem(await member.c.get('/api/admin/overview'), 403, 'KR_FORBIDDEN')

  // A blocked person still holds a seat but is not an active user; a suspended membership holds neither.
  await createMember(t.db, { tenant, roleKey: 'read-only', status: 'blocked' })
  const suspended = await createUser(t.db)
  await addMembership(t.db, tenant.id, suspended.id, { roleKey: 'read-only', status: 'suspended' })
  await invite(tenant.id)
  await invite(tenant.id)
  await invite(tenant.id, { expiresInDays: -1 })
  await invite(tenant.id, { accepted: true })
  await invite(tenant.id, { cancelled: true })
  await joinRequest(tenant.id, 'pending')
  await joinRequest(tenant.id, 'declined')
  await t.db.insert(mailOutbox).values([
    { tenantId: tenant.id, toAddress: 'a@example.test', template: 'invite', subject: 'Hi', textBody: 'x', status: 'dead' },
    { tenantId: tenant.id, toAddress: 'b@example.test', template: 'invite', subject: 'Hi', textBody: 'x', status: 'sent' },
    { tenantId: null, toAddress: 'c@example.test', template: 'invite', subject: 'Hi', textBody: 'x', status: 'dead' },
  ])
  await body(await put(admin.c, '/api/admin/retention', { enabled: true, archiveAfterDays: 30, purgeAfterDays: 60 }))

  // Another organisation's rows never count.
  const other = await organisation(t)
  await invite(other.tenant.id)
  await joinRequest(other.tenant.id, 'pending')

  const overview = await body<AdminOverview>(await admin.c.get('/api/admin/overview'))
  expect(overview).toEqual({
    activeUsers: 3,
    seats: expect.objectContaining({ total: expect.any(Number), used: 4, enforced: expect.any(Boolean), planName: expect.any(String) }),
    pendingInvites: 2,
    pendingJoinRequests: 1,
    failingMail: 1,
    storageUsedBytes: 0,
    storageQuotaBytes: 10 * 1024 ** 3,
    retention: { enabled: true, activeCount: 0, archivedCount: 0, purgedCount: 0, dueCount: 0, nextDueAtUtc: null },
    // Reached at a loopback address (the tests'), the demo accounts are never named.
    demoAccounts: [],
  })
  const theirs = await body<AdminOverview>(await other.admin.c.get('/api/admin/overview'))
  expect(theirs).toMatchObject({ activeUsers: 3, seats: { used: 3, enforced: expect.any(Boolean) }, pendingInvites: 1, pendingJoinRequests: 1, failingMail: 0, retention: { enabled: false } })
})

test('the overview is published in the API reference', async () => {
  const spec = await body<{ paths: Record<string, Record<string, { tags?: string[] }>> }>(await t.fetch('/api/openapi.json'))
  for (const [path, method] of [
    ['/api/admin/overview', 'get'],
    ['/api/admin/retention', 'get'],
    ['/api/admin/retention', 'put'],
    ['/api/admin/retention/health', 'get'],
  ] as const) {
    expect(spec.paths[path]?.[method]?.tags, `${method} ${path}`).toEqual(['Administration'])
  }
})
