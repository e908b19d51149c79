import { afterAll, beforeAll, expect, test } from 'vitest'
import type { SupportAttachment, SupportTicket, SupportTicketDetail } from '~/lib/admin/support'
import { auditOf, expectProblem, mailsTo, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, TEST_ORIGIN, type TestBackend } from '#tests/helpers/backend'
import { pngImage, putChunk, sha256Hex } from '#tests/helpers/photos'
import { body, organisation, patch } from '#tests/helpers/reporting-a'

/** docs/admin/support.md: support tickets, their thread, attachments through the upload, and the admin side. Through HTTP. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-20T09:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

type Page = { items: SupportTicket[]; nextCursor: string | null }

function open(c: TestClient, subject = 'Cannot export the report', text = 'The PDF export spins for ever.'): Promise<Response> {
  return c.post('/api/support/tickets', { subject, body: text })
}

async function uploadAttachment(c: TestClient, ticketId: string, bytes: Uint8Array, fileName: string, chunk = bytes.length): Promise<Response> {
  const session = await body<{ id: string; purpose: string; supportTicketId: string; chunkSize: number }>(
    await c.post(`/api/support/tickets/${ticketId}/uploads`, { fileName, size: bytes.length, contentType: 'application/octet-stream' }),
    201,
  )
  expect(session).toMatchObject({ purpose: 'support', supportTicketId: ticketId })
  for (let offset = 0; offset < bytes.length; offset += chunk) await body(await putChunk(c, session.id, offset, bytes.subarray(offset, offset + chunk)))
  return c.post(`/api/uploads/${session.id}/complete`)
}

function sendForm(c: TestClient, ticketId: string, files: Array<{ bytes: Uint8Array; name: string; type?: string }>): Promise<Response> {
  const form = new FormData()
  for (const f of files) form.append('file', new File([new Uint8Array(f.bytes)], f.name, { type: f.type ?? 'application/octet-stream' }))
  return c.request(`/api/support/tickets/${ticketId}/attachments`, { method: 'POST', body: form })
}

test('open → the admin lists it → assigns → replies (mail to the opener) → the opener replies (mail to the assignee)', async () => {
  const { tenant, admin, writer } = await organisation(t)
  const first = await body<SupportTicketDetail>(await open(writer.c), 201)
  expect(first).toMatchObject({ number: 1, status: 'open', subject: 'Cannot export the report', openedBy: { id: writer.user.id }, assignee: null, messages: [], attachments: [] })
  const second = await body<SupportTicketDetail>(await open(writer.c, 'Second', 'Another question.'), 201)
  expect(second.number).toBe(2)
  // A new ticket reaches every administrator.
  expect((await mailsTo(t.db, admin.user.email)).map((m) => m.subject)).toContain('New support ticket #1 Cannot export the report')

  const list = await body<Page>(await admin.c.get('/api/admin/support/tickets'))
  expect(list.items.map((x) => x.number)).toEqual([2, 1])
  expect((await body<Page>(await admin.c.get('/api/admin/support/tickets?q=%231'))).items.map((x) => x.id)).toEqual([first.id])
  expect((await body<Page>(await admin.c.get('/api/admin/support/tickets?q=spins'))).items.map((x) => x.id)).toEqual([first.id])
  const assignees = await body<{ items: Array<{ id: string }> }>(await admin.c.get('/api/admin/support/assignees'))
  expect(assignees.items.map((a) => a.id)).toEqual([admin.user.id])

  const assigned = await body<SupportTicketDetail>(await patch(admin.c, `/api/admin/support/tickets/${first.id}`, { assigneeId: admin.user.id }))
  expect(assigned.assignee?.id).toBe(admin.user.id)
  expect((await body<Page>(await admin.c.get(`/api/admin/support/tickets?assigneeId=${admin.user.id}`))).items.map((x) => x.id)).toEqual([first.id])
  expect((await body<Page>(await admin.c.get('/api/admin/support/tickets?assigneeId=none'))).items.map((x) => x.id)).toEqual([second.id])

  const replied = await body<SupportTicketDetail>(await admin.c.post(`/api/admin/support/tickets/${first.id}/messages`, { body: 'Which report is it?' }), 201)
  expect(replied.status).toBe('pending')
  expect(replied.messages).toEqual([expect.objectContaining({ body: 'Which report is it?', fromSupport: true, author: expect.objectContaining({ id: admin.user.id }) })])
  const toOpener = (await mailsTo(t.db, writer.user.email)).filter((m) => m.template === 'support-reply')
  expect(toOpener).toHaveLength(1)
  expect(toOpener[0]?.textBody).toContain('Which report is it?')
  expect(toOpener[0]?.textBody).toContain(`${TEST_ORIGIN}/settings/support/${first.id}`)

  const before = (await mailsTo(t.db, admin.user.email)).length
  t.now.advance(60_000)
  const answered = await body<SupportTicketDetail>(await writer.c.post(`/api/support/tickets/${first.id}/messages`, { body: 'The weekly one.' }), 201)
  expect(answered.status).toBe('open')
  expect(answered.messages.map((m) => [m.body, m.fromSupport])).toEqual([
    ['Which report is it?', true],
    ['The weekly one.', false],
  ])
  const toAssignee = (await mailsTo(t.db, admin.user.email)).slice(before)
  expect(toAssignee).toEqual([expect.objectContaining({ template: 'support-reply', subject: 'Reply on support ticket #1 Cannot export the report' })])
  expect(toAssignee[0]?.textBody).toContain(`/admin/support/${first.id}`)

  // Mine: only the opener's; the user-side detail is the same thread.
  expect((await body<Page>(await writer.c.get('/api/support/tickets'))).items.map((x) => x.number)).toEqual([2, 1])
  expect((await body<SupportTicketDetail>(await writer.c.get(`/api/support/tickets/${first.id}`))).messages).toHaveLength(2)

  // Closing: no more replies.
  const closed = await body<SupportTicketDetail>(await patch(admin.c, `/api/admin/support/tickets/${first.id}`, { status: 'closed' }))
  expect(closed).toMatchObject({ status: 'closed', closedAtUtc: expect.any(String) })
  await expectProblem(await writer.c.post(`/api/support/tickets/${first.id}/messages`, { body: 'One more' }), 409, 'KR_SUPPORT_CLOSED')
  expect((await body<Page>(await admin.c.get('/api/admin/support/tickets?status=closed'))).items.map((x) => x.id)).toEqual([first.id])

  const audit = await auditOf(t.db, { tenantId: tenant.id })
  const actions = audit.map((a) => a.action).filter((a) => a.startsWith('admin.support.'))
  expect(actions).toEqual(['admin.support.opened', 'admin.support.opened', 'admin.support.changed', 'admin.support.replied', 'admin.support.replied', 'admin.support.changed'])
  expect(audit.find((a) => a.action === 'admin.support.changed')).toMatchObject({
    ip: expect.any(String),
    correlationId: expect.any(String),
    data: expect.objectContaining({ assigneeId: { from: null, to: admin.user.id } }),
  })
})

test('paging: 50 a page by default, with after', async () => {
  const { admin, reader } = await organisation(t)
  for (let i = 0; i < 52; i++) await body(await open(reader.c, `Ticket ${i}`), 201)
  const page1 = await body<Page>(await admin.c.get('/api/admin/support/tickets'))
  expect(page1.items).toHaveLength(50)
  const page2 = await body<Page>(await admin.c.get(`/api/admin/support/tickets?after=${page1.nextCursor}`))
  expect(page2.items.map((x) => x.number)).toEqual([2, 1])
  expect(page2.nextCursor).toBeNull()
  const mine = await body<Page>(await reader.c.get('/api/support/tickets?limit=5'))
  expect(mine.items.map((x) => x.number)).toEqual([52, 51, 50, 49, 48])
  await expectProblem(await admin.c.get('/api/admin/support/tickets?limit=201'), 400, 'KR_VALIDATION')
  await expectProblem(await admin.c.get('/api/admin/support/tickets?status=later'), 400, 'KR_VALIDATION')
  await expectProblem(await admin.c.get('/api/admin/support/tickets?after=nonsense'), 400, 'KR_VALIDATION')
})

test('attachments: through the upload session and the one-request form; download for the opener and admins', async () => {
  const { tenant, admin, writer, reader } = await organisation(t)
  const ticket = await body<SupportTicketDetail>(await open(writer.c), 201)
  const png = pngImage(10, 10, 3)
  const viaSession = await body<SupportAttachment>(await uploadAttachment(writer.c, ticket.id, png, 'screen.png', 100), 201)
  expect(viaSession).toMatchObject({ ticketId: ticket.id, fileName: 'screen.png', contentType: 'image/png', sizeBytes: png.length, sha256: sha256Hex(png) })
  // The session says what it made.
  const session = await body<{ state: string; attachmentId: string }>(await writer.c.get(`/api/uploads/${viaSession.id}`))
  expect(session).toMatchObject({ state: 'completed', attachmentId: viaSession.id })
  // Completing again answers the same attachment.
  expect(await body<SupportAttachment>(await writer.c.post(`/api/uploads/${viaSession.id}/complete`))).toEqual(viaSession)

  t.now.advance(60_000)
  const text = new TextEncoder().encode('2026-11-20 error: export timed out\n')
  const viaForm = await body<{ items: SupportAttachment[] }>(await sendForm(writer.c, ticket.id, [{ bytes: text, name: 'log.txt', type: 'text/plain' }]), 201)
  expect(viaForm.items).toEqual([expect.objectContaining({ fileName: 'log.txt', contentType: 'text/plain', sizeBytes: text.length })])

  // A type a ticket does not take: refused (415) through either way, nothing stored.
  const exe = new Uint8Array([0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00])
  await expectProblem(await uploadAttachment(writer.c, ticket.id, exe, 'tool.exe'), 415, 'KR_UPLOAD_TYPE')
  await expectProblem(await sendForm(writer.c, ticket.id, [{ bytes: exe, name: 'tool.exe' }]), 415, 'KR_UPLOAD_TYPE')
  await expectProblem(
    await writer.c.post(`/api/support/tickets/${ticket.id}/uploads`, { fileName: 'big.zip', size: 26 * 1024 * 1024, contentType: 'application/zip' }),
    413,
    'KR_UPLOAD_TOO_LARGE',
  )
  await expectProblem(await writer.c.request(`/api/support/tickets/${ticket.id}/attachments`, { method: 'POST', body: new FormData() }), 400, 'KR_VALIDATION')

  const detail = await body<SupportTicketDetail>(await writer.c.get(`/api/support/tickets/${ticket.id}`))
  expect(detail.attachments.map((a) => a.fileName)).toEqual(['screen.png', 'log.txt'])
  expect(detail.attachmentCount).toBe(2)

  for (const c of [writer.c, admin.c]) {
    const download = await c.get(viaSession.downloadUrl)
    expect(download.status).toBe(200)
    expect(download.headers.get('content-type')).toBe('image/png')
    expect(download.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''screen.png")
    expect(download.headers.get('x-content-type-options')).toBe('nosniff')
    expect(Buffer.from(await download.arrayBuffer()).equals(png)).toBe(true)
  }
  const textDownload = await admin.c.get(viaForm.items[0]!.downloadUrl)
  expect(textDownload.headers.get('content-type')).toBe('text/plain')
  expect(await textDownload.text()).toBe('2026-11-20 error: export timed out\n')

  // Another member sees none of it; an admin may attach too.
  await expectProblem(await reader.c.get(viaSession.downloadUrl), 404, 'KR_NOT_FOUND')
  await expectProblem(await reader.c.post(`/api/support/tickets/${ticket.id}/uploads`, { fileName: 'x.png', size: 10, contentType: 'image/png' }), 404)
  await expectProblem(await sendForm(reader.c, ticket.id, [{ bytes: png, name: 'x.png' }]), 404)
  await expectProblem(await writer.c.get(`/api/support/tickets/${ticket.id}/attachments/${ticket.id}`), 404)
  await body(await uploadAttachment(admin.c, ticket.id, pngImage(4, 4, 9), 'answer.png'), 201)

  const changes = (await auditOf(t.db, { tenantId: tenant.id, action: 'admin.support.changed' })).map((a) => a.data as { attachment?: { fileName: string } })
  expect(changes.map((d) => d.attachment?.fileName)).toEqual(['screen.png', 'log.txt', 'answer.png'])
})

test('another member cannot read someone else’s ticket (404); read-only members open tickets; admins read all only through the admin calls', async () => {
  const { admin, writer, reader } = await organisation(t)
  const mine = await body<SupportTicketDetail>(await open(reader.c, 'Read-only here'), 201)
  expect(mine.openedBy?.id).toBe(reader.user.id)
  await expectProblem(await writer.c.get(`/api/support/tickets/${mine.id}`), 404, 'KR_NOT_FOUND')
  await expectProblem(await writer.c.post(`/api/support/tickets/${mine.id}/messages`, { body: 'Me too' }), 404, 'KR_NOT_FOUND')
  await expectProblem(await admin.c.get(`/api/support/tickets/${mine.id}`), 404, 'KR_NOT_FOUND')
  expect((await body<Page>(await writer.c.get('/api/support/tickets'))).items).toEqual([])
  expect((await body<SupportTicketDetail>(await admin.c.get(`/api/admin/support/tickets/${mine.id}`))).id).toBe(mine.id)
  await expectProblem(await writer.c.get('/api/support/tickets/not-a-uuid'), 404)
})

test('bad input answers field errors, never 500', async () => {
  const { admin, writer } = await organisation(t)
  const bad = await expectProblem(await writer.c.post('/api/support/tickets', { subject: '', body: 'x'.repeat(10_001) }), 400, 'KR_VALIDATION')
  expect(Object.keys(bad.errors ?? {}).sort()).toEqual(['body', 'subject'])
  await expectProblem(await writer.c.post('/api/support/tickets', { subject: 'a\u0000b', body: 'x' }), 400, 'KR_VALIDATION')
  const ticket = await body<SupportTicketDetail>(await open(writer.c), 201)
  await expectProblem(await writer.c.post(`/api/support/tickets/${ticket.id}/messages`, { body: '  ' }), 400, 'KR_VALIDATION')
  await expectProblem(await patch(admin.c, `/api/admin/support/tickets/${ticket.id}`, {}), 400, 'KR_VALIDATION')
  await expectProblem(await patch(admin.c, `/api/admin/support/tickets/${ticket.id}`, { status: 'later' }), 400, 'KR_VALIDATION')
  const notAdmin = await expectProblem(await patch(admin.c, `/api/admin/support/tickets/${ticket.id}`, { assigneeId: writer.user.id }), 422, 'KR_SUPPORT_ASSIGNEE')
  expect(notAdmin.errors?.assigneeId).toBeDefined()
  const unassigned = await body<SupportTicketDetail>(await patch(admin.c, `/api/admin/support/tickets/${ticket.id}`, { assigneeId: null, status: 'resolved' }))
  expect(unassigned).toMatchObject({ assignee: null, status: 'resolved' })
})

test('role matrix: only administrators reach the admin calls (403)', async () => {
  const { writer, reader } = await organisation(t)
  const ticket = await body<SupportTicketDetail>(await open(writer.c), 201)
  for (const member of [writer, reader]) {
    await expectProblem(await member.c.get('/api/admin/support/tickets'), 403, 'KR_FORBIDDEN')
    await expectProblem(await member.c.get('/api/admin/support/assignees'), 403, 'KR_FORBIDDEN')
    await expectProblem(await member.c.get(`/api/admin/support/tickets/${ticket.id}`), 403, 'KR_FORBIDDEN')
    await expectProblem(await patch(member.c, `/api/admin/support/tickets/${ticket.id}`, { status: 'closed' }), 403, 'KR_FORBIDDEN')
    await expectProblem(await member.c.post(`/api/admin/support/tickets/${ticket.id}/messages`, { body: 'Hi' }), 403, 'KR_FORBIDDEN')
  }
})

test('cross-tenant: another organisation’s ids answer 404 everywhere', async () => {
  const a = await organisation(t)
  const b = await organisation(t)
  const ticket = await body<SupportTicketDetail>(await open(a.writer.c), 201)
  const attachment = await body<SupportAttachment>(await uploadAttachment(a.writer.c, ticket.id, pngImage(), 'a.png'), 201)
  for (const c of [b.admin.c, b.writer.c]) {
    await expectProblem(await c.get(`/api/support/tickets/${ticket.id}`), 404, 'KR_NOT_FOUND')
    await expectProblem(await c.post(`/api/support/tickets/${ticket.id}/messages`, { body: 'Hi' }), 404, 'KR_NOT_FOUND')
    await expectProblem(await c.post(`/api/support/tickets/${ticket.id}/uploads`, { fileName: 'x.png', size: 10, contentType: 'image/png' }), 404, 'KR_NOT_FOUND')
    await expectProblem(await sendForm(c, ticket.id, [{ bytes: pngImage(), name: 'x.png' }]), 404, 'KR_NOT_FOUND')
    await expectProblem(await c.get(attachment.downloadUrl), 404, 'KR_NOT_FOUND')
    await expectProblem(await c.get(`/api/uploads/${attachment.id}`), 404, 'KR_NOT_FOUND')
  }
  await expectProblem(await b.admin.c.get(`/api/admin/support/tickets/${ticket.id}`), 404, 'KR_NOT_FOUND')
  await expectProblem(await patch(b.admin.c, `/api/admin/support/tickets/${ticket.id}`, { status: 'closed' }), 404, 'KR_NOT_FOUND')
  await expectProblem(await b.admin.c.post(`/api/admin/support/tickets/${ticket.id}/messages`, { body: 'Hi' }), 404, 'KR_NOT_FOUND')
  expect((await body<Page>(await b.admin.c.get('/api/admin/support/tickets'))).items).toEqual([])
  // Assigning another organisation's administrator is refused.
  await expectProblem(await patch(a.admin.c, `/api/admin/support/tickets/${ticket.id}`, { assigneeId: b.admin.user.id }), 422, 'KR_SUPPORT_ASSIGNEE')
  // Ticket numbers are per organisation.
  expect((await body<SupportTicketDetail>(await open(b.writer.c), 201)).number).toBe(1)
})
