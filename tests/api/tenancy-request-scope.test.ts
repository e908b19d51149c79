// A page's calls in one request context (issue 37, server/domain/tenancy/request-scope.ts): the
// calls of a page reach the backend with the page's scope, as the front door sends them.
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { tenants } from '#server/db/schema'
import { adminConfig } from '#server/db/schema-settings'
import { statementsSent } from '#server/db/statements'
import { withTenant } from '#server/db/tenancy'
import { createRequestScope } from '#server/domain/tenancy/request-scope'
import { TEST_ORIGIN, TEST_REMOTE_ADDRESS, createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { CSRF_COOKIE, expectProblem } from '#tests/helpers/auth'
import { HEADERS } from '~/lib/constants'
import type { Session } from '~/lib/auth/session'
import type { Item } from '~/lib/reporting/types'
import { createItem, createOrg, json, setMembershipStatus, type SignedIn } from '#tests/helpers/reporting-b'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2025-03-10T08:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

type Scope = ReturnType<typeof createRequestScope>

/** One call of a page: the member's cookies, the page's scope. */
function call(scope: Scope, who: SignedIn, path: string, init: { method?: string; json?: unknown } = {}): Promise<Response> {
  const headers = who.jar.apply({ accept: 'application/json', ...(init.json !== undefined && { 'content-type': 'application/json' }) })
  const csrf = who.jar.get(CSRF_COOKIE)
  if (init.method && init.method !== 'GET' && csrf) headers.set(HEADERS.csrf, csrf)
  const body = init.json === undefined ? undefined : JSON.stringify(init.json)
  return t.backend.fetch(new Request(new URL(path, TEST_ORIGIN), { method: init.method ?? 'GET', headers, body }), { remoteAddress: TEST_REMOTE_ADDRESS, scope: scope as never })
}

test('a page’s reads made together share one tenant transaction and read the session and the item once', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const paths = [`/api/items/${item.id}`, `/api/items/${item.id}/responses`, '/api/members', `/api/items/${item.id}/pin`]

  const alone = statementsSent()
  const own = await Promise.all(paths.map((path) => org.writer.get(path)))
  const statementsAlone = statementsSent() - alone

  const scope = createRequestScope()
  const before = statementsSent()
  const shared = await Promise.all(paths.map((path) => call(scope, org.writer, path)))
  const statementsShared = statementsSent() - before

  // The same answers (the missing pin is the same 404), for fewer statements.
  expect(shared.map((r) => r.status)).toEqual(own.map((r) => r.status))
  expect(await json<Item>(shared[0]!)).toEqual(await json<Item>(own[0]!))
  expect(statementsShared).toBeLessThan(statementsAlone - 10)
})

test('another organisation’s item is still 404 in a shared scope, and a member no longer active is refused', async () => {
  const org = await createOrg(t)
  const stranger = await createOrg(t)
  const theirs = await createItem(stranger.writer, stranger.reportId)
  const scope = createRequestScope()
  const [mine, foreign] = await Promise.all([call(scope, org.writer, '/api/members'), call(scope, org.writer, `/api/items/${theirs.id}`)])
  expect(mine.status).toBe(200)
  await expectProblem(foreign, 404)

  await setMembershipStatus(t, org.reader.member, 'suspended')
  await expectProblem(await call(createRequestScope(), org.reader, '/api/members'), 403)
})

test('an unsafe call ends the shared reads: what it wrote is read after it', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  await org.writer.get('/auth/session')
  const scope = createRequestScope()
  expect((await json<Item>(await call(scope, org.writer, `/api/items/${item.id}`))).title).toBe(item.title)
  const changed = await call(scope, org.writer, `/api/items/${item.id}`, { method: 'PATCH', json: { title: 'Renamed in the same page request' } })
  expect(changed.status).toBe(200)
  expect((await json<Item>(await call(scope, org.writer, `/api/items/${item.id}`))).title).toBe('Renamed in the same page request')
})

test('the reads every page makes (the session view, the telemetry switches, the bell’s count) answer from the shared transaction’s one opening statement, as they answer alone', async () => {
  const org = await createOrg(t)
  await createItem(org.admin, org.reportId, { assigneeUserId: org.writer.member.user.id })
  await withTenant(t.db, org.tenant.id, async (tx) => {
    await tx.insert(adminConfig).values({ tenantId: org.tenant.id, category: 'telemetry', values: { enabled: true, samplingPercent: 25 }, version: 1 })
    await tx.update(tenants).set({ orgSettings: { diagnostics: { collectUsageTelemetry: true, collectFrontendErrors: false } } }).where(eq(tenants.id, org.tenant.id))
  })
  const paths = ['/auth/session', '/api/telemetry/settings', '/api/notifications/unread-count']
  const own = await Promise.all(paths.map(async (path) => json<Record<string, unknown>>(await org.writer.get(path))))

  const scope = createRequestScope()
  const before = statementsSent()
  const shared = await Promise.all(paths.map(async (path) => json<Record<string, unknown>>(await call(scope, org.writer, path))))
  // The session (1), BEGIN and COMMIT (2), the role and tenant (1) and the opening statement (1):
  // nothing else (PostgreSQL counts 4 of these, PGlite 5; each read alone would add its own).
  expect(statementsSent() - before).toBeLessThanOrEqual(5)

  const [session, telemetry, unread] = shared as [Session, Record<string, unknown>, Record<string, unknown>]
  const { correlationId: _own, ...ownSession } = own[0] as Session
  const { correlationId: _shared, ...sharedSession } = session
  expect(sharedSession).toEqual(ownSession)
  expect(session).toMatchObject({ displayName: org.writer.member.user.displayName, tenantId: org.tenant.id, roles: own[0]!.roles })
  expect(telemetry).toEqual({ usage: true, samplingPercent: 25, errors: false })
  expect(telemetry).toEqual(own[1])
  expect(unread).toEqual({ unread: 1 })
  expect(unread).toEqual(own[2])
})

test('a member no longer active still reads their session view in a shared scope, and is refused the bell', async () => {
  const org = await createOrg(t)
  await setMembershipStatus(t, org.reader.member, 'suspended')
  const scope = createRequestScope()
  const [session, bell] = await Promise.all([call(scope, org.reader, '/auth/session'), call(scope, org.reader, '/api/notifications/unread-count')])
  expect((await json<Session>(session)).tenantId).toBe(org.tenant.id)
  await expectProblem(bell, 403)
})
