import { and, desc, eq, inArray, isNotNull, isNull, ne } from 'drizzle-orm'
import { memberships, users } from '#server/db/schema'
import { transmittalLinkEvents, transmittalLinks, transmittalRecipients, transmittalRevisions, transmittals } from '#server/db/schema-doc-control'
import { documentRevisions } from '#server/db/schema-documents'
import { enqueueMail } from '#server/domain/mail'
import { notify } from '#server/domain/notifications/notifications'
import { wantsMail } from '#server/domain/settings/notification-preferences'
import type { DomainContext } from '#server/domain/tenancy/context'
import type { RoleKey } from '#server/domain/tenancy/roles'
import { sharedUrl, type OutsideLinks } from '#server/domain/transmittal-link-token'
import { decide, entriesFor } from './access'
import { documentPlace } from './places'

/**
 * A revision superseded by a newer one of its document (an upload, or the C revision a review or a
 * set issues), and everyone who received it told once (issue 32, docs/doc-control.md "When a
 * revision you received is superseded"): each person a sent transmittal gave it to, in the app
 * (revision superseded) and by the `revision-superseded` mail, each by their own choices; each
 * outside contact whose link was not revoked, by mail with the link they already hold (signed
 * again: the same row signs the same token), whose page then says which revision replaced it.
 *
 * Once: the revision is marked superseded only while it is not (the one guarded UPDATE), and only
 * the call that marked it tells; a person who received it in several transmittals is told once, an
 * outside address once (its link records the notice, `transmittal_link_events` kind `superseded`).
 * Called in the transaction that issues the new revision, so a rollback takes the notices with it.
 */

export type Supersede = {
  document: { id: string; projectId: string; folderId: string | null; number: string; title: string }
  from: { id: string; code: string }
  to: { id: string; code: string; status: string }
}

/** Who was told (the audit of the revision's issue keeps it): people of the organisation, and outside addresses. */
export type Told = { members: number; contacts: number }

export async function supersedeRevision(ctx: DomainContext, links: OutsideLinks, change: Supersede): Promise<Told> {
  const marked = await ctx.tx
    .update(documentRevisions)
    .set({ supersededAt: ctx.now, supersededById: change.to.id })
    .where(and(eq(documentRevisions.tenantId, ctx.actor.tenantId), eq(documentRevisions.id, change.from.id), isNull(documentRevisions.supersededAt)))
    .returning({ id: documentRevisions.id })
  if (marked.length === 0) return { members: 0, contacts: 0 }
  const sent = await sentWith(ctx, change.from.id)
  if (sent.length === 0) return { members: 0, contacts: 0 }
  const [by] = await ctx.tx.select({ displayName: users.displayName }).from(users).where(eq(users.id, ctx.actor.userId)).limit(1)
  const common = {
    publicUrl: links.publicUrl,
    documentNumber: change.document.number,
    documentTitle: change.document.title,
    oldCode: change.from.code,
    newCode: change.to.code,
    newStatus: change.to.status,
    supersededBy: by?.displayName ?? 'Someone',
  }
  return {
    members: await tellMembers(ctx, links, change, sent, common),
    contacts: await tellContacts(ctx, links, change, sent, common),
  }
}

type Sent = { id: string; number: string; projectId: string; sentAt: Date; senderName: string }
type Common = Record<string, string>

/** The sent transmittals that gave this revision out, newest first. */
async function sentWith(ctx: DomainContext, revisionId: string): Promise<Sent[]> {
  const rows = await ctx.tx
    .select({ id: transmittals.id, number: transmittals.number, projectId: transmittals.projectId, sentAt: transmittals.sentAt, senderName: users.displayName })
    .from(transmittalRevisions)
    .innerJoin(transmittals, and(eq(transmittals.tenantId, transmittalRevisions.tenantId), eq(transmittals.id, transmittalRevisions.transmittalId)))
    .leftJoin(users, eq(users.id, transmittals.sentBy))
    .where(
      and(
        eq(transmittalRevisions.tenantId, ctx.actor.tenantId),
        eq(transmittalRevisions.revisionId, revisionId),
        isNotNull(transmittals.sentAt),
        ne(transmittals.status, 'draft'),
      ),
    )
    .orderBy(desc(transmittals.sentAt), desc(transmittals.id))
  return rows.map((r) => ({ id: r.id, number: r.number, projectId: r.projectId, sentAt: r.sentAt ?? ctx.now, senderName: r.senderName ?? 'the sender' }))
}

const transmittalPath = (t: Sent) => `/doc-control/transmittals/${t.id}?projectId=${t.projectId}`

/**
 * The members who received it (active ones, not whoever superseded it): in the app by their
 * "revision superseded" choice, by mail by their transmittal mail choice. The link is the
 * document's page for whoever may view the document, else the transmittal they received it in
 * (which they read whatever their document permissions).
 */
