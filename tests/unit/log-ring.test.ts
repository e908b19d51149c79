import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { expect, test } from 'vitest'
import { LogRing } from '#server/domain/observability/log-ring'
import { createLogger, scrubSecrets } from '#server/http/logger'
import { isFieldMoment, liveFilterOf, logsHref, logsPageQuery, matchesLogFilter, momentForApi, sinceForApi, type LogLine } from '~/lib/admin/logs'

/** The logger's in-memory ring (docs/observability.md "Logs"): bounds, tenancy, filters, and secrets that never reach it. */

const TENANT = 't-1'

function ringLogger(options: { maxLines?: number; maxBytes?: number } = {}) {
  const ring = new LogRing(options)
  const stdout: string[] = []
  const logger = createLogger('trace', new Writable({ write: (chunk: Buffer, _encoding, done) => (stdout.push(chunk.toString()), done()) }), { ring })
  return { ring, logger, stdout: () => stdout.join('') }
}

test('every line goes to the standard output and to the ring, which keeps the last lines within its line and size bounds', () => {
  const { ring, logger, stdout } = ringLogger({ maxLines: 3 })
  for (let i = 1; i <= 5; i++) logger.info({ tenantId: TENANT, n: i }, `line ${i}`)
  expect(stdout().trim().split('\n')).toHaveLength(5)
  expect(ring.size).toBe(3)
  expect(ring.tail(TENANT, {}, 10).map((line) => line.msg)).toEqual(['line 3', 'line 4', 'line 5'])
  expect(ring.oldest()?.msg).toBe('line 3')

  const small = ringLogger({ maxBytes: 1000 })
  for (let i = 0; i < 20; i++) small.logger.info({ tenantId: TENANT, padding: 'x'.repeat(100) }, `line ${i}`)
  expect(small.ring.size).toBeGreaterThan(1)
  expect(small.ring.size).toBeLessThan(10)
  expect(small.ring.tail(TENANT, {}, 100).at(-1)?.msg).toBe('line 19')
})

test('a tail answers only the lines that name the organisation, newest last, at most the number asked for', () => {
  const { ring, logger } = ringLogger()
  logger.info('started')
  logger.info({ tenantId: 'other' }, 'theirs')
  const web = logger.child({ unit: 'web', correlationId: 'corr-123456', visitorId: 'visitor-abc' })
  web.info({ tenantId: TENANT, path: '/api/projects', status: 200 }, 'request')
  web.warn({ tenantId: TENANT, path: '/api/items', status: 404 }, 'request')
  const lines = ring.tail(TENANT, {}, 10)
  expect(lines.map((line) => line.fields.path)).toEqual(['/api/projects', '/api/items'])
  expect(lines[1]).toMatchObject({ level: 'warn', unit: 'web', msg: 'request', correlationId: 'corr-123456', visitorId: 'visitor-abc', fields: { status: 404 } })
  expect(lines[1]?.fields).not.toHaveProperty('tenantId')
  expect(ring.tail(TENANT, {}, 1).map((line) => line.fields.path)).toEqual(['/api/items'])
  expect(ring.tail('nobody', {}, 10)).toEqual([])
})

test('filters: unit, level and above, since, and a case-insensitive query over the message and every value', () => {
  const { ring, logger } = ringLogger()
  logger.child({ unit: 'jobs' }).info({ tenantId: TENANT, job: 'digest' }, 'daily digests queued')
  logger.child({ unit: 'web' }).error({ tenantId: TENANT, err: new Error('Boom in Handler') }, 'unhandled error')
  logger.child({ unit: 'mail' }).debug({ tenantId: TENANT, nested: { deep: ['Needle-42'] } }, 'mail detail')
  const msgs = (filter: Parameters<LogRing['tail']>[1]) => ring.tail(TENANT, filter, 100).map((line) => line.msg)
  expect(msgs({ unit: 'jobs' })).toEqual(['daily digests queued'])
  expect(msgs({ level: 'info' })).toEqual(['daily digests queued', 'unhandled error'])
  expect(msgs({ level: 'error' })).toEqual(['unhandled error'])
  expect(msgs({ query: 'boom in handler' })).toEqual(['unhandled error'])
  expect(msgs({ query: 'NEEDLE-42' })).toEqual(['mail detail'])
  expect(msgs({ query: 'DIGEST' })).toEqual(['daily digests queued'])
  expect(msgs({ sinceMs: Date.now() + 60_000 })).toEqual([])
  expect(msgs({ sinceMs: Date.now() - 60_000 })).toHaveLength(3)
})

