import { rm } from 'node:fs/promises'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { mailOutbox } from '#server/db/schema'
import { mailTransportHealth } from '#server/db/schema-settings'
import { createLogger } from '#server/http/logger'
import { deliverQueuedMail } from '#server/jobs/mail-delivery'
import { createMailRouter } from '#server/mail/routing'
import type { MailMessageDetail, MailOutboxPage, MailTransportsResponse } from '~/lib/admin/mail-outbox'
import { auditOf, expectProblem, uniqueEmail } from '#tests/helpers/auth'
import { createTestBackend, TEST_SESSION_SECRET, type TestBackend } from '#tests/helpers/backend'
import { startSmtpServer } from '#tests/helpers/smtp'
import { body, changeLogOf, organisation } from '#tests/helpers/reporting-a'

/** docs/admin/mail.md "The outbox page": the organisation's outgoing mail, retry, cancel and the transports' health. Through HTTP. */

let t: TestBackend
let mailDir: string

beforeAll(async () => {
  mailDir = `/tmp/sp-outbox-test-${process.pid}`
  t = await createTestBackend({ now: '2026-11-25T06:00:00.000Z', env: { MAIL_FILE_DIR: mailDir } })
})

afterAll(async () => {
  await t?.close()
  await rm(mailDir, { recursive: true, force: true })
})

type Values = {
  tenantId: string | null
  to?: string
  subject?: string
  template?: string
  status?: string
  attempts?: number
  html?: string | null
  createdAt?: Date
  lastError?: string | null
}

async function message(values: Values) {
  const [row] = await t.db
    .insert(mailOutbox)
    .values({
      tenantId: values.tenantId,
      toAddress: values.to ?? uniqueEmail('to'),
      template: values.template ?? 'invite',
      subject: values.subject ?? 'You are invited',
      textBody: 'Plain text body.',
      htmlBody: values.html === undefined ? '<p style="color:#123">HTML <strong>body</strong></p><script>alert(1)</script>' : values.html,
      status: values.status ?? 'queued',
      attempts: values.attempts ?? 0,
      lastError: values.lastError ?? null,
      createdAt: values.createdAt ?? t.now(),
    })
    .returning({ id: mailOutbox.id })
  if (!row) throw new Error('no row')
  return row.id
}

test('the list: newest first, only this organisation’s mail, filters by status, template and address, 50 a page with an after cursor', async () => {
  const { admin, tenant } = await organisation(t)
  const other = await organisation(t)
  const base = t.now().getTime()
  const ids: string[] = []
  for (let i = 0; i < 53; i++) {
    ids.push(
      await message({
        tenantId: tenant.id,
        to: i % 2 ? `odd${i}@example.com` : `even${i}@example.com`,
        createdAt: new Date(base + i * 1000),
        template: i < 3 ? 'reset-password' : 'invite',
      }),
    )
  }
  await message({ tenantId: other.tenant.id, to: 'elsewhere@example.com' })
  await message({ tenantId: null, to: 'nobody-tenant@example.com' })

  const first = await body<MailOutboxPage & { templates: string[] }>(await admin.c.get('/api/admin/mail-outbox'))
  expect(first.items).toHaveLength(50)
  expect(first.items[0]?.id).toBe(ids[52])
  expect(first.items.every((m) => m.to.endsWith('@example.com') && !m.to.startsWith('elsewhere') && !m.to.startsWith('nobody'))).toBe(true)
  expect(first.templates).toEqual(['invite', 'reset-password'])
  expect(first.nextCursor).not.toBeNull()
  const second = await body<MailOutboxPage>(await admin.c.get(`/api/admin/mail-outbox?after=${first.nextCursor}`))
  expect(second.items.map((m) => m.id)).toEqual([ids[2], ids[1], ids[0]])
  expect(second.nextCursor).toBeNull()

  expect(first.items[0]).toMatchObject({ status: 'queued', attempts: 0, template: 'invite', subject: 'You are invited', lastError: null, sentAtUtc: null, transport: null })

  const resets = await body<MailOutboxPage>(await admin.c.get('/api/admin/mail-outbox?template=reset-password'))
  expect(resets.items.map((m) => m.id)).toEqual([ids[2], ids[1], ids[0]])
  const search = await body<MailOutboxPage>(await admin.c.get('/api/admin/mail-outbox?to=ODD5'))
  expect(search.items.map((m) => m.to).sort()).toEqual(['odd51@example.com', 'odd5@example.com'])
  // A % in the search is a %, not a wildcard.
  expect((await body<MailOutboxPage>(await admin.c.get('/api/admin/mail-outbox?to=%25'))).items).toEqual([])

  const dead = await message({ tenantId: tenant.id, status: 'dead', attempts: 8, lastError: 'The SMTP server refused the user name or password (535 no).' })
  const deadOnly = await body<MailOutboxPage>(await admin.c.get('/api/admin/mail-outbox?status=dead'))
  expect(deadOnly.items).toEqual([expect.objectContaining({ id: dead, status: 'dead', attempts: 8, lastError: 'The SMTP server refused the user name or password (535 no).' })])

  const bad = await expectProblem(await admin.c.get('/api/admin/mail-outbox?status=lost&limit=0'), 400)
  expect(Object.keys(bad.errors ?? {}).sort()).toEqual(['limit', 'status'])
  await expectProblem(await admin.c.get('/api/admin/mail-outbox?after=nonsense'), 400)
})

