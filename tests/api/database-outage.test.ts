import { randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import { DrizzleQueryError } from 'drizzle-orm/errors'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createBackend } from '#server/api/app'
import { openDatabase, type DatabaseHandle } from '#server/db/client'
import { isDatabaseOutage } from '#server/db/outage'
import { rowsOf, withTenant } from '#server/db/tenancy'
import { createLogger } from '#server/http/logger'
import type { ItemResponse } from '~/lib/reporting/types'
import { expectProblem, show } from '#tests/helpers/auth'
import { createTestBackend, TEST_ORIGIN, TEST_REMOTE_ADDRESS, type TestBackend } from '#tests/helpers/backend'
import { createItem, createOrg, json, responsesOf, type Org } from '#tests/helpers/reporting-b'
import { targetOf, tcpProxy, throughProxy, type TcpProxy } from '#tests/helpers/tcp-proxy'

/**
 * PostgreSQL going away under a running backend (docs/operations.md "Database outage"): the
 * backend reaches its database through a TCP proxy that the test cuts and restores, while the
 * test's own connection goes straight to the server. PGlite runs inside the process and has no
 * connection to lose, so those tests run on PostgreSQL only (TEST_DATABASE_URL).
 */
const serverUrl = process.env.TEST_DATABASE_URL
const migrationsFolder = fileURLToPath(new URL('../../server/db/migrations', import.meta.url))

test('driver errors of a lost database are outages, however drizzle wraps them; others are not', () => {
  const url = 'postgres://portal@db.internal:6432/portal'
  const refused = (port: number) => Object.assign(new Error(`connect ECONNREFUSED 10.0.0.5:${port}`), { code: 'ECONNREFUSED', port })
  expect(isDatabaseOutage(new DrizzleQueryError('select 1', [], refused(6432)), url)).toBe(true)
  expect(isDatabaseOutage(new DrizzleQueryError('select 1', [], new Error('Connection terminated unexpectedly')), url)).toBe(true)
  expect(isDatabaseOutage(new AggregateError([refused(6432), refused(6432)]), url)).toBe(true)
  expect(isDatabaseOutage(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), url)).toBe(true)
  expect(isDatabaseOutage(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }), url)).toBe(true)
  expect(isDatabaseOutage(Object.assign(new Error('connection failure'), { code: '08006' }), url)).toBe(true)
  // Another service refusing (an S3 endpoint on port 9000) is not the database.
  expect(isDatabaseOutage(new TypeError('fetch failed', { cause: refused(9000) }), url)).toBe(false)
  expect(isDatabaseOutage(Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }), url)).toBe(false)
  expect(isDatabaseOutage(new TypeError("Cannot read properties of undefined (reading 'id')"), url)).toBe(false)
})

describe.runIf(serverUrl)('PostgreSQL lost and back (PostgreSQL only: PGlite has no connection to lose)', () => {
  /** The test's view of the database: straight to the server, never cut. */
  let direct: TestBackend
  /** The backend under test, whose every connection goes through the proxy. */
  let t: TestBackend
  let proxy: TcpProxy
  let handle: DatabaseHandle
  let dataDir: string
  let org: Org

  beforeAll(async () => {
    direct = await createTestBackend()
    if (!serverUrl || !direct.config.databaseUrl) throw new Error('expected a PostgreSQL test database')
    proxy = await tcpProxy(targetOf(serverUrl, 5432))
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-outage-'))
    const databaseUrl = throughProxy(direct.config.databaseUrl, proxy)
    handle = await openDatabase({ dataDir, databaseUrl, migrationsFolder })
    const backend = createBackend({ config: { ...direct.config, databaseUrl }, db: handle.db, logger: createLogger('silent'), now: direct.now })
    t = {
      ...direct,
      db: handle.db,
      backend,
      fetch(requestPath, { remoteAddress = TEST_REMOTE_ADDRESS, ...init } = {}) {
        return backend.fetch(new Request(new URL(requestPath, TEST_ORIGIN), init), { remoteAddress })
      },
    }
    org = await createOrg(t)
  })

  afterAll(async () => {
    await proxy?.cut()
    await handle?.close().catch(() => undefined)
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
    await direct?.close()
  })

  test('with the database cut, calls answer 503 problems with Retry-After; once it is back they succeed, and a retried write is applied once', async () => {
    const item = await createItem(org.writer, org.reportId)
    const before = { key: randomUUID(), body: 'Written before the outage' }
    const during = { key: randomUUID(), body: 'Sent during the outage' }
    const respond = (write: { key: string; body: string }) =>
      org.writer.request(`/api/items/${item.id}/responses`, { method: 'POST', json: { body: write.body }, headers: { 'Idempotency-Key': write.key } })
    await json<ItemResponse>(await respond(before), 201)

    await proxy.cut()
    for (const response of [await org.reader.get('/api/projects'), await org.reader.get(`/api/items/${item.id}`), await respond(during)]) {
      const problem = await expectProblem(response, 503, 'KR_DB_UNAVAILABLE')
      expect(response.headers.get('retry-after')).toBe(String(problem.retryAfterSeconds))
      expect(problem.remediation).toMatch(/Try again/)
    }

    await proxy.restore()
    // No restart, no waiting: the pool opens new connections on the next call.
    const projects = await org.reader.get('/api/projects')
    expect(projects.status, await show(projects)).toBe(200)
    const applied = await json<ItemResponse>(await respond(during), 201)
    const again = await respond(during)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect((await json<ItemResponse>(again, 201)).id).toBe(applied.id)
    expect((await respond(before)).headers.get('idempotent-replayed')).toBe('true')
    expect((await responsesOf(org.reader, item.id)).map((r) => r.body)).toEqual([before.body, during.body])
  })

  test('a write in flight when the connection drops answers 503, not 500, and leaves nothing half-written', async () => {
    const item = await createItem(org.writer, org.reportId)
    // Hold the item's row lock on the direct connection, so the write waits mid-transaction. The
    // write is sent only once the lock is held: sent at once, on a busy machine it could take the
    // row first and finish, and then nobody would ever wait for the lock.
    let release = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    let locked = () => {}
    const lockHeld = new Promise<void>((resolve) => {
      locked = resolve
    })
    const holding = withTenant(direct.db, org.tenant.id, async (tx) => {
      await tx.execute(sql`select id from report_items where id = ${item.id} for update`)
      locked()
      await gate
    })
    try {
      await Promise.race([lockHeld, holding])
      const write = org.writer.post(`/api/items/${item.id}/responses`, { body: 'In flight' })
      await waitForLockWait()

      await proxy.cut()
      await expectProblem(await write, 503, 'KR_DB_UNAVAILABLE')
    } finally {
      // Even when the test fails: a lock held for ever would keep afterAll from closing the pool.
      release()
      await holding
    }
    await proxy.restore()

    expect(await responsesOf(org.reader, item.id)).toEqual([])
    await json<ItemResponse>(await org.writer.post(`/api/items/${item.id}/responses`, { body: 'In flight' }), 201)
    expect((await responsesOf(org.reader, item.id)).map((r) => r.body)).toEqual(['In flight'])
  })

  /** Until a session of this database waits for a row lock (the write reached the locked item). */
  async function waitForLockWait(): Promise<void> {
    const deadline = Date.now() + 15_000
    while (Date.now() < deadline) {
      const [row] = rowsOf<{ waiting: number }>(
        await direct.db.execute(sql`select count(*)::int as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`),
      )
      if ((row?.waiting ?? 0) > 0) return
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    throw new Error('No session of the test database waited for a row lock within 15 s')
  }
})
