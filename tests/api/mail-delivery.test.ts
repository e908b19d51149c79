import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { eq, inArray, sql } from 'drizzle-orm'
import { simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest'
import { mailOutbox } from '#server/db/schema'
import { mailTransportHealth } from '#server/db/schema-settings'
import { createLogger } from '#server/http/logger'
import { deliverQueuedMail, MAIL_BACKOFF_MS, MAIL_MAX_ATTEMPTS } from '#server/jobs/mail-delivery'
import { createMailRouter, type MailRouter } from '#server/mail/routing'
import { smtpTransport, type SmtpTimeouts } from '#server/mail/transports'
import { createTenant, uniqueEmail } from '#tests/helpers/auth'
import { createTestBackend, TEST_SESSION_SECRET, type TestBackend } from '#tests/helpers/backend'
import { startSmtpServer, type TestSmtpServer } from '#tests/helpers/smtp'

/** docs/admin/mail.md: the outbox worker against a real SMTP server in this process. */

let t: TestBackend
let smtp: TestSmtpServer
const logger = createLogger('silent')
const FAST: SmtpTimeouts = { connectionMs: 2_000, greetingMs: 2_000, socketMs: 2_000 }
const MINUTE = 60_000

beforeAll(async () => {
  t = await createTestBackend()
  smtp = await startSmtpServer()
})

afterAll(async () => {
  await smtp?.close()
  await t?.close()
})

afterEach(async () => {
  smtp.setMode('ok')
  // Whatever a test left waiting is not sent by the next one.
  await t.db
    .update(mailOutbox)
    .set({ status: 'cancelled' })
    .where(inArray(mailOutbox.status, ['queued', 'sending']))
  await t.db.delete(mailTransportHealth)
})

function smtpUrl(server: TestSmtpServer, password = server.password): string {
  return `smtp://${server.user}:${encodeURIComponent(password)}@${server.host}:${server.port}`
}

function instanceRouter(options: { timeouts?: SmtpTimeouts; url?: string; mailFileDir?: string } = {}): MailRouter {
  return createMailRouter({
    db: t.db,
    sessionSecret: TEST_SESSION_SECRET,
    instance: { smtpUrl: options.mailFileDir ? undefined : (options.url ?? smtpUrl(smtp)), mailFrom: 'Site Portal <no-reply@portal.test>', mailFileDir: options.mailFileDir },
    timeouts: options.timeouts ?? FAST,
  })
}

async function pass(router: MailRouter, at: Date, options: { random?: () => number } = {}) {
  try {
    return await deliverQueuedMail(t.db, router, logger, () => at, { random: options.random ?? (() => 0.5) })
  } finally {
    router.close()
  }
}

async function queue(values: { to?: string; subject?: string; text?: string; html?: string | null; tenantId?: string | null; at?: Date } = {}) {
  const [row] = await t.db
    .insert(mailOutbox)
    .values({
      tenantId: values.tenantId ?? null,
      toAddress: values.to ?? uniqueEmail('to'),
      template: 'invite',
      subject: values.subject ?? `Subject ${Math.random().toString(36).slice(2)}`,
      textBody: values.text ?? 'Plain words.',
      htmlBody: values.html === undefined ? '<p>Rich <strong>words</strong>.</p>' : values.html,
      nextAttemptAt: values.at ?? new Date(Date.now() - 1000),
    })
    .returning()
  if (!row) throw new Error('no row')
  return row
}

async function rowOf(id: string) {
  const [row] = await t.db.select().from(mailOutbox).where(eq(mailOutbox.id, id))
  if (!row) throw new Error('no row')
  return row
}

async function healthOf(key: string) {
  const [row] = await t.db.select().from(mailTransportHealth).where(eq(mailTransportHealth.key, key))
  return row
}

test('a queued message goes out over SMTP with its plain-text and HTML parts, From, To and Subject; sent, and the transport counts a success', async () => {
  const message = await queue({ subject: 'Your invitation', text: 'Open the link.', html: '<p>Open <a href="https://portal.test/x">the link</a>.</p>' })
  const now = new Date()
  const outcome = await pass(instanceRouter(), now)
  expect(outcome).toMatchObject({ claimed: 1, sent: 1, failed: 0, dead: 0 })
  const mail = await smtp.waitFor((m) => m.subject === 'Your invitation')
  expect(mail.to).toEqual([message.toAddress])
  expect(mail.from).toBe('no-reply@portal.test')
  expect(mail.text.trim()).toBe('Open the link.')
  expect(mail.html).toContain('<a href="https://portal.test/x">the link</a>')
  const parsed = await simpleParser(mail.raw)
  expect(parsed.from?.text).toBe('"Site Portal" <no-reply@portal.test>')
  expect(parsed.messageId).toBe(`<${message.id}@portal.test>`)

  const row = await rowOf(message.id)
  expect(row).toMatchObject({ status: 'sent', attempts: 1, transport: 'instance', lastError: null, claimedAt: null })
  expect(row.sentAt?.getTime()).toBe(now.getTime())
  expect(await healthOf('instance')).toMatchObject({ failureCount: 0, consecutiveFailures: 0, lastSuccessAt: now, lastFailureAt: null })
})

test('a message without HTML goes as plain text only', async () => {
  const message = await queue({ subject: 'Plain only', html: null })
  await pass(instanceRouter(), new Date())
  const mail = await smtp.waitFor((m) => m.subject === 'Plain only')
  expect(mail.html).toBeUndefined()
  expect(mail.raw).toMatch(/Content-Type: text\/plain/i)
  expect((await rowOf(message.id)).status).toBe('sent')
})

test('refused credentials: queued again after a minute (± jitter), the admin reads what to check, the transport counts the failure', async () => {
  smtp.setMode('refuse-auth')
  const message = await queue()
  const now = new Date()
  const outcome = await pass(instanceRouter(), now, { random: () => 0 })
  expect(outcome).toMatchObject({ claimed: 1, sent: 0, failed: 1 })
  const row = await rowOf(message.id)
  expect(row).toMatchObject({ status: 'queued', attempts: 1, transport: 'instance', claimedAt: null })
  expect(row.lastError).toMatch(/^The SMTP server refused the user name or password \(535[^)]*\)\. Check the user name and password\./)
  expect(row.lastFailureAt?.getTime()).toBe(now.getTime())
  // random 0 is the low end of the jitter: 90 % of a minute.
  expect(row.nextAttemptAt.getTime() - now.getTime()).toBe(0.9 * MINUTE)
  expect(await healthOf('instance')).toMatchObject({ failureCount: 1, consecutiveFailures: 1, lastFailureAt: now, lastSuccessAt: null, lastError: row.lastError })
})

