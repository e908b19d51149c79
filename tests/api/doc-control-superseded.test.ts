import { randomBytes } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { transmittalLinkEvents, transmittalLinks } from '#server/db/schema-doc-control'
import { withTenant } from '#server/db/tenancy'
import { createLogger } from '#server/http/logger'
import { deliverQueuedMail } from '#server/jobs/mail-delivery'
import { createMailRouter } from '#server/mail/routing'
import { readLinkToken } from '#server/domain/transmittal-link-token'
import type { DocumentSet, Party, SharedTransmittal, Transmittal } from '~/lib/doc-control/types'
import type { NotificationView } from '#server/domain/notifications/notifications'
import { DEFAULT_NOTIFICATION_PREFERENCES } from '~/lib/settings/notifications'
import { auditOf, client, mailsTo, uniqueEmail, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, TEST_SESSION_SECRET, type TestBackend } from '#tests/helpers/backend'
import { documentProject, newDocument, uploadRevision } from '#tests/helpers/documents'
import { body, organisation, put, signedMember, type Signed } from '#tests/helpers/reporting-a'
import { startSmtpServer, type TestSmtpServer } from '#tests/helpers/smtp'

/**
 * Issue 32's third point (docs/doc-control.md "When a revision you received is superseded"): when
 * a revision sent by transmittal is superseded, each of its recipients is told once: outside
 * contacts by mail (delivered here through a real SMTP server) with their own link, whose page then
 * names the new revision; members in the app and by mail, each by their choices. Nobody else.
 */

let t: TestBackend
let smtp: TestSmtpServer
const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE
const SUPERSEDED = 'revision-superseded'

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-20T09:00:00.000Z' })
  smtp = await startSmtpServer()
})

afterAll(async () => {
  await smtp?.close()
  await t?.close()
})

/** Delivers every queued mail through the test SMTP server, as the outbox job does. */
async function deliverAll(): Promise<void> {
  const router = createMailRouter({
    db: t.db,
    sessionSecret: TEST_SESSION_SECRET,
    instance: { smtpUrl: `smtp://${smtp.user}:${encodeURIComponent(smtp.password)}@${smtp.host}:${smtp.port}`, mailFrom: 'Site Portal <no-reply@portal.test>', mailFileDir: undefined },
    timeouts: { connectionMs: 5_000, greetingMs: 5_000, socketMs: 5_000 },
  })
  try {
    // The outbox's rows are due at the database's time, not the test clock's.
    while ((await deliverQueuedMail(t.db, router, createLogger('silent'), () => new Date(Date.now() + 60_000))).claimed > 0);
  } finally {
    router.close()
  }
}

const pdf = () => randomBytes(48)

async function party(c: TestClient, projectId: string, contacts: Array<{ name: string; email: string }>, members: Signed[] = []): Promise<Party> {
  const made = await body<Party>(await c.post(`/api/projects/${projectId}/parties`, { name: `Firm ${randomBytes(3).toString('hex')}`, role: 'lead-appointed' }), 201)
  for (const contact of contacts) await body(await c.post(`/api/parties/${made.id}/contacts`, { ...contact, company: 'Outside Partners LLP' }), 201)
  if (members.length > 0) await body(await put(c, `/api/parties/${made.id}/members`, { members: members.map((m) => ({ userId: m.user.id, lead: false })) }))
  return made
}

async function send(sender: Signed, projectId: string, revisionIds: string[], to: { partyIds?: string[]; userIds?: string[] }): Promise<Transmittal> {
  const made = await body<Transmittal>(await sender.c.post(`/api/projects/${projectId}/transmittals`, { subject: 'Plans', revisionIds }), 201)
  await body(await put(sender.c, `/api/transmittals/${made.id}/recipients`, { userIds: to.userIds ?? [], partyIds: to.partyIds ?? [] }))
  return body<Transmittal>(await sender.c.post(`/api/transmittals/${made.id}/send`))
}

/** The shared-transmittal path in a mail's text. */
function linkPathIn(text: string): string | undefined {
  for (const match of text.matchAll(/https?:\/\/\S+/g)) {
    const url = new URL(match[0])
    if (url.pathname.startsWith('/shared/transmittals/')) return url.pathname
  }
  return undefined
}

const supersededMails = async (address: string) => (await mailsTo(t.db, address)).filter((m) => m.template === SUPERSEDED)
const supersededNotices = async (c: TestClient) => (await body<{ items: NotificationView[] }>(await c.get('/api/notifications'))).items.filter((n) => n.kind === SUPERSEDED)

