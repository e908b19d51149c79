import { randomBytes } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { transmittalLinkEvents } from '#server/db/schema-doc-control'
import { withTenant } from '#server/db/tenancy'
import { readLinkToken, signLinkToken } from '#server/domain/transmittal-link-token'
import { runPackagingPass } from '#server/jobs/transmittal-packaging'
import { createLogger } from '#server/http/logger'
import { blobStoreFor } from '#server/storage/blob-stores'
import type { Party, SharedTransmittal, Transmittal } from '~/lib/doc-control/types'
import { auditOf, client, expectProblem, mailsTo, uniqueEmail, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { documentProject, newDocument, uploadRevision } from '#tests/helpers/documents'
import { body, organisation, put, signedMember, type Signed } from '#tests/helpers/reporting-a'

/**
 * Issue 32 (docs/doc-control.md "Outside contacts", decision 024): outside contacts in parties, who
 * take no seat; transmittals that reach them by a signed, expiring, revocable link; what the link
 * reaches (its transmittal alone) and what it records (every view and download, once each).
 */

let t: TestBackend
const DAY = 24 * 60 * 60 * 1000

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-20T09:00:00.000Z' })
})

afterAll(async () => {
  await t.close()
})

async function party(c: TestClient, projectId: string, name: string): Promise<Party> {
  return body<Party>(await c.post(`/api/projects/${projectId}/parties`, { name, role: 'lead-appointed' }), 201)
}

function addContact(c: TestClient, partyId: string, json: Record<string, unknown>): Promise<Response> {
  return c.post(`/api/parties/${partyId}/contacts`, json)
}

/** The path of the link in the last mail to `address` (the public page's address). */
async function linkPathOf(address: string): Promise<string> {
  const mails = await mailsTo(t.db, address)
  const last = mails.at(-1)
  if (!last) throw new Error(`no mail to ${address}`)
  for (const match of last.textBody.matchAll(/https?:\/\/\S+/g)) {
    const url = new URL(match[0])
    if (url.pathname.startsWith('/shared/transmittals/')) return url.pathname
  }
  throw new Error(`no link in: ${last.textBody}`)
}

const api = (linkPath: string) => `/api${linkPath}`

/** A transmittal of a fresh revision sent by `sender` to a party holding one outside contact. */
async function sentToOutside(sender: Signed, admin: Signed, options: { email?: string; members?: Signed[] } = {}) {
  const p = await documentProject(admin.c)
  const arc = await party(admin.c, p.id, `Architects ${randomBytes(3).toString('hex')}`)
  const email = options.email ?? uniqueEmail('outside')
  await body<Party>(await addContact(admin.c, arc.id, { name: 'Olive Outsider', company: 'Outside Partners LLP', email }), 201)
  if (options.members) await body(await put(admin.c, `/api/parties/${arc.id}/members`, { members: options.members.map((m) => ({ userId: m.user.id, lead: false })) }))
  const doc = await newDocument(sender.c, p.id)
  const bytes = randomBytes(64)
  const revision = await uploadRevision(sender.c, doc.id, bytes, { code: 'P01', status: 'S2', fileName: 'ga-plan.pdf' })
  const made = await body<Transmittal>(await sender.c.post(`/api/projects/${p.id}/transmittals`, { subject: 'GA plans', revisionIds: [revision.id] }), 201)
  const drafted = await body<Transmittal>(await put(sender.c, `/api/transmittals/${made.id}/recipients`, { userIds: [], partyIds: [arc.id] }))
  const transmittal = await body<Transmittal>(await sender.c.post(`/api/transmittals/${made.id}/send`))
  return { p, arc, email, revision, bytes, drafted, transmittal, linkPath: await linkPathOf(email) }
}

async function eventsOf(tenantId: string, linkId: string) {
  return withTenant(t.db, tenantId, (tx) =>
    tx
      .select({ kind: transmittalLinkEvents.kind, revisionId: transmittalLinkEvents.revisionId })
      .from(transmittalLinkEvents)
      .where(and(eq(transmittalLinkEvents.tenantId, tenantId), eq(transmittalLinkEvents.linkId, linkId))),
  )
}