test('a refused sender (550 on MAIL FROM) is the server’s answer to every message: back-off, not dead', async () => {
  smtp.setMode('reject-mail')
  const message = await queue()
  await pass(instanceRouter(), new Date())
  const row = await rowOf(message.id)
  expect(row.status).toBe('queued')
  expect(row.lastError).toMatch(/^The SMTP server refused the sender “no-reply@portal\.test” \(550 Relay access denied\)\. Check the from address/)
})

test('a dropped connection and an unreachable port read as such and are tried again', async () => {
  smtp.setMode('drop')
  const dropped = await queue()
  await pass(instanceRouter(), new Date())
  const row = await rowOf(dropped.id)
  expect(row.status).toBe('queued')
  expect(row.lastError).toMatch(/^The SMTP server at 127\.0\.0\.1:\d+ closed the connection before the message was sent\./)

  smtp.setMode('ok')
  const closed = await startSmtpServer()
  const port = closed.port
  await closed.close()
  const unreachable = await queue()
  await pass(instanceRouter({ url: `smtp://127.0.0.1:${port}` }), new Date(Date.now() + 2 * MINUTE))
  expect((await rowOf(unreachable.id)).lastError).toBe(`Could not connect to 127.0.0.1:${port}: nothing is listening there. Check the host and port.`)
})

test('a slow server cannot stall the worker: the socket timeout ends the attempt, which is tried again later', async () => {
  const slow = await startSmtpServer({ mode: 'slow', slowMs: 3_000 })
  try {
    const message = await queue()
    await pass(instanceRouter({ url: smtpUrl(slow), timeouts: { connectionMs: 1_000, greetingMs: 1_000, socketMs: 300 } }), new Date())
    // The attempt ended on the socket timeout (the error says so), not on the server's 3 s answer:
    // tests do not assert on time.
    const row = await rowOf(message.id)
    expect(row.status).toBe('queued')
    expect(row.lastError).toMatch(/^The SMTP server at 127\.0\.0\.1:\d+ stopped answering/)
  } finally {
    await slow.close()
  }
})