async function tellMembers(ctx: DomainContext, links: OutsideLinks, change: Supersede, sent: Sent[], common: Common): Promise<number> {
  const received = await ctx.tx
    .select({ userId: transmittalRecipients.userId, transmittalId: transmittalRecipients.transmittalId })
    .from(transmittalRecipients)
    .where(
      and(
        eq(transmittalRecipients.tenantId, ctx.actor.tenantId),
        inArray(
          transmittalRecipients.transmittalId,
          sent.map((t) => t.id),
        ),
        ne(transmittalRecipients.userId, ctx.actor.userId),
      ),
    )
  if (received.length === 0) return 0
  const order = new Map(sent.map((t, i) => [t.id, i]))
  // Each person's newest transmittal holding the revision.
  const latest = new Map<string, Sent>()
  for (const r of received) {
    const t = sent[order.get(r.transmittalId) ?? 0]
    const had = latest.get(r.userId)
    if (t && (!had || (order.get(t.id) ?? 0) < (order.get(had.id) ?? 0))) latest.set(r.userId, t)
  }
  const people = await ctx.tx
    .select({ id: users.id, email: users.email, displayName: users.displayName, roleKey: memberships.roleKey })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.tenantId, ctx.actor.tenantId), inArray(memberships.userId, [...latest.keys()]), eq(memberships.status, 'active'), eq(users.status, 'active')))
  if (people.length === 0) return 0
  const place = await documentPlace(ctx, change.document)
  const entries = await entriesFor(ctx, { userIds: people.map((p) => p.id), roleKeys: [...new Set(people.map((p) => p.roleKey))] }, change.document.projectId)
  const event = { tenantId: ctx.actor.tenantId, actorUserId: ctx.actor.userId, now: ctx.now }
  const title = `${change.document.number} ${change.from.code} is superseded by ${change.to.code}`
  const told = new Set<string>()
  for (const person of people) {
    const transmittal = latest.get(person.id)
    if (!transmittal) continue
    const actor = { tenantId: ctx.actor.tenantId, userId: person.id, roleKey: person.roleKey as RoleKey }
    const own = entries.filter((e) => (e.subjectKind === 'user' && e.subject === person.id) || (e.subjectKind === 'role' && e.subject === person.roleKey))
    const mayView = decide(actor, own, place) !== 'none'
    const link = mayView ? `/documents/${change.document.id}` : transmittalPath(transmittal)
    for (const id of await notify(ctx.tx, event, [person.id], { kind: 'revision-superseded', title, link })) told.add(id)
    if (!(await wantsMail(ctx.tx, ctx.actor.tenantId, person.id, 'transmittal'))) continue
    await enqueueMail(ctx.tx, {
      tenantId: ctx.actor.tenantId,
      to: person.email,
      template: 'revision-superseded',
      variables: {
        ...common,
        recipientName: person.displayName,
        transmittalNumber: transmittal.number,
        senderName: transmittal.senderName,
        outside: false,
        openUrl: `${links.publicUrl}${link}`,
        openLabel: mayView ? `Open ${change.document.number}` : `Open transmittal ${transmittal.number}`,
      },
    })
    told.add(person.id)
  }
  return told.size
}

/**
 * The outside contacts who received it, once per address: by mail with their link (the newest one
 * that still works; none when every one has expired, and the mail says so). A revoked link is
 * not told: the sender withdrew what it gave.
 */
async function tellContacts(ctx: DomainContext, links: OutsideLinks, change: Supersede, sent: Sent[], common: Common): Promise<number> {
  const rows = await ctx.tx
    .select({ id: transmittalLinks.id, transmittalId: transmittalLinks.transmittalId, name: transmittalLinks.name, email: transmittalLinks.email, expiresAt: transmittalLinks.expiresAt })
    .from(transmittalLinks)
    .where(
      and(
        eq(transmittalLinks.tenantId, ctx.actor.tenantId),
        inArray(
          transmittalLinks.transmittalId,
          sent.map((t) => t.id),
        ),
        isNull(transmittalLinks.revokedAt),
        isNotNull(transmittalLinks.expiresAt),
        ne(transmittalLinks.status, 'pending'),
      ),
    )
  if (rows.length === 0) return 0
  const toldBefore = await ctx.tx
    .select({ linkId: transmittalLinkEvents.linkId })
    .from(transmittalLinkEvents)
    .where(
      and(
        eq(transmittalLinkEvents.tenantId, ctx.actor.tenantId),
        inArray(
          transmittalLinkEvents.linkId,
          rows.map((r) => r.id),
        ),
        eq(transmittalLinkEvents.kind, 'superseded'),
        eq(transmittalLinkEvents.revisionId, change.from.id),
      ),
    )
  const told = new Set(toldBefore.map((e) => e.linkId))
  const byAddress = new Map<string, typeof rows>()
  for (const row of rows) byAddress.set(row.email.toLowerCase(), [...(byAddress.get(row.email.toLowerCase()) ?? []), row])
  const byId = new Map(sent.map((t) => [t.id, t]))
  let mailed = 0
  for (const linksOfAddress of byAddress.values()) {
    if (linksOfAddress.some((l) => told.has(l.id))) continue
    // The link that works longest; when none works any more, the newest.
    const newestFirst = [...linksOfAddress].sort((a, b) => (b.expiresAt?.getTime() ?? 0) - (a.expiresAt?.getTime() ?? 0))
    const link = newestFirst[0]
    const transmittal = link && byId.get(link.transmittalId)
    if (!link?.expiresAt || !transmittal) continue
    const works = link.expiresAt > ctx.now
    await enqueueMail(ctx.tx, {
      tenantId: ctx.actor.tenantId,
      to: link.email,
      template: 'revision-superseded',
      variables: {
        ...common,
        recipientName: link.name,
        transmittalNumber: transmittal.number,
        senderName: transmittal.senderName,
        outside: true,
        openUrl: works ? sharedUrl(links, { tenantId: ctx.actor.tenantId, linkId: link.id, expiresAt: link.expiresAt.getTime() }) : '',
        openLabel: `Open transmittal ${transmittal.number}`,
      },
    })
    await ctx.tx.insert(transmittalLinkEvents).values({ tenantId: ctx.actor.tenantId, linkId: link.id, kind: 'superseded', revisionId: change.from.id, at: ctx.now })
    mailed++
  }
  return mailed
}