test('one message: its bodies, times and transport; another organisation’s id and a malformed id are 404; a member is 403', async () => {
  const { admin, writer, tenant } = await organisation(t)
  const other = await organisation(t)
  const id = await message({ tenantId: tenant.id, subject: 'Reset your password', template: 'reset-password' })
  const foreign = await message({ tenantId: other.tenant.id })
  const stray = await message({ tenantId: null })

  const detail = await body<MailMessageDetail>(await admin.c.get(`/api/admin/mail-outbox/${id}`))
  expect(detail).toMatchObject({
    id,
    subject: 'Reset your password',
    template: 'reset-password',
    status: 'queued',
    textBody: 'Plain text body.',
    claimedAtUtc: null,
    cancelledAtUtc: null,
  })
  expect(detail.htmlBody).toContain('<strong>body</strong>')

  for (const path of [`/api/admin/mail-outbox/${foreign}`, `/api/admin/mail-outbox/${stray}`, '/api/admin/mail-outbox/not-a-uuid', `/api/admin/mail-outbox/${foreign}/html`]) {
    await expectProblem(await admin.c.get(path), 404)
  }
  for (const path of [`/api/admin/mail-outbox/${foreign}/retry`, `/api/admin/mail-outbox/${foreign}/cancel`]) await expectProblem(await admin.c.post(path), 404)
  expect((await t.db.select({ status: mailOutbox.status }).from(mailOutbox).where(eq(mailOutbox.id, foreign)))[0]?.status).toBe('queued')

  await expectProblem(await writer.c.get('/api/admin/mail-outbox'), 403)
  await expectProblem(await writer.c.get(`/api/admin/mail-outbox/${id}`), 403)
  await expectProblem(await writer.c.post(`/api/admin/mail-outbox/${id}/retry`), 403)
  await expectProblem(await writer.c.post(`/api/admin/mail-outbox/${id}/cancel`), 403)
  await expectProblem(await writer.c.get('/api/admin/mail-outbox/transports'), 403)
})

test('the HTML part is served under a sandbox CSP that runs no script and fetches nothing', async () => {
  const { admin, tenant } = await organisation(t)
  const id = await message({ tenantId: tenant.id })
  const response = await admin.c.get(`/api/admin/mail-outbox/${id}/html`)
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
  const csp = response.headers.get('content-security-policy') ?? ''
  expect(csp).toMatch(/^sandbox;/)
  expect(csp).toContain("default-src 'none'")
  expect(csp).not.toContain('script-src')
  expect(await response.text()).toContain('<strong>body</strong>')
  const plain = await message({ tenantId: tenant.id, html: null })
  await expectProblem(await admin.c.get(`/api/admin/mail-outbox/${plain}/html`), 404)
})

test('retry: a dead message is queued again, due now, with a fresh count; audited and announced; a sent one is 409', async () => {
  const { admin, tenant } = await organisation(t)
  const dead = await message({ tenantId: tenant.id, status: 'dead', attempts: 8 })
  const retried = await body<MailMessageDetail>(await admin.c.post(`/api/admin/mail-outbox/${dead}/retry`))
  expect(retried).toMatchObject({ id: dead, status: 'queued', attempts: 0, nextAttemptAtUtc: t.now().toISOString() })
  const audit = await auditOf(t.db, { action: 'admin.mail.retried', tenantId: tenant.id })
  expect(audit).toEqual([expect.objectContaining({ actorUserId: admin.user.id, data: expect.objectContaining({ previousStatus: 'dead', attempts: 8 }) })])
  expect(await changeLogOf(t, tenant.id)).toContainEqual(expect.objectContaining({ entity: 'MailOutbox', entityId: dead, changeType: 'Updated' }))

  const queued = await message({ tenantId: tenant.id, status: 'queued', attempts: 3 })
  await t.db
    .update(mailOutbox)
    .set({ nextAttemptAt: new Date(t.now().getTime() + 3600_000) })
    .where(eq(mailOutbox.id, queued))
  expect(await body<MailMessageDetail>(await admin.c.post(`/api/admin/mail-outbox/${queued}/retry`))).toMatchObject({
    status: 'queued',
    attempts: 3,
    nextAttemptAtUtc: t.now().toISOString(),
  })

  for (const status of ['sent', 'sending', 'cancelled']) {
    const id = await message({ tenantId: tenant.id, status })
    const problem = await expectProblem(await admin.c.post(`/api/admin/mail-outbox/${id}/retry`), 409, 'KR_MAIL_STATE')
    expect(problem.detail).toMatch(/Only a queued or dead message can be sent again\./)
  }
})

