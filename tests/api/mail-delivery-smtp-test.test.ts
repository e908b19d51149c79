import { afterAll, beforeAll, expect, test } from 'vitest'
import type { MailConfig } from '#server/domain/config/effective'
import { testSmtpDelivery } from '#server/mail/smtp'
import type { SmtpTimeouts } from '#server/mail/transports'
import { startSmtpServer, type TestSmtpServer } from '#tests/helpers/smtp'

/** docs/admin/mail.md "Testing the settings": the configuration's SMTP test against a real SMTP server. */

let smtp: TestSmtpServer
const FAST: SmtpTimeouts = { connectionMs: 1_000, greetingMs: 1_000, socketMs: 500 }
const at = new Date('2026-11-25T06:00:00.000Z')

beforeAll(async () => {
  smtp = await startSmtpServer()
})

afterAll(async () => {
  await smtp?.close()
})

function settings(server: TestSmtpServer, overrides: Partial<MailConfig> = {}): MailConfig {
  return {
    host: server.host,
    port: server.port,
    security: 'none',
    username: server.user,
    password: server.password,
    fromAddress: 'no-reply@portal.test',
    fromName: 'Site Portal',
    ...overrides,
  }
}

test('good settings: one real message arrives, and the result says so', async () => {
  smtp.setMode('ok')
  const result = await testSmtpDelivery(settings(smtp), 'admin@portal.test', () => at, { timeouts: FAST })
  expect(result).toMatchObject({ kind: 'smtp', ok: true, testedAtUtc: at.toISOString() })
  expect(result.message).toBe(`The SMTP server at ${smtp.host}:${smtp.port} accepted a test message to admin@portal.test. Check that it arrived.`)
  expect(result.detail).toMatch(/^250 /)
  expect(result.durationMs).toBeGreaterThanOrEqual(0)
  const mail = await smtp.waitFor((m) => m.to.includes('admin@portal.test') && m.subject === 'Site Portal: test message')
  expect(mail.from).toBe('no-reply@portal.test')
  expect(mail.text).toContain('If you can read it, mail works.')
  expect(mail.html).toContain('<p>')
})

test('a wrong password: the server’s 535 reply and what to check', async () => {
  smtp.setMode('ok')
  const result = await testSmtpDelivery(settings(smtp, { password: 'wrong' }), 'admin@portal.test', () => at, { timeouts: FAST })
  expect(result.ok).toBe(false)
  expect(result.message).toMatch(/^The SMTP server refused the user name or password \(535 [^)]+\)\. Check the user name and password\.$/)
  expect(result.detail).toMatch(/^535 /)
})

test('no user name for a server that needs one', async () => {
  smtp.setMode('ok')
  const result = await testSmtpDelivery(settings(smtp, { username: undefined, password: undefined }), 'admin@portal.test', () => at, { timeouts: FAST })
  expect(result.ok).toBe(false)
  expect(result.message).toMatch(/user name and password/)
})

test('a refused sender, a dropped connection, a port nobody listens on, a slow server', async () => {
  smtp.setMode('reject-mail')
  const rejected = await testSmtpDelivery(settings(smtp), 'admin@portal.test', () => at, { timeouts: FAST })
  expect(rejected.message).toBe(
    'The SMTP server refused the sender “no-reply@portal.test” (550 Relay access denied). Check the from address: this server must be allowed to send as it.',
  )

  smtp.setMode('drop')
  const dropped = await testSmtpDelivery(settings(smtp), 'admin@portal.test', () => at, { timeouts: FAST })
  expect(dropped.message).toMatch(/^The SMTP server at 127\.0\.0\.1:\d+ closed the connection before the message was sent\. Check the host, port and security setting/)

  const gone = await startSmtpServer()
  const port = gone.port
  await gone.close()
  const nobody = await testSmtpDelivery(settings(gone, { port }), 'admin@portal.test', () => at, { timeouts: FAST })
  expect(nobody.message).toBe(`Could not connect to 127.0.0.1:${port}: nothing is listening there. Check the host and port.`)

  const slow = await startSmtpServer({ mode: 'slow', slowMs: 3_000 })
  try {
    const result = await testSmtpDelivery(settings(slow), 'admin@portal.test', () => at, { timeouts: FAST })
    expect(result.ok).toBe(false)
    expect(result.message).toMatch(/^The SMTP server at 127\.0\.0\.1:\d+ stopped answering within 1 s/)
  } finally {
    await slow.close()
  }
  smtp.setMode('ok')
})

test('TLS asked of a server that speaks plain SMTP: told to choose STARTTLS or none', async () => {
  smtp.setMode('ok')
  const result = await testSmtpDelivery(settings(smtp, { security: 'tls' }), 'admin@portal.test', () => at, { timeouts: FAST })
  expect(result.ok).toBe(false)
  expect(result.message).toMatch(/TLS/)
})

test('STARTTLS required of a server that does not offer it', async () => {
  smtp.setMode('ok')
  const result = await testSmtpDelivery(settings(smtp, { security: 'starttls' }), 'admin@portal.test', () => at, { timeouts: FAST })
  expect(result.ok).toBe(false)
  expect(result.message).toMatch(/STARTTLS|TLS/)
})
