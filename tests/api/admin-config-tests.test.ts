import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { ConfigCategoryValues, ConfigStatusResponse, ConfigTestResult } from '~/lib/admin/config'
import { auditOf, expectProblem, show, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, organisation } from '#tests/helpers/reporting-a'
import { startSmtpServer, type TestSmtpServer } from '#tests/helpers/smtp'

/** docs/admin/configuration.md "Tests": smtp, oidc, redis and storage, against real servers started here. */

let t: TestBackend
let smtp: TestSmtpServer
let oidc: Server
let oidcBase: string
/** What the identity provider answers next: a status and a body. */
let provider: (path: string) => { status: number; body: string; type?: string }

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-25T09:00:00.000Z' })
  smtp = await startSmtpServer()
  oidc = createServer((request: IncomingMessage, response: ServerResponse) => {
    const answer = provider(request.url ?? '/')
    response.writeHead(answer.status, { 'content-type': answer.type ?? 'application/json' })
    response.end(answer.body)
  })
  await new Promise<void>((resolve) => oidc.listen(0, '127.0.0.1', resolve))
  oidcBase = `http://127.0.0.1:${(oidc.address() as AddressInfo).port}`
})

afterAll(async () => {
  await smtp?.close()
  await new Promise((resolve) => oidc?.close(resolve))
  await t?.close()
})

const PATH = '/api/admin/config'

function discovery(issuer: string, leaveOut: string[] = []) {
  const all: Record<string, string> = {
    issuer,
    authorization_endpoint: `${issuer}/protocol/openid-connect/auth`,
    token_endpoint: `${issuer}/protocol/openid-connect/token`,
    jwks_uri: `${issuer}/protocol/openid-connect/certs`,
  }
  for (const key of leaveOut) delete all[key]
  return JSON.stringify(all)
}

async function runTest(c: TestClient, kind: string, json: Record<string, unknown> = {}): Promise<ConfigTestResult> {
  return body<ConfigTestResult>(await c.post(`${PATH}/tests/${kind}`, json))
}

async function putConfig(c: TestClient, category: string, values: Record<string, unknown>, version = 0): Promise<ConfigCategoryValues> {
  return body<ConfigCategoryValues>(await c.request(`${PATH}/${category}`, { method: 'PUT', json: { values }, headers: { 'if-match': `"${version}"` } }))
}

test('oidc: a complete discovery document passes; the result is the category’s last test, audited', async () => {
  const { admin, tenant } = await organisation(t)
  const issuer = `${oidcBase}/realms/site`
  const asked: string[] = []
  provider = (path) => {
    asked.push(path)
    return path === '/realms/site/.well-known/openid-configuration' ? { status: 200, body: discovery(issuer) } : { status: 404, body: '{}' }
  }
  // Unsaved values: nothing saved yet.
  const result = await runTest(admin.c, 'oidc', { values: { issuer, clientId: 'portal' } })
  expect(result).toMatchObject({ kind: 'oidc', ok: true, testedAtUtc: t.now().toISOString(), testedBy: admin.user.displayName })
  expect(result.message).toContain(issuer)
  expect(asked).toEqual(['/realms/site/.well-known/openid-configuration'])
  const category = await body<ConfigCategoryValues>(await admin.c.get(`${PATH}/identity-provider`))
  expect(category).toMatchObject({ version: 0, configured: false, lastTest: { kind: 'oidc', ok: true } })
  const audit = await auditOf(t.db, { tenantId: tenant.id, action: 'admin.config.tested' })
  expect(audit).toEqual([expect.objectContaining({ actorUserId: admin.user.id, data: { category: 'identity-provider', kind: 'oidc', ok: true, message: result.message } })])

  // Saved values are what a test without values checks.
  await putConfig(admin.c, 'identity-provider', { enabled: false, issuer })
  expect((await runTest(admin.c, 'oidc')).ok).toBe(true)
})

test('oidc: each failure says what is wrong in words an admin acts on', async () => {
  const { admin } = await organisation(t)
  const issuer = `${oidcBase}/realms/site`
  const check = async (answer: { status: number; body: string; type?: string }, values: Record<string, unknown> = { issuer }) => {
    provider = () => answer
    const result = await runTest(admin.c, 'oidc', { values })
    expect(result.ok).toBe(false)
    return result.message
  }
  expect(await check({ status: 200, body: discovery('https://elsewhere.example.com/realms/site') })).toContain('calls itself https://elsewhere.example.com/realms/site')
  expect(await check({ status: 200, body: discovery(issuer, ['jwks_uri', 'token_endpoint']) })).toContain('lacks token_endpoint, jwks_uri')
  expect(await check({ status: 404, body: 'not here' })).toContain('no discovery document')
  expect(await check({ status: 503, body: 'down' })).toContain('answered 503')
  expect(await check({ status: 200, body: '<html>login</html>', type: 'text/html' })).toContain('not with a discovery document')

  // A provider that is not there: the port is closed.
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const port = (closed.address() as AddressInfo).port
  await new Promise((resolve) => closed.close(resolve))
  const down = await runTest(admin.c, 'oidc', { values: { issuer: `http://127.0.0.1:${port}/realms/site` } })
  expect(down).toMatchObject({ ok: false, detail: 'ECONNREFUSED' })
  expect(down.message).toContain(`Nothing answers at 127.0.0.1:${port}`)

  // Nothing to test without an issuer; a bad one is a field error.
  expect((await expectProblem(await admin.c.post(`${PATH}/tests/oidc`, {}), 400, 'KR_VALIDATION')).errors).toEqual({ issuer: ['Enter the issuer to test.'] })
  expect((await expectProblem(await admin.c.post(`${PATH}/tests/oidc`, { values: { issuer: 'http://login.example.com' } }), 400)).errors?.issuer).toBeDefined()
})