test('P02 supersedes P01: the outside contact gets a mail through SMTP whose link opens without a session and names P02; the member is told in the app and by mail; once each', async () => {
  const { admin, writer, reader } = await organisation(t)
  const p = await documentProject(admin.c)
  const email = uniqueEmail('outside')
  const firm = await party(admin.c, p.id, [{ name: 'Olive Outsider', email }], [reader])
  const doc = await newDocument(writer.c, p.id)
  const p01 = await uploadRevision(writer.c, doc.id, pdf(), { code: 'P01', status: 'S2', fileName: 'plan.pdf' })
  const sent = await send(writer, p.id, [p01.id], { partyIds: [firm.id] })
  const firstLink = linkPathIn((await mailsTo(t.db, email))[0]?.textBody ?? '')
  expect(firstLink).toBeDefined()

  // The superseding upload, by someone else than the sender (the admin).
  const p02 = await uploadRevision(admin.c, doc.id, pdf(), { code: 'P02', status: 'S3', fileName: 'plan.pdf' })

  // The contact: one mail, through a real SMTP conversation, with the link they already hold.
  await deliverAll()
  const mail = await smtp.waitFor((m) => m.to.includes(email) && m.subject.startsWith('Superseded'))
  expect(mail.subject).toBe(`Superseded: ${doc.number} P01 is replaced by P02`)
  expect(mail.text).toContain(`${doc.number} P01`)
  expect(mail.text).toContain(`transmittal ${sent.number}`)
  expect(mail.text).toContain('P02 is not part of transmittal')
  const link = linkPathIn(mail.text)
  expect(link).toBe(firstLink)
  expect(mail.html).toContain(`href="${t.config.publicUrl}${link}"`)

  // The link works without a session and says what replaced what was sent; the file sent is still the one sent.
  const anon = client(t)
  const page = await body<SharedTransmittal>(await anon.get(`/api${link}`))
  expect(page.revisions).toEqual([
    expect.objectContaining({ revisionId: p01.id, code: 'P01', superseded: true, supersededAt: t.now().toISOString(), currentRevision: { code: 'P02', status: 'S3', issuedAt: t.now().toISOString() } }),
  ])
  expect((await anon.get(page.revisions[0]?.downloadUrl ?? '')).status).toBe(200)
  // What replaced it is named, not reachable: P02 was not sent with this transmittal.
  expect((await anon.get(`/api${link}/revisions/${p02.id}/file`)).status).toBe(404)

  // The member: in the app (linking to the document's page) and by mail.
  expect(await supersededNotices(reader.c)).toEqual([expect.objectContaining({ title: `${doc.number} P01 is superseded by P02`, link: `/documents/${doc.id}` })])
  const memberMails = await supersededMails(reader.user.email)
  expect(memberMails).toHaveLength(1)
  expect(memberMails[0]?.textBody).toContain(`${t.config.publicUrl}/documents/${doc.id}`)
  expect(memberMails[0]?.textBody).not.toContain('/shared/transmittals/')
  // Whoever superseded it, and the sender (no recipient), are not told.
  expect(await supersededNotices(admin.c)).toEqual([])
  expect(await supersededNotices(writer.c)).toEqual([])
  expect(await supersededMails(writer.user.email)).toEqual([])

  // The audit says who was told; the contact's link records the notice.
  const issued = (await auditOf(t.db, { action: 'documents.revision.issued', tenantId: admin.tenant.id })).map((a) => a.data as { code?: string; told?: unknown })
  expect(issued.find((d) => d.code === 'P02')?.told).toEqual({ members: 1, contacts: 1 })
  const linkId = sent.outsideRecipients[0]?.id ?? ''
  const events = await withTenant(t.db, admin.tenant.id, (tx) =>
    tx
      .select({ kind: transmittalLinkEvents.kind, revisionId: transmittalLinkEvents.revisionId })
      .from(transmittalLinkEvents)
      .where(and(eq(transmittalLinkEvents.tenantId, admin.tenant.id), eq(transmittalLinkEvents.linkId, linkId), eq(transmittalLinkEvents.kind, 'superseded'))),
  )
  expect(events).toEqual([{ kind: 'superseded', revisionId: p01.id }])
  // The sender sees who was told, and when.
  const tracked = await body<Transmittal>(await writer.c.get(`/api/transmittals/${sent.id}`))
  expect(tracked.outsideRecipients[0]?.supersededNotices).toEqual([{ revisionId: p01.id, at: t.now().toISOString() }])

  // Once: P03 supersedes P02, which nobody received; P01's recipients hear nothing more.
  await uploadRevision(admin.c, doc.id, pdf(), { code: 'P03', status: 'S3', fileName: 'plan.pdf' })
  expect(await supersededMails(email)).toHaveLength(1)
  expect(await supersededMails(reader.user.email)).toHaveLength(1)
  expect(await supersededNotices(reader.c)).toHaveLength(1)
  // The page names the document's current revision now.
  expect((await body<SharedTransmittal>(await anon.get(`/api${link}`))).revisions[0]?.currentRevision?.code).toBe('P03')
})