test('a manager adds and removes outside contacts of a party; others may not; they take no seat', async () => {
  const { admin, writer, reader } = await organisation(t)
  const p = await documentProject(admin.c)
  const arc = await party(admin.c, p.id, 'Riverside Architects')
  const seatsBefore = (await body<{ seats: unknown }>(await admin.c.get('/api/entitlements/me'))).seats

  const invalid = await expectProblem(await addContact(admin.c, arc.id, { name: '', email: 'not-an-address' }), 400)
  expect(Object.keys(invalid.errors ?? {}).sort()).toEqual(['email', 'name'])
  const added = await body<Party>(await addContact(admin.c, arc.id, { name: 'Olive Outsider', company: 'Outside Partners LLP', email: 'Olive@Outside.example' }), 201)
  expect(added.contacts).toEqual([{ id: expect.any(String), name: 'Olive Outsider', company: 'Outside Partners LLP', email: 'olive@outside.example' }])
  expect(added.members).toEqual([])
  // The same address twice in one party is a field error.
  const twice = await expectProblem(await addContact(admin.c, arc.id, { name: 'Olive again', email: 'OLIVE@outside.example' }), 400)
  expect(twice.errors?.email).toBeDefined()

  // Everyone who reaches the project reads them; only managers change them.
  const read = await body<{ items: Party[] }>(await reader.c.get(`/api/projects/${p.id}/parties`))
  expect(read.items[0]?.contacts.map((c) => c.email)).toEqual(['olive@outside.example'])
  await expectProblem(await addContact(writer.c, arc.id, { name: 'X', email: 'x@outside.example' }), 403)
  await expectProblem(await addContact(reader.c, arc.id, { name: 'X', email: 'x@outside.example' }), 403)
  const contactId = added.contacts[0]?.id ?? ''
  await expectProblem(await writer.c.delete(`/api/parties/${arc.id}/contacts/${contactId}`), 403)

  // No seat taken: the organisation's seats read the same.
  expect((await body<{ seats: unknown }>(await admin.c.get('/api/entitlements/me'))).seats).toEqual(seatsBefore)

  const removed = await body<Party>(await admin.c.delete(`/api/parties/${arc.id}/contacts/${contactId}`))
  expect(removed.contacts).toEqual([])
  await expectProblem(await admin.c.delete(`/api/parties/${arc.id}/contacts/${contactId}`), 404)
  expect((await auditOf(t.db, { action: 'doc-control.party.changed', tenantId: admin.tenant.id })).map((a) => (a.data as { change?: string }).change)).toEqual(
    expect.arrayContaining(['contact-added', 'contact-removed']),
  )
})

test('another organisation’s party and contact are 404 to every contact call', async () => {
  const { admin } = await organisation(t)
  const stranger = await signedMember(t, 'admin')
  const p = await documentProject(admin.c)
  const arc = await party(admin.c, p.id, 'Walled Architects')
  const withContact = await body<Party>(await addContact(admin.c, arc.id, { name: 'Olive', email: uniqueEmail('wall') }), 201)
  await expectProblem(await addContact(stranger.c, arc.id, { name: 'X', email: 'x@outside.example' }), 404)
  await expectProblem(await stranger.c.delete(`/api/parties/${arc.id}/contacts/${withContact.contacts[0]?.id}`), 404)
  const theirs = await documentProject(stranger.c)
  const theirParty = await party(stranger.c, theirs.id, 'Their party')
  // A contact id of another party (or organisation) under one's own party is 404 too.
  await expectProblem(await admin.c.delete(`/api/parties/${theirParty.id}/contacts/${withContact.contacts[0]?.id}`), 404)
  await expectProblem(await admin.c.delete(`/api/parties/${arc.id}/contacts/not-a-uuid`), 404)
})