test('storage: writes, reads back and removes a file under the organisation', async () => {
  const { admin } = await organisation(t)
  const result = await runTest(admin.c, 'storage')
  expect(result).toMatchObject({ kind: 'storage', ok: true, message: 'A test file was written, read back and removed.' })
  const status = await body<ConfigStatusResponse>(await admin.c.get(`${PATH}/status`))
  expect(status.categories.find((c) => c.category === 'storage')?.lastTest).toMatchObject({ ok: true, kind: 'storage' })
})

test('redis: without REDIS_URL it says plainly that none is configured', async () => {
  const { admin } = await organisation(t)
  const result = await runTest(admin.c, 'redis')
  expect(result).toMatchObject({ kind: 'redis', ok: true, detail: 'not-configured' })
  expect(result.message).toContain('No Redis is set up')
})

test('redis: PING answers on this machine’s Redis; a refused port is named without the URL’s password', async () => {
  const up = await createTestBackend({ now: '2026-11-25T09:00:00.000Z', env: { REDIS_URL: 'redis://127.0.0.1:6379' } })
  const down = await createTestBackend({ now: '2026-11-25T09:00:00.000Z', env: { REDIS_URL: 'redis://:hunter2-pass@127.0.0.1:1' } })
  try {
    const a = await organisation(up)
    const realtime = await body<ConfigCategoryValues>(await a.admin.c.get(`${PATH}/realtime`))
    expect(realtime).toMatchObject({ configured: true, values: { backplane: 'redis' } })
    const ok = await body<ConfigTestResult>(await a.admin.c.post(`${PATH}/tests/redis`, {}))
    expect(ok).toMatchObject({ kind: 'redis', ok: true, message: 'Redis at 127.0.0.1:6379 answered.', detail: 'PONG' })

    const b = await organisation(down)
    const response = await b.admin.c.post(`${PATH}/tests/redis`, {})
    const refused = await body<ConfigTestResult>(response)
    expect(refused).toMatchObject({ kind: 'redis', ok: false, detail: 'ECONNREFUSED' })
    expect(refused.message).toBe('Nothing answers at 127.0.0.1:1. Check that Redis is running and that the server’s Redis address names it.')
    expect(await show(await b.admin.c.get(`${PATH}/realtime`))).not.toContain('hunter2')
  } finally {
    await up.close()
    await down.close()
  }
})

const mailValues = () => ({ host: '127.0.0.1', port: smtp.port, security: 'none', username: smtp.user, fromAddress: 'portal@example.com', fromName: 'Yard' })

test('smtp: sends a real message to toEmail with the saved settings (the saved password when none is typed)', async () => {
  const { admin } = await organisation(t)
  smtp.setMode('ok')
  await putConfig(admin.c, 'mail', { ...mailValues(), password: smtp.password })
  const to = `test-${Date.now()}@example.com`
  const result = await runTest(admin.c, 'smtp', { toEmail: to, values: { password: '' } })
  expect(result, JSON.stringify(result)).toMatchObject({ kind: 'smtp', ok: true })
  const mail = await smtp.waitFor((m) => m.to.includes(to))
  expect(mail.from).toBe('portal@example.com')
  // Without toEmail, the test goes to the admin's own address.
  expect((await runTest(admin.c, 'smtp')).ok).toBe(true)
  await smtp.waitFor((m) => m.to.includes(admin.user.email.toLowerCase()) || m.to.includes(admin.user.email))
  expect((await body<ConfigCategoryValues>(await admin.c.get(`${PATH}/mail`))).lastTest).toMatchObject({ kind: 'smtp', ok: true })
})

test('smtp: a wrong password typed before saving fails plainly, and is neither stored nor echoed', async () => {
  const { admin, tenant } = await organisation(t)
  smtp.setMode('ok')
  const wrong = 'wrong-Password-5521'
  const result = await runTest(admin.c, 'smtp', { toEmail: 'someone@example.com', values: { ...mailValues(), password: wrong } })
  expect(result.ok).toBe(false)
  expect(result.message).toMatch(/password/i)
  expect(JSON.stringify(result)).not.toContain(wrong)
  expect(JSON.stringify(await auditOf(t.db, { tenantId: tenant.id }))).not.toContain(wrong)
  const mail = await body<ConfigCategoryValues>(await admin.c.get(`${PATH}/mail`))
  expect(mail).toMatchObject({ version: 0, secrets: { password: { set: false } }, lastTest: { ok: false } })

  smtp.setMode('reject-mail')
  try {
    const rejected = await runTest(admin.c, 'smtp', { toEmail: 'someone@example.com', values: { ...mailValues(), password: smtp.password } })
    expect(rejected.ok).toBe(false)
    expect(rejected.message.length).toBeGreaterThan(20)
  } finally {
    smtp.setMode('ok')
  }
  // Bad input is a field error, not a test.
  const invalid = await expectProblem(await admin.c.post(`${PATH}/tests/smtp`, { toEmail: 'nobody', values: { ...mailValues(), port: 0 } }), 400, 'KR_VALIDATION')
  expect(Object.keys(invalid.errors ?? {}).sort()).toEqual(['toEmail'])
  const invalidPort = await expectProblem(await admin.c.post(`${PATH}/tests/smtp`, { toEmail: 'x@example.com', values: { ...mailValues(), port: 0 } }), 400, 'KR_VALIDATION')
  expect(Object.keys(invalidPort.errors ?? {})).toEqual(['port'])
})