test('secrets never reach the ring or the standard output, at any depth', () => {
  const { ring, logger, stdout } = ringLogger()
  const secrets = ['hunter2-pass', 'new-pass-1', 'smtp-pass-2', 'oidc-client-secret', 'session-token-3', 'cookie-value-4', 'Bearer auth-5', 'set-cookie-6', '654321', 'db-pass-7', 'totp-seed-8', 'api-key-9']
  logger.info(
    {
      tenantId: TENANT,
      password: 'hunter2-pass',
      body: { newPassword: 'new-pass-1', code: '654321' },
      settings: { smtp: { smtpPassword: 'smtp-pass-2', auth: { user: 'mailer', pass: 'smtp-pass-2' } }, oidc: { clientSecret: 'oidc-client-secret' } },
      sessionToken: 'session-token-3',
      headers: { cookie: 'cookie-value-4', authorization: 'Bearer auth-5', 'set-cookie': 'set-cookie-6' },
      databaseUrl: 'postgres://portal:db-pass-7@db.internal:5432/portal',
      list: [{ totpSecret: 'totp-seed-8' }, { apiKey: 'api-key-9' }],
      code: 'KR_VALIDATION',
    },
    'settings saved',
  )
  const [line] = ring.tail(TENANT, {}, 1)
  const text = JSON.stringify(line)
  for (const secret of secrets) {
    expect(text).not.toContain(secret)
    expect(stdout()).not.toContain(secret)
  }
  // What is not a secret stays: the user name, the host, an error code.
  expect(text).toContain('mailer')
  expect(text).toContain('db.internal')
  expect(line?.fields.code).toBe('KR_VALIDATION')
})

test('scrubbing copies: the logged object itself is left as it was', () => {
  const logged = { password: 'kept-in-caller', nested: { token: 'also-kept' } }
  const scrubbed = scrubSecrets(logged, 0) as typeof logged
  expect(scrubbed.password).toBe('[redacted]')
  expect(scrubbed.nested.token).toBe('[redacted]')
  expect(logged).toEqual({ password: 'kept-in-caller', nested: { token: 'also-kept' } })
})

test('a line too long to keep keeps its message; a line that is not JSON is ignored', () => {
  const ring = new LogRing()
  ring.write('not json\n')
  ring.write(`${JSON.stringify({ level: 30, time: Date.now(), tenantId: TENANT, msg: 'huge', blob: 'x'.repeat(100_000) })}\n`)
  const [line] = ring.tail(TENANT, {}, 5)
  expect(ring.size).toBe(1)
  expect(line?.msg).toBe('huge')
  expect(line?.fields).not.toHaveProperty('blob')
})

test('a listener hears each new line; one that throws does not break logging', () => {
  const { ring, logger } = ringLogger()
  const heard: string[] = []
  ring.subscribe(() => {
    throw new Error('listener failed')
  })
  const off = ring.subscribe((entry) => heard.push(entry.line.msg))
  logger.info({ tenantId: TENANT }, 'one')
  off()
  logger.info({ tenantId: TENANT }, 'two')
  expect(heard).toEqual(['one'])
  expect(ring.size).toBe(2)
})