test('someone who received the revision in two transmittals is told once; a later transmittal’s link is the one mailed', async () => {
  const { admin, writer, reader } = await organisation(t)
  const p = await documentProject(admin.c)
  const email = uniqueEmail('twice')
  const one = await party(admin.c, p.id, [{ name: 'Olive Outsider', email }])
  const two = await party(admin.c, p.id, [{ name: 'Olive O.', email }])
  const doc = await newDocument(writer.c, p.id)
  const p01 = await uploadRevision(writer.c, doc.id, pdf(), { code: 'P01', status: 'S2' })
  await send(writer, p.id, [p01.id], { partyIds: [one.id], userIds: [reader.user.id] })
  t.now.advance(MINUTE)
  const later = await send(writer, p.id, [p01.id], { partyIds: [two.id], userIds: [reader.user.id] })
  t.now.advance(MINUTE)
  await uploadRevision(writer.c, doc.id, pdf(), { code: 'P02', status: 'S2' })
  t.now.reset()

  const mails = await supersededMails(email)
  expect(mails).toHaveLength(1)
  const token = linkPathIn(mails[0]?.textBody ?? '')?.split('/').at(-1) ?? ''
  expect(readLinkToken(t.config.sessionSecret, token)?.linkId).toBe(later.outsideRecipients[0]?.id)
  expect(mails[0]?.textBody).toContain(`transmittal ${later.number}`)
  expect(await supersededNotices(reader.c)).toHaveLength(1)
  expect(await supersededMails(reader.user.email)).toHaveLength(1)
})

test('nobody else is told: another document’s recipients, a draft’s, a revoked link’s, another organisation’s', async () => {
  const { admin, writer } = await organisation(t)
  const p = await documentProject(admin.c)
  const told = uniqueEmail('told')
  const otherDoc = uniqueEmail('other-doc')
  const drafted = uniqueEmail('drafted')
  const revoked = uniqueEmail('revoked')
  const doc = await newDocument(writer.c, p.id)
  const second = await newDocument(writer.c, p.id)
  const p01 = await uploadRevision(writer.c, doc.id, pdf(), { code: 'P01', status: 'S2' })
  const secondP01 = await uploadRevision(writer.c, second.id, pdf(), { code: 'P01', status: 'S2' })
  await send(writer, p.id, [p01.id], { partyIds: [(await party(admin.c, p.id, [{ name: 'Told', email: told }])).id] })
  await send(writer, p.id, [secondP01.id], { partyIds: [(await party(admin.c, p.id, [{ name: 'Other document', email: otherDoc }])).id] })
  const draft = await body<Transmittal>(await writer.c.post(`/api/projects/${p.id}/transmittals`, { subject: 'Not sent', revisionIds: [p01.id] }), 201)
  await body(await put(writer.c, `/api/transmittals/${draft.id}/recipients`, { userIds: [], partyIds: [(await party(admin.c, p.id, [{ name: 'Drafted', email: drafted }])).id] }))
  const withdrawn = await send(writer, p.id, [p01.id], { partyIds: [(await party(admin.c, p.id, [{ name: 'Revoked', email: revoked }])).id] })
  await body(await writer.c.post(`/api/transmittals/${withdrawn.id}/links/${withdrawn.outsideRecipients[0]?.id}/revoke`))

  // Another organisation sends its own document to the same address, and supersedes nothing.
  const elsewhere = await signedMember(t, 'admin')
  const theirProject = await documentProject(elsewhere.c)
  const theirDoc = await newDocument(elsewhere.c, theirProject.id)
  const theirP01 = await uploadRevision(elsewhere.c, theirDoc.id, pdf(), { code: 'P01', status: 'S2' })
  const theirs = await send(elsewhere, theirProject.id, [theirP01.id], { partyIds: [(await party(elsewhere.c, theirProject.id, [{ name: 'Told', email: told }])).id] })

  await uploadRevision(writer.c, doc.id, pdf(), { code: 'P02', status: 'S2' })
  const mails = await supersededMails(told)
  expect(mails).toHaveLength(1)
  // The mail is ours, and its link is our link (not the other organisation's).
  expect(mails[0]?.tenantId).toBe(admin.tenant.id)
  const payload = readLinkToken(t.config.sessionSecret, linkPathIn(mails[0]?.textBody ?? '')?.split('/').at(-1) ?? '')
  expect(payload?.tenantId).toBe(admin.tenant.id)
  expect(payload?.linkId).not.toBe(theirs.outsideRecipients[0]?.id)
  for (const address of [otherDoc, drafted, revoked]) expect(await supersededMails(address), address).toEqual([])
  // The other organisation's recipients of their own revision hear nothing either when ours is superseded.
  expect(await supersededNotices(elsewhere.c)).toEqual([])
})