test('back-off 1 min, 5 min, 30 min, 2 h … is kept to the minute (injected clock), and the 8th failure makes the message dead', async () => {
  smtp.setMode('refuse-auth')
  const message = await queue()
  let now = new Date()
  for (let attempt = 1; attempt <= MAIL_MAX_ATTEMPTS; attempt++) {
    // Not before its time.
    if (attempt > 1) expect((await pass(instanceRouter(), new Date(now.getTime() - 1))).claimed).toBe(0)
    expect((await pass(instanceRouter(), now)).claimed).toBe(1)
    const row = await rowOf(message.id)
    expect(row.attempts).toBe(attempt)
    if (attempt === MAIL_MAX_ATTEMPTS) {
      expect(row.status).toBe('dead')
      break
    }
    expect(row.status).toBe('queued')
    expect(row.nextAttemptAt.getTime() - now.getTime()).toBe(MAIL_BACKOFF_MS[attempt - 1])
    now = row.nextAttemptAt
  }
  expect(MAIL_BACKOFF_MS.slice(0, 4)).toEqual([MINUTE, 5 * MINUTE, 30 * MINUTE, 120 * MINUTE])
  expect(await healthOf('instance')).toMatchObject({ failureCount: MAIL_MAX_ATTEMPTS, consecutiveFailures: MAIL_MAX_ATTEMPTS })
  // Dead stays dead: no later pass takes it.
  smtp.setMode('ok')
  expect((await pass(instanceRouter(), new Date(now.getTime() + 7 * 24 * 60 * MINUTE))).claimed).toBe(0)
})

test('a recipient the server refuses for good (550 on RCPT TO) is dead at once, and the transport is not blamed', async () => {
  const picky = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      callback(Object.assign(new Error(`No such user here: ${address.address}`), { responseCode: 550 }))
    },
  })
  await new Promise<void>((resolve) => picky.listen(0, '127.0.0.1', resolve))
  try {
    const message = await queue({ to: 'nobody@portal.test' })
    await pass(instanceRouter({ url: `smtp://127.0.0.1:${(picky.server.address() as AddressInfo).port}` }), new Date())
    const row = await rowOf(message.id)
    expect(row).toMatchObject({ status: 'dead', attempts: 1 })
    expect(row.lastError).toMatch(/^The SMTP server refused the recipient “nobody@portal\.test” \(550 No such user here: nobody@portal\.test\)\. Check the address\./)
    expect(await healthOf('instance')).toBeUndefined()
  } finally {
    await new Promise<void>((resolve) => picky.close(() => resolve()))
  }
})

test('a claim older than the 10-minute lease (a worker that died mid-send) is taken over; a younger one is left alone', async () => {
  const now = new Date()
  const stale = await queue({ subject: 'Stale claim' })
  const fresh = await queue({ subject: 'Fresh claim' })
  await t.db
    .update(mailOutbox)
    .set({ status: 'sending', attempts: 1, claimedAt: new Date(now.getTime() - 11 * MINUTE) })
    .where(eq(mailOutbox.id, stale.id))
  await t.db
    .update(mailOutbox)
    .set({ status: 'sending', attempts: 1, claimedAt: new Date(now.getTime() - 9 * MINUTE) })
    .where(eq(mailOutbox.id, fresh.id))
  expect(await pass(instanceRouter(), now)).toMatchObject({ claimed: 1, sent: 1 })
  await smtp.waitFor((m) => m.subject === 'Stale claim')
  expect(await rowOf(stale.id)).toMatchObject({ status: 'sent', attempts: 2 })
  expect(await rowOf(fresh.id)).toMatchObject({ status: 'sending', attempts: 1 })
  expect(smtp.messages.some((m) => m.subject === 'Fresh claim')).toBe(false)
})

test('two workers on one database passing at the same time never send a message twice', async () => {
  const before = smtp.messages.length
  const batch = `batch-${Math.random().toString(36).slice(2)}`
  const rows = await Promise.all(Array.from({ length: 30 }, (_, i) => queue({ subject: `${batch} ${i}` })))
  const now = new Date()
  const [a, b] = await Promise.all([pass(instanceRouter(), now), pass(instanceRouter(), now)])
  // Each takes at most a batch of 20; whatever is left goes in the next passes.
  let total = (a?.sent ?? 0) + (b?.sent ?? 0)
  while (total < rows.length) {
    const [c, d] = await Promise.all([pass(instanceRouter(), now), pass(instanceRouter(), now)])
    const more = (c?.sent ?? 0) + (d?.sent ?? 0)
    expect(more).toBeGreaterThan(0)
    total += more
  }
  expect(total).toBe(rows.length)
  const received = smtp.messages.slice(before).filter((m) => m.subject.startsWith(batch))
  expect(received).toHaveLength(rows.length)
  expect(new Set(received.map((m) => m.subject)).size).toBe(rows.length)
  const statuses = await t.db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(mailOutbox)
    .where(
      inArray(
        mailOutbox.id,
        rows.map((r) => r.id),
      ),
    )
    .groupBy(mailOutbox.status, mailOutbox.attempts)
  expect(statuses).toEqual([{ n: rows.length }])
})