test('the page: its since windows count back from when it was drawn, and the live follow applies the same filter', () => {
  const now = Date.parse('2026-05-01T10:00:00Z')
  expect(sinceForApi('15m', now)).toBe('2026-05-01T09:45:00.000Z')
  expect(sinceForApi('2026-04-30T00:00:00Z', now)).toBe('2026-04-30T00:00:00Z')
  expect(sinceForApi('', now)).toBeUndefined()
  const filter = liveFilterOf(logsPageQuery(new URL('http://x/admin/logs?unit=web&level=warn&since=1h&query=Corr-1&lines=50')), now)
  expect(filter).toEqual({ unit: 'web', level: 'warn', sinceMs: now - 3_600_000, untilMs: null, query: 'Corr-1' })
  const line: LogLine = { seq: 1, timeUtc: '2026-05-01T09:59:00.000Z', level: 'error', unit: 'web', msg: 'request', correlationId: 'corr-1', visitorId: null, fields: {} }
  expect(matchesLogFilter(line, filter)).toBe(true)
  expect(matchesLogFilter({ ...line, level: 'info' }, filter)).toBe(false)
  expect(matchesLogFilter({ ...line, unit: 'jobs' }, filter)).toBe(false)
  expect(matchesLogFilter({ ...line, correlationId: 'other' }, filter)).toBe(false)
  // Values the page does not know are no filter at all (the API refuses them on the page itself).
  expect(liveFilterOf(logsPageQuery(new URL('http://x/admin/logs?unit=nope&level=loud&since=later')), now)).toEqual({ unit: null, level: null, sinceMs: null, untilMs: null, query: null })
})

test('the page’s period: typed in UTC to the minute, sent as UTC date-times, `to` covering its whole minute; kept by the paging links', () => {
  expect(momentForApi('2026-05-01T09:30', 'from')).toBe('2026-05-01T09:30:00.000Z')
  expect(momentForApi('2026-05-01T09:30', 'to')).toBe('2026-05-01T09:30:59.999Z')
  expect(momentForApi('2026-05-01T09:30:15', 'to')).toBe('2026-05-01T09:30:15.000Z')
  // An ISO date-time with its offset (a link) and anything not a moment go as they are, for the API to judge.
  expect(momentForApi('2026-05-01T11:30:00+02:00', 'from')).toBe('2026-05-01T11:30:00+02:00')
  for (const typed of ['yesterday', '2026-02-30T09:30', '2026-05-01', '2026-05-01T25:00']) {
    expect(momentForApi(typed, 'from')).toBe(typed)
    expect(isFieldMoment(typed)).toBe(false)
  }
  expect(momentForApi('', 'to')).toBeUndefined()
  expect(isFieldMoment('2026-05-01T09:30')).toBe(true)

  const now = Date.parse('2026-05-01T10:00:00Z')
  const query = logsPageQuery(new URL('http://x/admin/logs?since=1h&from=2026-05-01T09:45&to=2026-05-01T09:50&unit=web'))
  const filter = liveFilterOf(query, now)
  // The later of since (09:00) and from (09:45) holds.
  expect(filter).toMatchObject({ sinceMs: Date.parse('2026-05-01T09:45:00Z'), untilMs: Date.parse('2026-05-01T09:50:59.999Z') })
  const line: LogLine = { seq: 1, timeUtc: '2026-05-01T09:50:30.000Z', level: 'info', unit: 'web', msg: 'request', correlationId: null, visitorId: null, fields: {} }
  expect(matchesLogFilter(line, filter)).toBe(true)
  expect(matchesLogFilter({ ...line, timeUtc: '2026-05-01T09:51:00.000Z' }, filter)).toBe(false)
  expect(matchesLogFilter({ ...line, timeUtc: '2026-05-01T09:44:59.999Z' }, filter)).toBe(false)
  expect(logsHref({ ...query, before: '42' })).toBe('/admin/logs?unit=web&since=1h&from=2026-05-01T09%3A45&to=2026-05-01T09%3A50&before=42')
})

test('LOG_FILE: lines are appended to the file (its folder made), secrets removed there too', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sp-log-'))
  try {
    const file = path.join(dir, 'logs', 'portal.log')
    const discard = new Writable({ write: (_chunk, _encoding, done) => done() })
    createLogger('info', discard, { file }).info({ tenantId: TENANT, smtpPassword: 'file-never' }, 'first')
    createLogger('info', discard, { file }).info('second')
    const lines = (await readFile(file, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { msg: string; smtpPassword?: string })
    expect(lines.map((line) => line.msg)).toEqual(['first', 'second'])
    expect(lines[0]?.smtpPassword).toBe('[redacted]')
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})