test('sending to a party mails each outside contact a link; the link shows that transmittal alone, records each view and download once, and takes a receipt and a reply', async () => {
  const { admin, writer } = await organisation(t)
  const sent = await sentToOutside(writer, admin)
  expect(sent.drafted.outsideRecipients).toMatchObject([{ name: 'Olive Outsider', status: 'pending', expiresAt: null }])
  const [outside] = sent.transmittal.outsideRecipients
  expect(outside).toMatchObject({ status: 'sent', views: 0, downloads: 0, revokedAt: null })
  expect(Date.parse(outside?.expiresAt ?? '') - t.now().getTime()).toBe(30 * DAY)
  const [mail] = await mailsTo(t.db, sent.email)
  expect(mail).toMatchObject({ template: 'transmittal-sent' })
  expect(mail?.textBody).toContain(`${t.config.publicUrl}${sent.linkPath}`)

  // No session at all: a fresh client.
  const anon = client(t)
  const page = await body<SharedTransmittal>(await anon.get(api(sent.linkPath)))
  expect(page).toMatchObject({
    number: sent.transmittal.number,
    subject: 'GA plans',
    recipient: { name: 'Olive Outsider', company: 'Outside Partners LLP', status: 'opened', acknowledgedAt: null },
    revisions: [{ revisionId: sent.revision.id, code: 'P01', fileName: 'ga-plan.pdf', superseded: false }],
    package: null,
  })
  const file = await anon.get(page.revisions[0]?.downloadUrl ?? '')
  expect(file.status).toBe(200)
  expect(Buffer.from(await file.arrayBuffer()).equals(Buffer.from(sent.bytes))).toBe(true)

  // The package: started through the link, made by the job, downloaded through the link.
  expect((await body<SharedTransmittal>(await anon.post(`${api(sent.linkPath)}/package`), 202)).package?.status).toBe('queued')
  await runPackagingPass({ db: t.db, store: blobStoreFor(t.config), logger: createLogger('silent'), now: t.now }, [admin.tenant.id])
  const ready = await body<SharedTransmittal>(await anon.get(api(sent.linkPath)))
  expect(ready.package).toEqual({ status: 'ready', percent: 100, downloadUrl: `${api(sent.linkPath)}/package/download` })
  const zip = await anon.get(ready.package?.downloadUrl ?? '')
  expect(zip.status).toBe(200)
  expect(zip.headers.get('content-type')).toBe('application/zip')
  await zip.arrayBuffer()

  const acknowledged = await body<SharedTransmittal>(await anon.post(`${api(sent.linkPath)}/acknowledge`))
  expect(acknowledged.recipient).toMatchObject({ status: 'acknowledged', acknowledgedAt: t.now().toISOString() })
  await expectProblem(await anon.post(`${api(sent.linkPath)}/acknowledge`), 409, 'KR_TRANSMITTAL_STATE')
  await expectProblem(await anon.post(`${api(sent.linkPath)}/respond`, { response: '' }), 400)
  const replied = await body<SharedTransmittal>(await anon.post(`${api(sent.linkPath)}/respond`, { response: 'Received; comments to follow.' }))
  expect(replied.recipient).toMatchObject({ status: 'responded', response: 'Received; comments to follow.' })

  // The sender sees it all per recipient, each view and download counted once.
  const seen = await body<Transmittal>(await writer.c.get(`/api/transmittals/${sent.transmittal.id}`))
  expect(seen.outsideRecipients[0]).toMatchObject({
    status: 'responded',
    views: 2,
    downloads: 2,
    openedAt: t.now().toISOString(),
    downloadedAt: t.now().toISOString(),
    acknowledgedAt: t.now().toISOString(),
    response: 'Received; comments to follow.',
  })
  // Every recipient answered: the transmittal is acknowledged.
  expect(seen.status).toBe('acknowledged')
  const events = await eventsOf(admin.tenant.id, outside?.id ?? '')
  expect(events.map((e) => e.kind).sort()).toEqual(['acknowledged', 'file', 'package', 'responded', 'view', 'view'])
  expect(events.find((e) => e.kind === 'file')?.revisionId).toBe(sent.revision.id)
  // A resumed range is the same download, not another.
  await (await anon.get(ready.package?.downloadUrl ?? '', { headers: { range: 'bytes=10-' } })).arrayBuffer()
  expect((await eventsOf(admin.tenant.id, outside?.id ?? '')).filter((e) => e.kind === 'package')).toHaveLength(1)
  // Someone else's view of the transmittal (a member reading it) does not see the outside tracking.
  const member = await signedMember(t, 'admin', admin.tenant)
  expect((await body<Transmittal>(await member.c.get(`/api/transmittals/${sent.transmittal.id}`))).outsideRecipients).toHaveLength(1)
})

