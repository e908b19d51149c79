import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { HubConnectionBuilder, LogLevel, type HubConnection } from '@microsoft/signalr'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { memberships } from '#server/db/schema'
import { withTenant } from '#server/db/tenancy'
import { createBackend } from '#server/api/app'
import type { Config } from '#server/config'
import { LogRing } from '#server/domain/observability/log-ring'
import { createLogger } from '#server/http/logger'
import { createLogFeed } from '#server/realtime/log-feed'
import { createMemoryBackplane } from '#server/realtime/memory-backplane'
import { createMemoryPresence } from '#server/realtime/memory-presence'
import { createPortalHub, type PortalHub } from '#server/realtime/portal-hub'
import { attachHubUpgrades, hubRequestListener } from '#server/realtime/start'
import type { LogLineBatch, LogTailResponse } from '~/lib/admin/logs'
import { HEADERS } from '~/lib/constants'
import { client, createSessionFor, expectProblem, uniqueAddress, type TestMember } from '#tests/helpers/auth'
import { createTestBackend, TEST_ORIGIN, type TestBackend } from '#tests/helpers/backend'
import { body, organisation, type Signed } from '#tests/helpers/reporting-a'

/** docs/observability.md "Logs": GET /api/admin/logs/tail over the logger's ring, through HTTP on a real database. */

let base: TestBackend
let t: TestBackend
let ring: LogRing
let logger: ReturnType<typeof createLogger>

/** A backend on the test database whose logger writes to a ring (and nowhere else), like the server's. */
function backendWithRing(config: Config): TestBackend {
  const backend = createBackend({ config, db: base.db, logger: logger.child({ unit: 'web' }), now: base.now, logRing: ring })
  return {
    ...base,
    config,
    backend,
    fetch: (path, { remoteAddress = uniqueAddress(), ...init } = {}) => backend.fetch(new Request(new URL(path, TEST_ORIGIN), init), { remoteAddress }),
  }
}

beforeAll(async () => {
  base = await createTestBackend()
  ring = new LogRing()
  logger = createLogger('info', new Writable({ write: (_chunk, _encoding, done) => done() }), { ring })
  t = backendWithRing(base.config)
})

afterAll(async () => {
  await base?.close()
})

async function tail(admin: Signed, query = ''): Promise<LogTailResponse> {
  return body<LogTailResponse>(await admin.c.get(`/api/admin/logs/tail${query ? `?${query}` : ''}`))
}

/** A real request by the member, answered with its correlation id. */
async function request(member: Signed, path = '/api/projects'): Promise<string> {
  const response = await member.c.get(path)
  const correlationId = response.headers.get(HEADERS.correlationId)
  if (!correlationId) throw new Error('no correlation id')
  return correlationId
}

test('a request’s line: time, level, unit, message, correlation id, visitor id, organisation’s person, method, path, status and ms; newest last', async () => {
  const { admin, writer } = await organisation(t)
  writer.c.jar.set('kr-vis', 'visitor-abcdef123')
  const first = await request(writer, '/api/projects')
  const second = await request(writer, '/api/projects?nope')
  const answer = await tail(admin)
  const mine = answer.lines.filter((line) => line.correlationId === first || line.correlationId === second)
  expect(mine.map((line) => line.correlationId)).toEqual([first, second])
  expect(mine[0]).toMatchObject({
    level: 'info',
    unit: 'web',
    msg: 'request',
    correlationId: first,
    visitorId: 'visitor-abcdef123',
    fields: { method: 'GET', path: '/api/projects', status: 200, userId: writer.user.id },
  })
  expect(typeof mine[0]?.fields.ms).toBe('number')
  expect(Date.parse(mine[0]?.timeUtc ?? '')).not.toBeNaN()
  expect(answer.logFile).toBe(false)
  expect(answer.heldSinceUtc).not.toBeNull()
  // Newest last: the tail call itself is not yet in its own answer, the one before it is.
  const seqs = answer.lines.map((line) => line.seq)
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
})