test('cancel: a queued message is cancelled and never sent; audited; cancelling again is 409', async () => {
  const { admin, tenant } = await organisation(t)
  const id = await message({ tenantId: tenant.id })
  const cancelled = await body<MailMessageDetail>(await admin.c.post(`/api/admin/mail-outbox/${id}/cancel`))
  expect(cancelled).toMatchObject({ status: 'cancelled', cancelledAtUtc: t.now().toISOString() })
  expect(await auditOf(t.db, { action: 'admin.mail.cancelled', tenantId: tenant.id })).toEqual([
    expect.objectContaining({ actorUserId: admin.user.id, data: expect.objectContaining({ previousStatus: 'queued' }) }),
  ])
  const again = await expectProblem(await admin.c.post(`/api/admin/mail-outbox/${id}/cancel`), 409, 'KR_MAIL_STATE')
  expect(again.detail).toBe('This message is cancelled. It was cancelled. Only a queued or dead message can be cancelled.')
  const dead = await message({ tenantId: tenant.id, status: 'dead' })
  expect((await body<MailMessageDetail>(await admin.c.post(`/api/admin/mail-outbox/${dead}/cancel`))).status).toBe('cancelled')
})

test('transports: the instance’s transport with its failure tracking, when the organisation has no SMTP server of its own', async () => {
  const { admin } = await organisation(t)
  await t.db
    .insert(mailTransportHealth)
    .values({ key: 'file', failureCount: 3, consecutiveFailures: 1, lastFailureAt: t.now(), lastError: 'Disk full', updatedAt: t.now() })
    .onConflictDoNothing()
  const transports = await body<MailTransportsResponse>(await admin.c.get('/api/admin/mail-outbox/transports'))
  expect(transports.noTransport).toBe(false)
  expect(transports.items).toEqual([
    {
      key: 'file',
      kind: 'file',
      label: 'Files on this server (for development)',
      description: `files in ${mailDir}`,
      inUse: true,
      failureCount: 3,
      consecutiveFailures: 1,
      lastFailureUtc: t.now().toISOString(),
      lastSuccessUtc: null,
      lastError: 'Disk full',
    },
  ])
})

test('transports: an organisation that used its own server before sees that row (not in use now)', async () => {
  const { admin, tenant } = await organisation(t)
  await t.db
    .insert(mailTransportHealth)
    .values({ key: `tenant:${tenant.id}`, tenantId: tenant.id, failureCount: 1, consecutiveFailures: 0, lastSuccessAt: t.now(), updatedAt: t.now() })
  const other = await organisation(t)
  const mine = await body<MailTransportsResponse>(await admin.c.get('/api/admin/mail-outbox/transports'))
  expect(mine.items.map((i) => [i.key, i.inUse])).toEqual([
    [`tenant:${tenant.id}`, false],
    ['file', true],
  ])
  const theirs = await body<MailTransportsResponse>(await other.admin.c.get('/api/admin/mail-outbox/transports'))
  expect(theirs.items.map((i) => i.key)).toEqual(['file'])
})

test('an organisation that saves its own SMTP settings has its mail sent through them; the page shows that server in use and working', async () => {
  const smtp = await startSmtpServer()
  try {
    const { admin, tenant } = await organisation(t)
    const values = { host: smtp.host, port: smtp.port, security: 'none', username: smtp.user, password: smtp.password, fromAddress: 'yard@example.com', fromName: 'Yard' }
    await body(await admin.c.request('/api/admin/config/mail', { method: 'PUT', json: { values }, headers: { 'if-match': '"0"' } }))
    const id = await message({ tenantId: tenant.id, subject: 'Through the yard’s own server' })
    await t.db
      .update(mailOutbox)
      .set({ nextAttemptAt: new Date(Date.now() - 1000) })
      .where(eq(mailOutbox.id, id))

    // The earlier tests' queued mail (other organisations) goes to the instance's files, 20 a pass.
    const at = new Date()
    for (let pass = 0; pass < 10; pass++) {
      const router = createMailRouter({
        db: t.db,
        sessionSecret: TEST_SESSION_SECRET,
        instance: { smtpUrl: undefined, mailFrom: 'Site Portal <no-reply@portal.test>', mailFileDir: mailDir },
      })
      try {
        if ((await deliverQueuedMail(t.db, router, createLogger('silent'), () => at)).claimed === 0) break
      } finally {
        router.close()
      }
    }
    const mail = await smtp.waitFor((m) => m.subject === 'Through the yard’s own server')
    expect(mail.from).toBe('yard@example.com')
    const detail = await body<MailMessageDetail>(await admin.c.get(`/api/admin/mail-outbox/${id}`))
    expect(detail).toMatchObject({ status: 'sent', transport: `tenant:${tenant.id}`, attempts: 1 })

    const transports = await body<MailTransportsResponse>(await admin.c.get('/api/admin/mail-outbox/transports'))
    expect(transports.items).toEqual([
      expect.objectContaining({
        key: `tenant:${tenant.id}`,
        kind: 'organisation',
        inUse: true,
        description: `SMTP ${smtp.host}:${smtp.port} (no TLS)`,
        consecutiveFailures: 0,
        lastSuccessUtc: at.toISOString(),
      }),
    ])
  } finally {
    await smtp.close()
  }
})
