import { and, asc, eq, sql } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest'
import { settleAfterResponse } from '#server/api/auth/after-response'
import { mailOutbox } from '#server/db/schema'
import { changeLog } from '#server/db/schema-reporting'
import { withTenant } from '#server/db/tenancy'
import { sendWorkflowReminders } from '#server/jobs/workflow-reminders'
import type { Workflow, WorkflowTemplate } from '~/lib/doc-control/types'
import { DEFAULT_NOTIFICATION_PREFERENCES } from '~/lib/settings/notifications'
import type { EmailTemplateDetail, EmailTemplateList, EmailTemplatePreview, EmailTemplateTestResult } from '~/lib/admin/email-templates'
import { auditOf, client, createMember, expectProblem, signedInClient, uniqueEmail, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { documentProject, newDocument, uploadRevision } from '#tests/helpers/documents'
import { body, organisation, put, signedMember } from '#tests/helpers/reporting-a'

/** docs/admin/email-templates.md: list, get, save, reset, preview and test; the mail each template drives. Through HTTP. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-20T09:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

afterEach(() => {
  t.now.reset()
})

const BASE = '/api/admin/email-templates'

async function detail(c: TestClient, key: string): Promise<EmailTemplateDetail> {
  return body<EmailTemplateDetail>(await c.get(`${BASE}/${key}`))
}

async function save(c: TestClient, key: string, texts: { subject?: string; html?: string; text?: string }, version?: number): Promise<Response> {
  const current = await detail(c, key)
  return put(c, `${BASE}/${key}`, { subject: current.subject, html: current.html, text: current.text, ...texts, version: version ?? current.version })
}

function remove(c: TestClient, key: string): Promise<Response> {
  return c.request(`${BASE}/${key}`, { method: 'DELETE' })
}

async function outboxTo(address: string) {
  return t.db
    .select({ template: mailOutbox.template, subject: mailOutbox.subject, text: mailOutbox.textBody, html: mailOutbox.htmlBody, tenantId: mailOutbox.tenantId })
    .from(mailOutbox)
    .where(sql`lower(${mailOutbox.toAddress}) = ${address.toLowerCase()}`)
    .orderBy(asc(mailOutbox.createdAt))
}

test('the list has every mail the product sends, each on its default until customised; members who are not admins are refused', async () => {
  const { admin, writer, reader } = await organisation(t)
  const list = await body<EmailTemplateList>(await admin.c.get(BASE))
  expect(list.items.map((i) => i.key)).toEqual(
    expect.arrayContaining(['verify-email', 'reset-password', 'invite', 'join-request-received', 'workflow-review', 'transmittal-sent', 'revision-superseded', 'support-reply', 'digest']),
  )
  expect(list.items).toHaveLength(21)
  expect(list.items.every((i) => !i.customised && i.version === 0 && i.updatedAtUtc === null && i.title !== '' && i.description !== '')).toBe(true)
  await expectProblem(await writer.c.get(BASE), 403)
  await expectProblem(await reader.c.get(`${BASE}/invite`), 403)
  await expectProblem(await writer.c.request(`${BASE}/invite`, { method: 'PUT', json: { subject: 'x', html: 'x', text: 'x', version: 0 } }), 403)
  await expectProblem(await writer.c.post(`${BASE}/invite/preview`, {}), 403)
  await expectProblem(await writer.c.post(`${BASE}/invite/test`, { to: uniqueEmail('w') }), 403)
  await expectProblem(await remove(writer.c, 'invite'), 403)
  await expectProblem(await client(t).get(BASE), 401)
})

test('one template: the texts that apply, the defaults and the variables with their samples; an unknown key is 404', async () => {
  const { admin } = await organisation(t)
  const invite = await detail(admin.c, 'invite')
  expect(invite).toMatchObject({ key: 'invite', customised: false, version: 0, subject: invite.defaults.subject, html: invite.defaults.html, text: invite.defaults.text })
  expect(invite.subject).toContain('{{inviterName}}')
  expect(invite.variables.map((v) => v.name)).toEqual(['siteName', 'organisationName', 'publicUrl', 'inviterName', 'roleName', 'message', 'acceptUrl', 'expiresAt'])
  const digest = await detail(admin.c, 'digest')
  expect(digest.variables.find((v) => v.name === 'items')?.fields?.map((f) => f.name)).toEqual(['title', 'url', 'projectName', 'dueDate', 'status'])
  for (const path of [`${BASE}/no-such-mail`, `${BASE}/no-such-mail/preview`]) {
    await expectProblem(path.endsWith('preview') ? await admin.c.post(path, {}) : await admin.c.get(path), 404, 'KR_NOT_FOUND')
  }
  await expectProblem(await admin.c.request(`${BASE}/nope`, { method: 'PUT', json: { subject: 'x', html: 'x', text: 'x', version: 0 } }), 404)
  await expectProblem(await remove(admin.c, 'nope'), 404)
  await expectProblem(await admin.c.post(`${BASE}/nope/test`, { to: uniqueEmail('n') }), 404)
})

test('saving: version 1, listed as customised by whom; audited with a before/after diff; announced to realtime', async () => {
  const { admin, tenant } = await organisation(t)
  const saved = await body<EmailTemplateDetail>(await save(admin.c, 'invite', { subject: 'Join {{organisationName}}, says {{inviterName}}' }))
  expect(saved).toMatchObject({ customised: true, version: 1, subject: 'Join {{organisationName}}, says {{inviterName}}', updatedBy: { id: admin.user.id } })
  expect(saved.html).toBe(saved.defaults.html)
  const list = await body<EmailTemplateList>(await admin.c.get(BASE))
  expect(list.items.find((i) => i.key === 'invite')).toMatchObject({ customised: true, version: 1, updatedAtUtc: t.now().toISOString() })
  const again = await body<EmailTemplateDetail>(await save(admin.c, 'invite', { text: 'Line one\r\nLine {{acceptUrl}}' }))
  expect(again).toMatchObject({ version: 2, text: 'Line one\nLine {{acceptUrl}}' })

  const audit = await auditOf(t.db, { action: 'admin.email-template.changed', tenantId: tenant.id })
  expect(audit).toHaveLength(2)
  expect(audit[0]?.data).toMatchObject({
    key: 'invite',
    version: 1,
    fromDefault: true,
    changes: [{ field: 'subject', before: saved.defaults.subject, after: 'Join {{organisationName}}, says {{inviterName}}' }],
  })
  const changes = await withTenant(t.db, tenant.id, (tx) =>
    tx
      .select({ entity: changeLog.entity })
      .from(changeLog)
      .where(and(eq(changeLog.tenantId, tenant.id), eq(changeLog.entity, 'EmailTemplate'))),
  )
  expect(changes).toHaveLength(2)
})

test('an unknown variable, an unclosed section or an empty field is a field error naming it; nothing is saved', async () => {
  const { admin } = await organisation(t)
  const unknown = await expectProblem(await save(admin.c, 'invite', { html: '<p>Hello {{firstName}}</p>' }), 400, 'KR_TEMPLATE_INVALID')
  expect(unknown.errors?.html?.[0]).toMatch(/^Unknown variable \{\{firstName\}\} in the HTML body\. Known: siteName, organisationName, publicUrl, inviterName/)
  expect(unknown.errors?.subject).toBeUndefined()
  const unclosed = await expectProblem(await save(admin.c, 'invite', { text: '{{#message}}{{message}}', subject: '{{nope}}' }), 400)
  expect(unclosed.errors?.text).toEqual(['The section {{#message}} in the text body is not closed: add {{/message}}.'])
  expect(unclosed.errors?.subject?.[0]).toContain('Unknown variable {{nope}} in the subject')
  const empty = await expectProblem(await save(admin.c, 'invite', { subject: '  ' }), 400, 'KR_VALIDATION')
  expect(empty.errors?.subject).toEqual(['Write a subject.'])
  await expectProblem(await admin.c.request(`${BASE}/invite`, { method: 'PUT', json: { subject: 'x', html: 'x', text: 'x' } }), 400)
  // A version past the 32-bit column names none: a field error, never a database error.
  const tooHigh = await expectProblem(await admin.c.request(`${BASE}/invite`, { method: 'PUT', json: { subject: 'x', html: 'x', text: 'x', version: 2_147_483_648 } }), 400, 'KR_VALIDATION')
  expect(tooHigh.errors?.version).toEqual(['No version is that high: reload the page.'])
  expect((await detail(admin.c, 'invite')).customised).toBe(false)
})

test('a save based on an older version is 409 naming both versions; nothing is lost or overwritten', async () => {
  const { admin, tenant } = await organisation(t)
  const second = await signedMember(t, 'admin', tenant)
  await body(await save(admin.c, 'reset-password', { subject: 'First {{siteName}}' }, 0))
  const conflict = await expectProblem(await save(second.c, 'reset-password', { subject: 'Second {{siteName}}' }, 0), 409, 'KR_VERSION_CONFLICT')
  expect(conflict).toMatchObject({ currentVersion: 1, yourVersion: 0 })
  expect((conflict as unknown as { current: EmailTemplateDetail }).current.subject).toBe('First {{siteName}}')
  expect((await detail(admin.c, 'reset-password')).subject).toBe('First {{siteName}}')
})

test('reset goes back to the default: audited; resetting a default changes nothing', async () => {
  const { admin, tenant } = await organisation(t)
  await body(await save(admin.c, 'support-reply', { subject: 'Ticket {{ticketLabel}}' }))
  const reset = await body<EmailTemplateDetail>(await remove(admin.c, 'support-reply'))
  expect(reset).toMatchObject({ customised: false, version: 0, subject: reset.defaults.subject })
  expect((await detail(admin.c, 'support-reply')).customised).toBe(false)
  await body(await remove(admin.c, 'support-reply'))
  expect(await auditOf(t.db, { action: 'admin.email-template.reset', tenantId: tenant.id })).toEqual([
    expect.objectContaining({ actorUserId: admin.user.id, data: expect.objectContaining({ key: 'support-reply', version: 1 }) }),
  ])
})

test('preview renders the saved template, or the unsaved texts, with sample data and the organisation’s name; errors as field errors', async () => {
  const { admin, tenant } = await organisation(t)
  const saved = await body<EmailTemplatePreview>(await admin.c.post(`${BASE}/invite/preview`, {}))
  expect(saved.subject).toBe(`Sam Taylor invited you to ${tenant.name} on Site Portal`)
  expect(saved.text).toContain('Welcome aboard: the site meeting is on Monday.')
  expect(saved.html).toMatch(/^<!doctype html>/i)
  expect(saved.html).toContain('https://portal.example.com/invite/sample')

  const unsaved = await body<EmailTemplatePreview>(
    await admin.c.post(`${BASE}/invite/preview`, {
      subject: 'Hi from {{inviterName}}',
      html: '<p onclick="x()">Role: <b>{{roleName}}</b></p><script>alert(1)</script>',
      text: 'Role {{roleName}}',
    }),
  )
  expect(unsaved).toMatchObject({ subject: 'Hi from Sam Taylor', text: 'Role Member' })
  expect(unsaved.html).toContain('<p>Role: <b>Member</b></p>')
  expect(unsaved.html).not.toContain('alert(1)')
  expect(unsaved.html).not.toContain('onclick')
  expect((await detail(admin.c, 'invite')).customised).toBe(false)

  const bad = await expectProblem(await admin.c.post(`${BASE}/invite/preview`, { text: 'Hello {{who}}' }), 400)
  expect(bad.errors?.text?.[0]).toContain('Unknown variable {{who}} in the text body')
})

test('a test mail goes through the outbox with the sample data, "[Test] " before the subject, HTML and text; audited; rate limited', async () => {
  const { admin, tenant } = await organisation(t)
  const to = uniqueEmail('tester')
  const sent = await body<EmailTemplateTestResult>(await admin.c.post(`${BASE}/workflow-review/test`, { to }), 202)
  expect(sent).toEqual({ queued: true, to, subject: '[Test] Review requested: HB-DR-0101 P02 and 1 more' })
  const [mail] = await outboxTo(to)
  expect(mail).toMatchObject({ template: 'workflow-review', tenantId: tenant.id, subject: '[Test] Review requested: HB-DR-0101 P02 and 1 more' })
  expect(mail?.text).toContain('- HB-DR-0102 P01 (S2): Sections A–A and B–B')
  expect(mail?.html).toContain('<li>HB-DR-0101 P02 (S3): General arrangement, level 1</li>')

  await body(await admin.c.post(`${BASE}/invite/test`, { to, subject: 'Unsaved {{roleName}}' }), 202)
  expect((await outboxTo(to))[1]?.subject).toBe('[Test] Unsaved Member')
  expect(await auditOf(t.db, { action: 'admin.email-template.tested', tenantId: tenant.id })).toHaveLength(2)
  await expectProblem(await admin.c.post(`${BASE}/invite/test`, { to: 'not an address' }), 400)

  for (let i = 2; i < 10; i++) await body(await admin.c.post(`${BASE}/invite/test`, { to }), 202)
  const limited = await expectProblem(await admin.c.post(`${BASE}/invite/test`, { to }), 429, 'KR_THROTTLED')
  expect(limited.retryAfterSeconds).toBeGreaterThan(0)
  t.now.advance(11 * 60_000)
  await body(await admin.c.post(`${BASE}/invite/test`, { to }), 202)
})

test('an invitation uses the organisation’s own template; another organisation’s customisation never applies to it', async () => {
  const mine = await organisation(t)
  const other = await organisation(t)
  await body(await save(other.admin.c, 'invite', { subject: 'OTHER ORG {{organisationName}}', text: 'Other org text {{acceptUrl}}' }))

  const first = uniqueEmail('plain')
  await body(await mine.admin.c.post('/api/admin/invites', { email: first, roleKey: 'read-write' }), 201)
  const [plain] = await outboxTo(first)
  expect(plain?.subject).toBe(`${mine.admin.user.displayName} invited you to ${mine.tenant.name} on Site Portal`)
  expect(plain?.text).not.toContain('Other org')
  expect(plain?.html).toContain('Accept the invitation')

  await body(
    await save(mine.admin.c, 'invite', {
      subject: 'Come aboard {{organisationName}}',
      text: 'Our words. {{acceptUrl}}',
      html: '<p>Our <strong>words</strong>. <a href="{{acceptUrl}}">Join</a></p>',
    }),
  )
  const second = uniqueEmail('custom')
  await body(await mine.admin.c.post('/api/admin/invites', { email: second, roleKey: 'read-write' }), 201)
  const [custom] = await outboxTo(second)
  expect(custom?.subject).toBe(`Come aboard ${mine.tenant.name}`)
  expect(custom?.text).toMatch(/^Our words\. http:\/\/portal\.test\/invite\/[A-Za-z0-9_-]{20,}$/)
  expect(custom?.html).toContain('<p>Our <strong>words</strong>. <a href="http://portal.test/invite/')
})

test('a join request mails the admins with that organisation’s template (its own transaction, opened for the request)', async () => {
  const { admin } = await organisation(t)
  await body(await save(admin.c, 'join-request-received', { subject: 'Knock knock: {{requesterName}}' }))
  const requester = await createMember(t.db, { roleKey: 'admin' })
  const c = await signedInClient(t, requester)
  await body(await c.post('/api/join-requests', { slug: admin.tenant.slug }), 201)
  const mails = (await outboxTo(admin.user.email)).filter((m) => m.template === 'join-request-received')
  expect(mails.map((m) => m.subject)).toEqual([`Knock knock: ${requester.user.displayName}`])
})

test('mail about an account outside any organisation (a password reset) uses the default, whatever organisations customised', async () => {
  const member = await createMember(t.db, { roleKey: 'admin' })
  const admin = await signedMember(t, 'admin', member.tenant)
  await body(await save(admin.c, 'reset-password', { subject: 'CUSTOM RESET' }))
  await client(t).post('/auth/password/reset/request', { email: member.user.email })
  await settleAfterResponse(t.db)
  const [mail] = (await outboxTo(member.user.email)).filter((m) => m.template === 'reset-password')
  expect(mail?.subject).toBe('Reset your Site Portal password')
  expect(mail?.tenantId).toBeNull()
  expect(mail?.html).toContain('Choose a new password')
})

test('an administrator’s password reset link uses the organisation’s template (the admin transaction)', async () => {
  const { admin, writer } = await organisation(t)
  await body(await save(admin.c, 'admin-password-reset', { subject: 'Reset for {{recipientName}} at {{organisationName}}' }))
  await body(await admin.c.post(`/api/admin/users/${writer.user.id}/password`, {}), 202)
  const [mail] = (await outboxTo(writer.user.email)).filter((m) => m.template === 'admin-password-reset')
  expect(mail?.subject).toBe(`Reset for ${writer.user.displayName} at ${writer.tenant.name}`)
})

test('review tasks: the organisation’s template, and no mail (request or reminder) to a reviewer who switched review-task mail off', async () => {
  const { admin, writer, tenant } = await organisation(t)
  const quiet = await signedMember(t, 'read-write', tenant)
  const keen = await signedMember(t, 'read-write', tenant)
  await body(await put(quiet.c, '/api/user/notification-preferences/', { ...DEFAULT_NOTIFICATION_PREFERENCES, reviewTask: false }))
  await body(await save(admin.c, 'workflow-review', { subject: 'Please look at {{reviewLabel}}' }))
  const project = await documentProject(admin.c)
  const document = await newDocument(admin.c, project.id)
  const revision = await uploadRevision(writer.c, document.id, new TextEncoder().encode('drawing'), {
    code: 'P01',
    status: 'S0',
    fileName: 'drawing.txt',
    contentType: 'text/plain',
  })
  const steps = [
    {
      name: 'Check',
      mode: 'parallel',
      consolidate: 'strictest',
      reviewers: [quiet, keen].map((m) => ({ type: 'user' as const, userId: m.user.id })),
      dueDays: 5,
      outcomes: [{ kind: 'approved', label: 'Approved', status: 'A1' }],
      onReject: { to: 'author' },
    },
  ]
  const template = await body<WorkflowTemplate>(await admin.c.post('/api/workflow-templates', { name: 'Check it', steps }), 201)
  const workflow = await body<Workflow>(await writer.c.post(`/api/projects/${project.id}/workflows`, { templateId: template.id, revisionIds: [revision.id] }), 201)
  const of = async (m: { user: { email: string } }, key: string) => (await outboxTo(m.user.email)).filter((mail) => mail.template === key)
  expect((await of(keen, 'workflow-review')).map((m) => m.subject)).toEqual([`Please look at ${document.number} P01`])
  expect(await of(quiet, 'workflow-review')).toEqual([])

  const due = new Date(workflow.tasks[0]?.dueAt ?? '').getTime()
  await sendWorkflowReminders(t.db, new Date(due - 60 * 60_000), { publicUrl: t.config.publicUrl })
  expect(await of(keen, 'workflow-due')).toHaveLength(1)
  expect(await of(quiet, 'workflow-due')).toEqual([])
})