test('filters: unit, level and above, since, query (a correlation id, a visitor id, any text) and lines', async () => {
  const { admin, tenant, writer } = await organisation(t)
  writer.c.jar.set('kr-vis', 'visitor-filter-9876')
  const correlationId = await request(writer)
  logger.child({ unit: 'jobs' }).info({ tenantId: tenant.id, job: 'digest' }, 'daily digests queued')
  logger.child({ unit: 'mail' }).warn({ tenantId: tenant.id, mailId: 'm-1' }, 'mail delivery failed: Connection Refused')
  logger.child({ unit: 'hub' }).error({ tenantId: tenant.id }, 'EntityChanged could not be announced')

  const msgs = async (query: string) => (await tail(admin, query)).lines.map((line) => line.msg)
  expect(await msgs('unit=jobs')).toEqual(['daily digests queued'])
  expect(await msgs('unit=mail')).toEqual(['mail delivery failed: Connection Refused'])
  expect(await msgs('unit=hub')).toEqual(['EntityChanged could not be announced'])
  expect(await msgs('level=warn')).toEqual(['mail delivery failed: Connection Refused', 'EntityChanged could not be announced'])
  expect(await msgs('level=error')).toEqual(['EntityChanged could not be announced'])
  expect(await msgs('query=connection%20REFUSED')).toEqual(['mail delivery failed: Connection Refused'])
  expect((await tail(admin, `query=${correlationId}`)).lines.map((line) => line.correlationId)).toEqual([correlationId])
  expect((await tail(admin, 'query=visitor-filter-9876')).lines.map((line) => line.correlationId)).toContain(correlationId)
  expect(await msgs(`since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([])
  expect((await msgs(`since=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}&unit=jobs`))).toEqual(['daily digests queued'])
  const two = await tail(admin, 'lines=2')
  expect(two.lines).toHaveLength(2)
  // The newest two: the filtered tails before this one were the last requests.
  expect(two.lines.every((line) => line.fields.path === '/api/admin/logs/tail')).toBe(true)
  // A form's empty fields are no filter.
  expect((await tail(admin, 'unit=&level=&since=&query=&lines=')).lines.length).toBeGreaterThan(4)
})

test('paging back: `before` answers the lines older than that line, `nextBefore` names the next page until none is left', async () => {
  const { admin, tenant } = await organisation(t)
  const jobs = logger.child({ unit: 'jobs' })
  for (const n of [1, 2, 3, 4, 5]) jobs.info({ tenantId: tenant.id }, `paged line ${n}`)
  const page = async (query: string) => {
    const answer = await tail(admin, `unit=jobs&query=paged%20line&lines=2${query}`)
    return { msgs: answer.lines.map((line) => line.msg), nextBefore: answer.nextBefore }
  }
  const newest = await page('')
  expect(newest.msgs).toEqual(['paged line 4', 'paged line 5'])
  expect(newest.nextBefore).not.toBeNull()
  const older = await page(`&before=${newest.nextBefore}`)
  expect(older.msgs).toEqual(['paged line 2', 'paged line 3'])
  const oldest = await page(`&before=${older.nextBefore}`)
  expect(oldest.msgs).toEqual(['paged line 1'])
  expect(oldest.nextBefore).toBeNull()
  // Exactly a page left: no next page named.
  expect((await tail(admin, 'unit=jobs&query=paged%20line&lines=5')).nextBefore).toBeNull()
  // A line written meanwhile does not shift an older page.
  jobs.info({ tenantId: tenant.id }, 'paged line 6')
  expect((await page(`&before=${newest.nextBefore}`)).msgs).toEqual(['paged line 2', 'paged line 3'])
})

/** Lines of the organisation written at the given moments (the ring reads pino's JSON lines, `time` in ms), oldest first as a logger writes them. */
function linesAt(tenantId: string, moments: string[], msg: (at: string) => string) {
  for (const at of moments) ring.write(`${JSON.stringify({ time: Date.parse(at), level: 30, unit: 'jobs', tenantId, msg: msg(at) })}\n`)
}

test('an absolute period: from and to (ISO with offset, both ends included), the later of since and from, and paging inside the period', async () => {
  const { admin, tenant } = await organisation(t)
  const moments = ['2025-03-10T09:00:00.000Z', '2025-03-10T09:30:00.000Z', '2025-03-10T10:00:00.000Z', '2025-03-10T10:30:00.000Z']
  linesAt(tenant.id, moments, (at) => `period line ${at.slice(11, 16)}`)
  const msgs = async (query: string) => (await tail(admin, `query=period%20line&${query}`)).lines.map((line) => line.msg)
  const q = (value: string) => encodeURIComponent(value)

  expect(await msgs(`from=${q('2025-03-10T09:30:00Z')}&to=${q('2025-03-10T10:00:00Z')}`)).toEqual(['period line 09:30', 'period line 10:00'])
  expect(await msgs(`from=${q('2025-03-10T09:30:00Z')}`)).toEqual(['period line 09:30', 'period line 10:00', 'period line 10:30'])
  expect(await msgs(`to=${q('2025-03-10T09:59:59.999Z')}`)).toEqual(['period line 09:00', 'period line 09:30'])
  // An offset is a moment like any other: 11:30 at +02:00 is 09:30 UTC.
  expect(await msgs(`from=${q('2025-03-10T11:30:00+02:00')}&to=${q('2025-03-10T11:30:00+02:00')}`)).toEqual(['period line 09:30'])
  // since and from both bound the start: the later holds.
  expect(await msgs(`since=${q('2025-03-10T10:00:00Z')}&from=${q('2025-03-10T09:00:00Z')}`)).toEqual(['period line 10:00', 'period line 10:30'])
  expect(await msgs(`since=${q('2025-03-10T09:00:00Z')}&from=${q('2025-03-10T10:00:00Z')}&to=${q('2025-03-10T10:00:00Z')}`)).toEqual(['period line 10:00'])
  // A period before any line: nothing, and no next page.
  expect(await tail(admin, `to=${q('2025-03-10T08:59:59Z')}&query=period%20line`)).toMatchObject({ lines: [], nextBefore: null })

  // Paging keeps the period: a line a page, newest first, until the period's first line.
  const period = `query=period%20line&from=${q('2025-03-10T09:00:00Z')}&to=${q('2025-03-10T10:00:00Z')}&lines=1`
  const seen: string[] = []
  let before: number | null = null
  for (let page = 0; page < 5; page++) {
    const answer = await tail(admin, `${period}${before === null ? '' : `&before=${before}`}`)
    seen.push(...answer.lines.map((line) => line.msg))
    before = answer.nextBefore
    if (before === null) break
  }
  expect(seen).toEqual(['period line 10:00', 'period line 09:30', 'period line 09:00'])

  // /api/logs/tail is the same call.
  const same = await body<LogTailResponse>(await admin.c.get(`/api/logs/tail?query=period%20line&from=${q('2025-03-10T10:00:00Z')}`))
  expect(same.lines.map((line) => line.msg)).toEqual(['period line 10:00', 'period line 10:30'])
})

test('a period that ends before it starts is a 400 on to that says so; bad moments are 400 on their own field', async () => {
  const { admin } = await organisation(t)
  for (const path of ['/api/admin/logs/tail', '/api/logs/tail']) {
    const problem = await expectProblem(await admin.c.get(`${path}?from=2025-03-10T10:00:00Z&to=2025-03-10T09:59:59Z`), 400)
    expect(problem.errors).toEqual({ to: ['to must be at or after from: this period ends before it starts.'] })
  }
  const cases: [string, string[]][] = [
    ['from=yesterday', ['from']],
    ['from=2025-03-10', ['from']],
    ['from=2025-03-10T09:30', ['from']],
    ['from=2025-03-10T09:30:00', ['from']],
    ['to=2025-02-30T09:30:00Z', ['to']],
    ['to=2025-13-01T09:30:00Z', ['to']],
    ['to=2025-03-10T25:00:00Z', ['to']],
    [`to=${'9'.repeat(300)}`, ['to']],
    ['from=soon&to=later', ['from', 'to']],
    // One end bad: the order of the two is not judged.
    ['from=2025-03-10T10:00:00Z&to=never', ['to']],
  ]
  for (const [query, fields] of cases) {
    const problem = await expectProblem(await admin.c.get(`/api/admin/logs/tail?${query}`), 400)
    expect(Object.keys(problem.errors ?? {}).sort(), query).toEqual(fields)
  }
  expect((await expectProblem(await admin.c.get('/api/admin/logs/tail?from=yesterday'), 400)).errors?.from?.[0]).toMatch(/^from must be a real date and time/)
  // The same moment at both ends is a period of one instant; empty fields are no filter.
  expect((await admin.c.get('/api/admin/logs/tail?from=2025-03-10T10:00:00Z&to=2025-03-10T10:00:00Z')).status).toBe(200)
  expect((await admin.c.get('/api/admin/logs/tail?from=&to=')).status).toBe(200)
})

test('the published contract lists from and to on both tail calls', async () => {
  type Spec = { paths: Record<string, { get?: { parameters?: { name: string; in: string }[] } }> }
  const spec = await body<Spec>(await t.fetch('/api/openapi.json'))
  for (const path of ['/api/admin/logs/tail', '/api/logs/tail']) {
    const names = (spec.paths[path]?.get?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name)
    expect(names, path).toEqual(expect.arrayContaining(['since', 'from', 'to', 'before']))
  }
})

test('an administrator sees only their organisation’s lines: never another’s, nor lines that name none', async () => {
  const ours = await organisation(t)
  const theirs = await organisation(t)
  const ourId = await request(ours.writer)
  const theirId = await request(theirs.writer)
  logger.child({ unit: 'jobs' }).info({ tenantId: theirs.tenant.id }, `their job ${theirs.tenant.id}`)
  logger.child({ unit: 'jobs' }).info('an instance-wide job line')
  logger.info('a start-up line')

  const answer = await tail(ours.admin, 'lines=1000')
  const text = JSON.stringify(answer)
  expect(answer.lines.some((line) => line.correlationId === ourId)).toBe(true)
  expect(text).not.toContain(theirId)
  expect(text).not.toContain(theirs.tenant.id)
  expect(text).not.toContain(theirs.writer.user.id)
  expect(text).not.toContain('an instance-wide job line')
  expect(text).not.toContain('a start-up line')
  // Searching for their correlation id finds nothing either.
  expect((await tail(ours.admin, `query=${theirId}`)).lines).toEqual([])
  // And they see theirs, not ours.
  const their = await tail(theirs.admin, 'lines=1000')
  expect(their.lines.some((line) => line.correlationId === theirId)).toBe(true)
  expect(JSON.stringify(their)).not.toContain(ourId)
})

test('a member who is not an administrator is refused (403); no session is 401', async () => {
  const { writer, reader } = await organisation(t)
  await expectProblem(await writer.c.get('/api/admin/logs/tail'), 403)
  await expectProblem(await reader.c.get('/api/admin/logs/tail'), 403)
  await expectProblem(await client(t).get('/api/admin/logs/tail'), 401)
})

test('bad filter values are 400 with the field named', async () => {
  const { admin } = await organisation(t)
  const cases: [string, string][] = [
    ['unit=kernel', 'unit'],
    ['level=loud', 'level'],
    ['level=INFO', 'level'],
    ['since=yesterday', 'since'],
    ['since=2026-05-01', 'since'],
    ['since=2026-05-01T09:30:00', 'since'],
    ['lines=0', 'lines'],
    ['lines=1001', 'lines'],
    ['lines=2.5', 'lines'],
    ['lines=abc', 'lines'],
    [`query=${'x'.repeat(201)}`, 'query'],
    ['before=0', 'before'],
    ['before=-3', 'before'],
    ['before=1.5', 'before'],
    ['before=soon', 'before'],
    ['before=99999999999999999999', 'before'],
  ]
  for (const [query, field] of cases) {
    const problem = await expectProblem(await admin.c.get(`/api/admin/logs/tail?${query}`), 400)
    expect(Object.keys(problem.errors ?? {}), query).toEqual([field])
  }
  expect((await admin.c.get('/api/admin/logs/tail?since=2026-05-01T09:30:00%2B02:00&lines=1000')).status).toBe(200)
})

test('a secret logged never appears in a tail', async () => {
  const { admin, tenant, writer } = await organisation(t)
  logger.child({ unit: 'web' }).warn(
    {
      tenantId: tenant.id,
      password: 'Pa55word-never',
      body: { currentPassword: 'Old-pa55-never', code: '482913' },
      smtp: { smtpPassword: 'smtp-never', url: 'smtp://mailer:smtp-url-never@smtp.example.com:587' },
      oidc: { clientSecret: 'oidc-never' },
      headers: { cookie: 'sp_session=cookie-never', authorization: 'Bearer bearer-never' },
      token: 'token-never',
    },
    'settings changed',
  )
  // A real sign-in with a password, and a request with cookies: neither is in any line.
  await writer.c.post('/auth/login', { email: writer.user.email, password: 'typed-password-never' })
  const text = JSON.stringify(await tail(admin, 'lines=1000'))
  expect(text).toContain('settings changed')
  expect(text).toContain('smtp.example.com')
  for (const secret of ['Pa55word-never', 'Old-pa55-never', '482913', 'smtp-never', 'smtp-url-never', 'oidc-never', 'cookie-never', 'bearer-never', 'token-never', 'typed-password-never', writer.c.jar.get('sp_session') ?? 'no-cookie']) {
    expect(text).not.toContain(secret)
  }
})

test('logFile says whether LOG_FILE is set; without a ring the tail is empty, not an error', async () => {
  const withFile = backendWithRing({ ...base.config, logFile: '/var/log/site-portal.log' })
  const { admin } = await organisation(withFile)
  expect((await tail(admin)).logFile).toBe(true)

  const noRing = createBackend({ config: base.config, db: base.db, logger, now: base.now })
  const bare: TestBackend = { ...base, backend: noRing, fetch: (path, { remoteAddress = uniqueAddress(), ...init } = {}) => noRing.fetch(new Request(new URL(path, TEST_ORIGIN), init), { remoteAddress }) }
  const other = await organisation(bare)
  expect(await tail(other.admin)).toEqual({ lines: [], logFile: false, heldSinceUtc: null, nextBefore: null })
})

test('follow live: an administrator’s connection in the logs room gets LogLine batches of their organisation’s new lines only; others are refused', async () => {
  const realtime: PortalHub = createPortalHub({
    config: base.config,
    db: base.db,
    logger: createLogger('silent'),
    now: base.now,
    backplane: createMemoryBackplane(),
    presence: createMemoryPresence({ ttlMs: 30_000 }),
    logRing: ring,
  })
  const server: Server = createServer(hubRequestListener(realtime, (_req, res) => res.writeHead(404).end()))
  attachHubUpgrades(server, realtime)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hub/realtime`
  const connections: HubConnection[] = []
  const connectAs = async (member: TestMember) => {
    const session = await createSessionFor(base, member)
    const connection = new HubConnectionBuilder().withUrl(url, { accessTokenFactory: () => session.token }).configureLogging(LogLevel.None).build()
    connections.push(connection)
    await connection.start()
    return connection
  }
  try {
    const ours = await organisation(t)
    const theirs = await organisation(t)
    const admin = await connectAs(ours.admin)
    const batches: LogLineBatch[] = []
    admin.on('LogLine', (batch: LogLineBatch) => batches.push(batch))
    expect(await admin.invoke('JoinRoom', 'logs')).toEqual({ room: 'logs', history: [], members: [] })
    // Not an administrator: refused like any room one may not join.
    const writer = await connectAs(ours.writer)
    await expect(writer.invoke('JoinRoom', 'logs')).rejects.toThrow(/HubException: You cannot join this room/)
    // Not a room to write in.
    await expect(admin.invoke('SendMessage', 'logs', 'hello')).rejects.toThrow(/Join the room before sending/)

    const jobs = logger.child({ unit: 'jobs' })
    for (let i = 1; i <= 5; i++) jobs.info({ tenantId: ours.tenant.id, password: 'never-sent' }, `our line ${i}`)
    jobs.info({ tenantId: theirs.tenant.id }, 'their line')
    jobs.info('a line of no organisation')
    const deadline = Date.now() + 5_000
    while (batches.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    // One batch for the burst (at most one a second), only our lines, no secrets.
    expect(batches).toHaveLength(1)
    expect(batches[0]?.lines.map((line) => line.msg)).toEqual(['our line 1', 'our line 2', 'our line 3', 'our line 4', 'our line 5'])
    expect(batches[0]?.dropped).toBe(0)
    expect(JSON.stringify(batches)).not.toContain('never-sent')

    // After LeaveRoom nothing more comes.
    await admin.invoke('LeaveRoom', 'logs')
    jobs.info({ tenantId: ours.tenant.id }, 'after leaving')
    await new Promise((resolve) => setTimeout(resolve, 1_300))
    expect(batches).toHaveLength(1)
  } finally {
    await Promise.all(connections.map((connection) => connection.stop().catch(() => undefined)))
    await realtime.drain()
    await new Promise((resolve) => server.close(resolve))
  }
})

test('follow live: a burst is cut to the newest lines of a batch, and a follower no longer an administrator stops getting lines', async () => {
  const { admin } = await organisation(t)
  const sent: LogLineBatch[] = []
  const feed = createLogFeed({ ring, db: base.db, send: (_id, batch) => sent.push(batch), flushMs: 20, maxBatch: 3, recheckMs: 0 })
  try {
    const principal = { userId: admin.user.id, tenantId: admin.tenant.id, sessionId: 's', displayName: 'Admin' }
    await feed.follow({ id: 'c-1', principal, groups: new Set() })
    const jobs = logger.child({ unit: 'jobs' })
    for (let i = 1; i <= 5; i++) jobs.info({ tenantId: admin.tenant.id }, `burst ${i}`)
    await expect.poll(() => sent.length).toBe(1)
    expect(sent[0]).toMatchObject({ dropped: 2, lines: [{ msg: 'burst 3' }, { msg: 'burst 4' }, { msg: 'burst 5' }] })

    await withTenant(base.db, admin.tenant.id, (tx) => tx.update(memberships).set({ roleKey: 'read-write' }).where(eq(memberships.userId, admin.user.id)))
    jobs.info({ tenantId: admin.tenant.id }, 'after the demotion')
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(sent).toHaveLength(1)
    // Following again is refused.
    await expect(feed.follow({ id: 'c-2', principal, groups: new Set() })).rejects.toThrow(/cannot join this room/)
  } finally {
    feed.stop()
  }
})