test('the link’s walls: another transmittal’s revision, a tampered signature or payload, an expired and a revoked link all answer 404', async () => {
  const { admin, writer, reader } = await organisation(t)
  const one = await sentToOutside(writer, admin)
  const two = await sentToOutside(writer, admin)
  const anon = client(t)
  const token = one.linkPath.split('/').at(-1) ?? ''

  // Another transmittal's revision through this link.
  await expectProblem(await anon.get(`${api(one.linkPath)}/revisions/${two.revision.id}/file`), 404)
  // A tampered signature, and a payload naming the other link re-signed with the wrong key.
  const [payload, signature] = token.split('.')
  const flipped = `${payload}.${signature?.startsWith('A') ? 'B' : 'A'}${signature?.slice(1)}`
  await expectProblem(await anon.get(api(`/shared/transmittals/${flipped}`)), 404)
  const decoded = readLinkToken(t.config.sessionSecret, token)
  const otherId = two.transmittal.outsideRecipients[0]?.id ?? ''
  const forged = signLinkToken('not-the-server-secret', { tenantId: decoded?.tenantId ?? '', linkId: otherId, expiresAt: decoded?.expiresAt ?? 0 })
  await expectProblem(await anon.get(api(`/shared/transmittals/${forged}`)), 404)
  const swapped = `${forged.split('.')[0]}.${signature}`
  await expectProblem(await anon.get(api(`/shared/transmittals/${swapped}`)), 404)
  await expectProblem(await anon.get(api('/shared/transmittals/garbage')), 404)
  // The link reaches nothing of the organisation's API without a session.
  await expectProblem(await anon.get(`/api/transmittals/${one.transmittal.id}`), 401)

  // Revoked: only the sender (or an admin) revokes; then the link and its files are 404.
  const linkId = one.transmittal.outsideRecipients[0]?.id ?? ''
  await expectProblem(await reader.c.post(`/api/transmittals/${one.transmittal.id}/links/${linkId}/revoke`), 403)
  await expectProblem(await writer.c.post(`/api/transmittals/${two.transmittal.id}/links/${linkId}/revoke`), 404)
  const stranger = await signedMember(t, 'admin')
  await expectProblem(await stranger.c.post(`/api/transmittals/${one.transmittal.id}/links/${linkId}/revoke`), 404)
  const revoked = await body<Transmittal>(await writer.c.post(`/api/transmittals/${one.transmittal.id}/links/${linkId}/revoke`))
  expect(revoked.outsideRecipients[0]?.revokedAt).toBe(t.now().toISOString())
  await expectProblem(await anon.get(api(one.linkPath)), 404)
  await expectProblem(await anon.get(`${api(one.linkPath)}/revisions/${one.revision.id}/file`), 404)
  await expectProblem(await anon.post(`${api(one.linkPath)}/acknowledge`), 404)

  // Expired: the second link works on its last day and not after.
  t.now.advance(30 * DAY - 1000)
  await body<SharedTransmittal>(await anon.get(api(two.linkPath)))
  t.now.advance(2000)
  await expectProblem(await anon.get(api(two.linkPath)), 404)
  await expectProblem(await anon.get(`${api(two.linkPath)}/revisions/${two.revision.id}/file`), 404)
  t.now.reset()
})

test('a transmittal to a party with members and outside contacts is acknowledged once both have; a member lacking the right cannot revoke', async () => {
  const { admin, writer, reader } = await organisation(t)
  const sent = await sentToOutside(writer, admin, { members: [reader] })
  expect(sent.transmittal.recipients.map((r) => r.userId)).toEqual([reader.user.id])
  const anon = client(t)
  await body(await anon.post(`${api(sent.linkPath)}/acknowledge`))
  expect((await body<Transmittal>(await writer.c.get(`/api/transmittals/${sent.transmittal.id}`))).status).toBe('sent')
  await body(await reader.c.post(`/api/transmittals/${sent.transmittal.id}/acknowledge`))
  expect((await body<Transmittal>(await writer.c.get(`/api/transmittals/${sent.transmittal.id}`))).status).toBe('acknowledged')
  // The recipient reads the transmittal but may not revoke the contact's link, nor see their tracking.
  expect((await body<Transmittal>(await reader.c.get(`/api/transmittals/${sent.transmittal.id}`))).outsideRecipients).toEqual([])
  await expectProblem(await reader.c.post(`/api/transmittals/${sent.transmittal.id}/links/${sent.transmittal.outsideRecipients[0]?.id}/revoke`), 403)
})