test('after failures, a success resets consecutiveFailures but keeps failureCount', async () => {
  smtp.setMode('refuse-auth')
  const message = await queue()
  const first = new Date()
  await pass(instanceRouter(), first)
  const second = new Date(first.getTime() + 2 * MINUTE)
  await pass(instanceRouter(), second)
  expect(await healthOf('instance')).toMatchObject({ failureCount: 2, consecutiveFailures: 2, lastFailureAt: second })
  smtp.setMode('ok')
  const third = new Date(second.getTime() + 10 * MINUTE)
  await pass(instanceRouter(), third)
  expect((await rowOf(message.id)).status).toBe('sent')
  expect(await healthOf('instance')).toMatchObject({ failureCount: 2, consecutiveFailures: 0, lastFailureAt: second, lastSuccessAt: third })
})

test('with no transport anywhere mail stays queued; an organisation with its own SMTP server sends its own mail through it', async () => {
  const own = await createTenant(t.db)
  const other = await createTenant(t.db)
  const ownMail = await queue({ tenantId: own.id, subject: 'Through our own server' })
  const otherMail = await queue({ tenantId: other.id })
  const instanceMail = await queue()
  const router: MailRouter = {
    instance: undefined,
    forTenant: (tenantId) =>
      Promise.resolve(
        tenantId === own.id
          ? smtpTransport(`tenant:${own.id}`, { host: smtp.host, port: smtp.port, security: 'none', username: smtp.user, password: smtp.password, from: 'crew@own.test' }, FAST)
          : undefined,
      ),
    close: () => undefined,
  }
  expect(await pass(router, new Date())).toMatchObject({ claimed: 1, sent: 1 })
  const mail = await smtp.waitFor((m) => m.subject === 'Through our own server')
  expect(mail.from).toBe('crew@own.test')
  expect(await rowOf(ownMail.id)).toMatchObject({ status: 'sent', transport: `tenant:${own.id}` })
  expect(await rowOf(otherMail.id)).toMatchObject({ status: 'queued', attempts: 0 })
  expect(await rowOf(instanceMail.id)).toMatchObject({ status: 'queued', attempts: 0 })
  expect(await healthOf(`tenant:${own.id}`)).toMatchObject({ tenantId: own.id, consecutiveFailures: 0 })
})

test('MAIL_FILE_DIR writes real MIME files (text and HTML parts) that a mail parser reads', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sp-mail-'))
  try {
    const message = await queue({ subject: 'Filed away', text: 'Plain part.', html: '<p>HTML part.</p>' })
    await pass(instanceRouter({ mailFileDir: dir }), new Date())
    const files = (await readdir(dir)).filter((f) => f.endsWith('.eml'))
    expect(files).toHaveLength(1)
    const parsed = await simpleParser(await readFile(path.join(dir, files[0] ?? ''), 'utf8'))
    expect(parsed.subject).toBe('Filed away')
    expect(parsed.text?.trim()).toBe('Plain part.')
    expect(parsed.html).toContain('<p>HTML part.</p>')
    expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.text : '').toBe(message.toAddress)
    expect(await rowOf(message.id)).toMatchObject({ status: 'sent', transport: 'file' })
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})

test('SMTP_URL and MAIL_FROM are checked at start: a bad URL, or a URL without a From, stops it with a message naming the variable', async () => {
  const { loadConfig } = await import('#server/config')
  const base = { SESSION_SECRET: TEST_SESSION_SECRET, DATA_DIR: os.tmpdir() }
  expect(() => loadConfig({ ...base, SMTP_URL: 'http://mail.example.com' })).toThrow(/SMTP_URL: must be an smtp:\/\/ or smtps:\/\/ URL/)
  expect(() => loadConfig({ ...base, SMTP_URL: 'smtp://mail.example.com:587' })).toThrow(/MAIL_FROM: is required with SMTP_URL/)
  expect(() => loadConfig({ ...base, SMTP_URL: 'smtp://mail.example.com:587', MAIL_FROM: 'not an address' })).toThrow(/MAIL_FROM: must be an address/)
  const config = loadConfig({ ...base, SMTP_URL: 'smtps://u:p%40ss@mail.example.com', MAIL_FROM: 'Site Portal <no-reply@example.com>' })
  expect(config).toMatchObject({ smtpUrl: 'smtps://u:p%40ss@mail.example.com', mailFrom: 'Site Portal <no-reply@example.com>' })
})
