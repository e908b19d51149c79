import pino from 'pino'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createBackend } from '#server/api/app'
import type { Config } from '#server/config'
import { client, uniqueAddress } from '#tests/helpers/auth'
import { createTestBackend, TEST_ORIGIN, type TestBackend } from '#tests/helpers/backend'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend()
})

afterAll(async () => {
  await t.close()
})

type LogLine = { level: number; event?: string; msg: string }

/** A backend on the test database whose warnings are kept, and a browser-like client for it. */
function backendWithLog(config: Config) {
  const lines: LogLine[] = []
  const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line) as LogLine) })
  const backend = createBackend({ config, db: t.db, logger, now: t.now })
  const c = client({
    ...t,
    backend,
    fetch: (path, { remoteAddress = uniqueAddress(), ...init } = {}) => backend.fetch(new Request(new URL(path, TEST_ORIGIN), init), { remoteAddress }),
  })
  const signIn = (headers: Record<string, string> = {}) => c.post('/auth/login', { email: 'nobody@example.test', password: 'wrong password' }, { headers })
  return { warnings: () => lines.filter((l) => l.event === 'Config.TrustProxy.Off'), signIn }
}

test('requests with X-Forwarded-For while TRUST_PROXY is off log one warning, on the first of them', async () => {
  const { warnings, signIn } = backendWithLog(t.config)

  expect((await signIn()).status).toBe(401)
  expect(warnings()).toEqual([])
  expect((await signIn({ 'x-forwarded-for': '192.0.2.10' })).status).toBe(401)
  expect((await signIn({ 'x-forwarded-for': '192.0.2.11' })).status).toBe(401)

  expect(warnings()).toEqual([expect.objectContaining({ level: 40, msg: expect.stringContaining('TRUST_PROXY') })])
})

test('with TRUST_PROXY on, X-Forwarded-For is expected and nothing is logged', async () => {
  const { warnings, signIn } = backendWithLog({ ...t.config, trustProxy: true })

  expect((await signIn({ 'x-forwarded-for': '192.0.2.12' })).status).toBe(401)

  expect(warnings()).toEqual([])
})