test('each member’s choices decide: in-app off gets the mail alone, transmittal mail off the notification alone; one who may not view the document is sent to the transmittal', async () => {
  const { tenant, admin, writer } = await organisation(t)
  const mailOnly = await signedMember(t, 'read-write', tenant)
  const appOnly = await signedMember(t, 'read-write', tenant)
  const blind = await signedMember(t, 'read-only', tenant)
  await body(await put(mailOnly.c, '/api/user/notification-preferences/', { ...DEFAULT_NOTIFICATION_PREFERENCES, inApp: { ...DEFAULT_NOTIFICATION_PREFERENCES.inApp, superseded: false } }))
  await body(await put(appOnly.c, '/api/user/notification-preferences/', { ...DEFAULT_NOTIFICATION_PREFERENCES, transmittal: false }))
  const p = await documentProject(admin.c)
  const doc = await newDocument(writer.c, p.id)
  await body(await put(admin.c, `/api/documents/${doc.id}/permissions`, { entries: [{ subjectKind: 'user', subject: blind.user.id, level: 'none' }] }))
  const p01 = await uploadRevision(writer.c, doc.id, pdf(), { code: 'P01', status: 'S2' })
  const sent = await send(writer, p.id, [p01.id], { userIds: [mailOnly.user.id, appOnly.user.id, blind.user.id] })
  await uploadRevision(writer.c, doc.id, pdf(), { code: 'P02', status: 'S2' })

  expect(await supersededNotices(mailOnly.c)).toEqual([])
  expect(await supersededMails(mailOnly.user.email)).toHaveLength(1)
  expect(await supersededNotices(appOnly.c)).toHaveLength(1)
  expect(await supersededMails(appOnly.user.email)).toEqual([])
  // The document's page would be 404 to them: they are sent to the transmittal they received, which they may read.
  const transmittalPath = `/doc-control/transmittals/${sent.id}?projectId=${p.id}`
  expect(await supersededNotices(blind.c)).toEqual([expect.objectContaining({ link: transmittalPath })])
  expect((await supersededMails(blind.user.email))[0]?.textBody).toContain(`${t.config.publicUrl}${transmittalPath}`)
  expect((await blind.c.get(`/api/transmittals/${sent.id}`)).status).toBe(200)
  expect((await blind.c.get(`/api/documents/${doc.id}`)).status).toBe(404)
})

test('publishing a set issues C01 from P01: P01’s recipients are told; a contact whose link expired is told without one', async () => {
  const { admin, writer } = await organisation(t)
  const p = await documentProject(admin.c)
  const live = uniqueEmail('live')
  const expired = uniqueEmail('expired')
  const doc = await newDocument(writer.c, p.id)
  const p01 = await uploadRevision(writer.c, doc.id, pdf(), { code: 'P01', status: 'S2' })
  const early = await send(writer, p.id, [p01.id], { partyIds: [(await party(admin.c, p.id, [{ name: 'Early', email: expired }])).id] })
  await send(writer, p.id, [p01.id], { partyIds: [(await party(admin.c, p.id, [{ name: 'Later', email: live }])).id] })
  // The early link's 30 days are over (set in the database: a month on the test clock would end the sessions too).
  await withTenant(t.db, admin.tenant.id, (tx) =>
    tx
      .update(transmittalLinks)
      .set({ expiresAt: new Date(t.now().getTime() - DAY) })
      .where(and(eq(transmittalLinks.tenantId, admin.tenant.id), eq(transmittalLinks.id, early.outsideRecipients[0]?.id ?? ''))),
  )
  const set = await body<DocumentSet>(await writer.c.post(`/api/projects/${p.id}/sets`, { name: `Issue ${randomBytes(2).toString('hex')}`, revisionIds: [p01.id] }), 201)
  await body(await writer.c.post(`/api/sets/${set.id}/publish`, { message: 'For construction.', purpose: 'for-construction' }))

  const [liveMail] = await supersededMails(live)
  expect(liveMail?.subject).toBe(`Superseded: ${doc.number} P01 is replaced by C01`)
  const link = linkPathIn(liveMail?.textBody ?? '')
  expect((await body<SharedTransmittal>(await client(t).get(`/api${link}`))).revisions[0]?.currentRevision).toMatchObject({ code: 'C01', status: 'A1' })
  const [expiredMail] = await supersededMails(expired)
  expect(linkPathIn(expiredMail?.textBody ?? '')).toBeUndefined()
  expect(expiredMail?.textBody).toContain('has expired')
})
