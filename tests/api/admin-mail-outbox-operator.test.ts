import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { settleAfterResponse } from '#server/api/auth/after-response'
import { mailOutbox } from '#server/db/schema'
import type { MailMessageDetail, MailOutboxPage } from '~/lib/admin/mail-outbox'
import { client, createMember, expectProblem, signedInClient, uniqueAddress } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, organisation } from '#tests/helpers/reporting-a'

/**
 * Issue 36 §6: mail that belongs to no organisation (a reset asked from the sign-in page) is
 * visible where someone can act on it when it is stuck: the outbox of a platform operator
 * (PLATFORM_OPERATOR_EMAILS), who may send it again or cancel it. Other administrators never see it.
 */

let t: TestBackend
const OPERATOR = `operator-${randomUUID().slice(0, 8)}@ops.example.com`

beforeAll(async () => {
  t = await createTestBackend({ env: { PLATFORM_OPERATOR_EMAILS: OPERATOR } })
})

afterAll(async () => {
  await settleAfterResponse(t.db)
  await t?.close()
})

test('a reset asked from the sign-in page that is stuck is listed, shown and retried in a platform operator’s outbox, and in no other administrator’s', async () => {
  const someone = await createMember(t.db)
  expect((await client(t, { remoteAddress: uniqueAddress() }).post('/auth/password/reset/request', { email: someone.user.email })).status).toBe(202)
  await settleAfterResponse(t.db)
  const [row] = await t.db.select({ id: mailOutbox.id, tenantId: mailOutbox.tenantId }).from(mailOutbox).where(eq(mailOutbox.toAddress, someone.user.email))
  if (!row) throw new Error('no reset mail queued')
  expect(row.tenantId).toBeNull()
  // Stuck: the delivery gave up on it.
  await t.db.update(mailOutbox).set({ status: 'dead', attempts: 8, lastError: '550 mailbox unavailable' }).where(eq(mailOutbox.id, row.id))

  const operatorMember = await createMember(t.db, { email: OPERATOR, roleKey: 'admin' })
  const operator = await signedInClient(t, operatorMember)
  const listed = await body<MailOutboxPage>(await operator.get('/api/admin/mail-outbox?status=dead'))
  const mine = listed.items.find((m) => m.id === row.id)
  expect(mine).toMatchObject({ to: someone.user.email, template: 'reset-password', status: 'dead', withoutOrganisation: true })
  expect((await body<MailMessageDetail>(await operator.get(`/api/admin/mail-outbox/${row.id}`))).lastError).toBe('550 mailbox unavailable')
  const retried = await body<MailMessageDetail>(await operator.post(`/api/admin/mail-outbox/${row.id}/retry`))
  expect(retried).toMatchObject({ status: 'queued', attempts: 0, withoutOrganisation: true })

  // An administrator who is not an operator: not listed, not found, not retried.
  const { admin } = await organisation(t)
  const theirs = await body<MailOutboxPage>(await admin.c.get('/api/admin/mail-outbox'))
  expect(theirs.items.some((m) => m.id === row.id)).toBe(false)
  await expectProblem(await admin.c.get(`/api/admin/mail-outbox/${row.id}`), 404)
  await expectProblem(await admin.c.post(`/api/admin/mail-outbox/${row.id}/cancel`), 404)
  // The operator's own organisation's mail stays theirs alone too: another organisation's message is still 404 to the operator.
  const other = await organisation(t)
  const [foreign] = await t.db
    .insert(mailOutbox)
    .values({ tenantId: other.tenant.id, toAddress: 'x@example.com', template: 'invite', subject: 'Invite', textBody: 'x', status: 'dead' })
    .returning({ id: mailOutbox.id })
  await expectProblem(await operator.get(`/api/admin/mail-outbox/${foreign?.id}`), 404)
})
