import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import type { Database } from '#server/db/client'
import { tenants } from '#server/db/schema'
import { transmittalLinkEvents, transmittalLinks, transmittalPackages, transmittalRecipients, transmittalRevisions, transmittals } from '#server/db/schema-doc-control'
import { documentRevisions, documents } from '#server/db/schema-documents'
import { projects } from '#server/db/schema-reporting'
import { withTenant } from '#server/db/tenancy'
import { recordAuditIn } from '#server/domain/audit'
import { notFound } from '#server/domain/documents/places'
import { enqueueMail } from '#server/domain/mail'
import type { ServedBlob } from '#server/domain/uploads/served'
import { recordChange } from '#server/domain/tenancy/change-log'
import type { DomainContext } from '#server/domain/tenancy/context'
import { isUuid } from '~/lib/schemas/uuid'
import { readLinkToken, sharedUrl, type OutsideLinks } from '#server/domain/transmittal-link-token'
import type { IssuePurpose, RecipientStatus, SharedTransmittal, TransmittalStatus } from '~/lib/doc-control/types'
import { projectTitle } from '~/lib/reporting/types'
import { contactsOfParties } from './parties'
import { peopleById, revisionViews, shown } from './revisions'
import { rolledUp } from './transmittal-receipts'
import { iso, liveOutsideStatuses, OUTSIDE_ACTOR, stateProblem, type TransmittalRow } from './transmittal-views'

/**
 * Transmittals to outside contacts (issue 32, decision 024, docs/doc-control.md "Outside contacts").
 * A party's outside contacts get, per transmittal, a recipient entry of their own (a row of
 * `transmittal_links`); sending mails each a link `/shared/transmittals/{token}`. The token is
 * `base64url(payload).base64url(HMAC-SHA256)` under a key derived from the server's secret; the
 * payload names the tenant, the link row and its expiry. The row decides the rest: revoked, expired
 * (the row's time, which the payload repeats) or unknown all answer 404, as does a token whose
 * signature does not verify. A link reaches its transmittal alone: its page, the files of its
 * revisions, its package, and the contact's own receipt and reply.
 */

/** How long a link works unless revoked first. */
export const LINK_DAYS = 30
const DAY_MS = 24 * 60 * 60 * 1000

type LinkRow = typeof transmittalLinks.$inferSelect
/** A draft's outside recipients: the outside contacts of the parties chosen, each once (the first party they are in). */
export async function writeOutsideRecipients(ctx: DomainContext, transmittalId: string, partyIds: readonly string[]): Promise<number> {
  await ctx.tx.delete(transmittalLinks).where(and(eq(transmittalLinks.tenantId, ctx.actor.tenantId), eq(transmittalLinks.transmittalId, transmittalId)))
  const contacts = await contactsOfParties(ctx, partyIds)
  if (contacts.length === 0) return 0
  await ctx.tx.insert(transmittalLinks).values(
    contacts.map((c) => ({
      tenantId: ctx.actor.tenantId,
      transmittalId,
      contactId: c.id,
      partyId: c.partyId,
      name: c.name,
      company: c.company,
      email: c.email,
      status: 'pending',
      createdAt: ctx.now,
    })),
  )
  return contacts.length
}

export async function outsideCount(ctx: DomainContext, transmittalId: string): Promise<number> {
  const [row] = await ctx.tx
    .select({ n: sql<number>`count(*)::int` })
    .from(transmittalLinks)
    .where(and(eq(transmittalLinks.tenantId, ctx.actor.tenantId), eq(transmittalLinks.transmittalId, transmittalId)))
  return Number(row?.n ?? 0)
}

export type OutsideMail = OutsideLinks & {
  senderName: string
  transmittal: TransmittalRow
  purpose: string
  documents: Array<{ number: string; code: string; status: string; title: string }>
}

/** Sending: each outside recipient's link starts its 30 days and a mail takes it to them (through the outbox). */
export async function sendToOutside(ctx: DomainContext, mail: OutsideMail): Promise<number> {
  const expiresAt = new Date(ctx.now.getTime() + LINK_DAYS * DAY_MS)
  const rows = await ctx.tx
    .update(transmittalLinks)
    .set({ status: 'sent', expiresAt })
    .where(and(eq(transmittalLinks.tenantId, ctx.actor.tenantId), eq(transmittalLinks.transmittalId, mail.transmittal.id)))
    .returning()
  for (const row of rows) {
    await enqueueMail(ctx.tx, {
      tenantId: ctx.actor.tenantId,
      to: row.email,
      template: 'transmittal-sent',
      variables: {
        publicUrl: mail.publicUrl,
        recipientName: row.name,
        senderName: mail.senderName,
        transmittalNumber: mail.transmittal.number,
        transmittalSubject: mail.transmittal.subject,
        purpose: mail.purpose,
        responseDue: mail.transmittal.responseDueDate ?? null,
        message: mail.transmittal.message,
        documentCount: mail.documents.length,
        documents: mail.documents,
        transmittalUrl: sharedUrl(mail, { tenantId: ctx.actor.tenantId, linkId: row.id, expiresAt: expiresAt.getTime() }),
      },
    })
  }
  return rows.length
}

/** POST /api/transmittals/{id}/links/{linkId}/revoke: the sender ends an outside recipient's link at once (what they did before is kept). */
export async function revokeLink(ctx: DomainContext, row: TransmittalRow, linkId: string): Promise<void> {
  if (!isUuid(linkId)) throw notFound()
  if (row.status === 'draft') throw stateProblem(row, 'A draft has sent no links yet.')
  const [link] = await ctx.tx
    .select()
    .from(transmittalLinks)
    .where(and(eq(transmittalLinks.tenantId, ctx.actor.tenantId), eq(transmittalLinks.transmittalId, row.id), eq(transmittalLinks.id, linkId)))
    .limit(1)
    .for('update')
  if (!link) throw notFound()
  if (link.revokedAt !== null) return
  await ctx.tx
    .update(transmittalLinks)
    .set({ revokedAt: ctx.now, revokedBy: ctx.actor.userId })
    .where(and(eq(transmittalLinks.tenantId, ctx.actor.tenantId), eq(transmittalLinks.id, link.id)))
}

// ---- The link holder's side: no session, the token is all ----

export type LinkContext = { ctx: DomainContext; link: LinkRow; transmittal: TransmittalRow }

/**
 * Runs `work` for a token's link in its tenant's transaction, or answers 404: a token that does not
 * verify, a link unknown, revoked or expired, or a transmittal no longer sent all look the same.
 */
export async function withLink<T>(db: Database, secret: string, token: string, now: Date, work: (link: LinkContext) => Promise<T>, options: { lock?: boolean } = {}): Promise<T> {
  const payload = readLinkToken(secret, token)
  if (!payload || payload.expiresAt <= now.getTime()) throw notFound()
  return withTenant(db, payload.tenantId, async (tx) => {
    const ctx: DomainContext = { tx, actor: { tenantId: payload.tenantId, userId: OUTSIDE_ACTOR, roleKey: 'read-only' }, now }
    const query = tx
      .select()
      .from(transmittalLinks)
      .where(and(eq(transmittalLinks.tenantId, payload.tenantId), eq(transmittalLinks.id, payload.linkId)))
      .limit(1)
    const [link] = options.lock ? await query.for('update') : await query
    if (!link || link.revokedAt !== null || link.expiresAt === null || link.expiresAt.getTime() !== payload.expiresAt || link.expiresAt <= now) throw notFound()
    const [transmittal] = await tx
      .select()
      .from(transmittals)
      .where(and(eq(transmittals.tenantId, payload.tenantId), eq(transmittals.id, link.transmittalId)))
      .limit(1)
    if (!transmittal || transmittal.status === 'draft') throw notFound()
    return work({ ctx, link, transmittal })
  })
}

/** The change log (the sender's screen follows) and the audit trail of an outside contact's step, with nobody of the organisation as its actor. */
async function recordOutside(l: LinkContext, event: string, data: Record<string, unknown> = {}): Promise<void> {
  const { ctx, link, transmittal } = l
  const revision = await recordChange(ctx, 'Transmittal', transmittal.id, 'Updated')
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    action: 'doc-control.transmittal.received',
    targetType: 'Transmittal',
    targetId: transmittal.id,
    data: { event, outsideRecipient: link.email, linkId: link.id, ...data },
    at: ctx.now,
  })
  await ctx.tx
    .update(transmittals)
    .set({ revision })
    .where(and(eq(transmittals.tenantId, ctx.actor.tenantId), eq(transmittals.id, transmittal.id)))
}

async function recordEvent(l: LinkContext, kind: 'view' | 'file' | 'package' | 'acknowledged' | 'responded', revisionId: string | null = null): Promise<void> {
  await l.ctx.tx.insert(transmittalLinkEvents).values({ tenantId: l.ctx.actor.tenantId, linkId: l.link.id, kind, revisionId, at: l.ctx.now })
}

/** GET /api/shared/transmittals/{token}: the page, each call a recorded view (the first opens it). */
export async function viewShared(l: LinkContext, tokenPath: string): Promise<SharedTransmittal> {
  {
    await recordEvent(l, 'view')
    const opened = l.link.status === 'sent'
    await l.ctx.tx
      .update(transmittalLinks)
      .set({ views: sql`${transmittalLinks.views} + 1`, openedAt: l.link.openedAt ?? l.ctx.now, ...(opened && { status: 'opened' }) })
      .where(and(eq(transmittalLinks.tenantId, l.ctx.actor.tenantId), eq(transmittalLinks.id, l.link.id)))
    if (opened) await recordOutside(l, 'opened')
    const [fresh] = await l.ctx.tx
      .select()
      .from(transmittalLinks)
      .where(and(eq(transmittalLinks.tenantId, l.ctx.actor.tenantId), eq(transmittalLinks.id, l.link.id)))
    if (fresh) l = { ...l, link: fresh }
  }
  return sharedView(l, tokenPath)
}

export async function sharedView(l: LinkContext, tokenPath: string): Promise<SharedTransmittal> {
  const { ctx, link, transmittal } = l
  const ids = await ctx.tx
    .select({ revisionId: transmittalRevisions.revisionId })
    .from(transmittalRevisions)
    .where(and(eq(transmittalRevisions.tenantId, ctx.actor.tenantId), eq(transmittalRevisions.transmittalId, transmittal.id)))
    .orderBy(asc(transmittalRevisions.position))
  const views = await revisionViews(
    ctx,
    ids.map((r) => r.revisionId),
  )
  const files = ids.length === 0 ? [] : await ctx.tx
    .select({ id: documentRevisions.id, fileName: documentRevisions.fileName, sizeBytes: documentRevisions.sizeBytes, supersededAt: documentRevisions.supersededAt })
    .from(documentRevisions)
    .where(and(eq(documentRevisions.tenantId, ctx.actor.tenantId), inArray(documentRevisions.id, ids.map((r) => r.revisionId))))
  const fileOf = new Map(files.map((f) => [f.id, f]))
  const replaced = await currentRevisionsOf(ctx, files.filter((f) => f.supersededAt !== null).map((f) => f.id))
  const [project] = await ctx.tx.select({ title: projects.title }).from(projects).where(and(eq(projects.tenantId, ctx.actor.tenantId), eq(projects.id, transmittal.projectId))).limit(1)
  const [tenant] = await ctx.tx.select({ name: tenants.name }).from(tenants).where(eq(tenants.id, ctx.actor.tenantId)).limit(1)
  const people = await peopleById(ctx, [transmittal.sentBy])
  const pkg = await latestPackageOf(ctx, transmittal.id)
  const base = tokenPath
  return {
    number: transmittal.number,
    subject: transmittal.subject,
    purpose: transmittal.purpose as IssuePurpose,
    message: transmittal.message,
    responseDueDate: transmittal.responseDueDate,
    status: transmittal.status as TransmittalStatus,
    sentAt: iso(transmittal.sentAt),
    senderName: transmittal.sentBy ? (people.get(transmittal.sentBy)?.displayName ?? null) : null,
    organisationName: tenant?.name ?? '',
    projectTitle: projectTitle(project?.title),
    recipient: {
      name: link.name,
      company: link.company,
      email: link.email,
      status: link.status as RecipientStatus,
      acknowledgedAt: iso(link.acknowledgedAt),
      respondedAt: iso(link.respondedAt),
      response: link.response,
      expiresAt: (link.expiresAt ?? ctx.now).toISOString(),
    },
    revisions: ids.flatMap(({ revisionId }) => {
      const view = views.get(revisionId)
      const file = fileOf.get(revisionId)
      if (!view || !file) return []
      return [
        {
          ...shown(view),
          fileName: file.fileName,
          sizeBytes: file.sizeBytes,
          superseded: file.supersededAt !== null,
          supersededAt: iso(file.supersededAt),
          currentRevision: replaced.get(revisionId) ?? null,
          downloadUrl: `${base}/revisions/${revisionId}/file`,
        },
      ]
    }),
    package: pkg
      ? {
          status: pkg.status as 'queued' | 'running' | 'ready' | 'failed',
          percent: pkg.status === 'ready' ? 100 : Math.min(99, Math.floor((pkg.bytesTotal > 0 ? pkg.bytesDone / pkg.bytesTotal : 0) * 100)),
          downloadUrl: pkg.status === 'ready' ? `${base}/package/download` : null,
        }
      : null,
  }
}

/**
 * For each superseded revision, its document's current revision: what replaced it (its code,
 * suitability and when it was issued), which the page names. The revision itself is not reachable
 * through the link: it was not sent with this transmittal.
 */
async function currentRevisionsOf(ctx: DomainContext, revisionIds: readonly string[]): Promise<Map<string, { code: string; status: string; issuedAt: string }>> {
  if (revisionIds.length === 0) return new Map()
  const old = alias(documentRevisions, 'old_revision')
  const rows = await ctx.tx
    .select({ revisionId: old.id, code: documentRevisions.code, status: documentRevisions.status, issuedAt: documentRevisions.createdAt })
    .from(old)
    .innerJoin(documents, and(eq(documents.tenantId, old.tenantId), eq(documents.id, old.documentId)))
    .innerJoin(documentRevisions, and(eq(documentRevisions.tenantId, documents.tenantId), eq(documentRevisions.id, documents.currentRevisionId)))
    .where(and(eq(old.tenantId, ctx.actor.tenantId), inArray(old.id, [...revisionIds])))
  return new Map(rows.map((r) => [r.revisionId, { code: r.code, status: r.status, issuedAt: r.issuedAt.toISOString() }]))
}

async function latestPackageOf(ctx: DomainContext, transmittalId: string) {
  const [row] = await ctx.tx
    .select()
    .from(transmittalPackages)
    .where(and(eq(transmittalPackages.tenantId, ctx.actor.tenantId), eq(transmittalPackages.transmittalId, transmittalId)))
    .orderBy(sql`${transmittalPackages.startedAt} desc`, sql`${transmittalPackages.id} desc`)
    .limit(1)
  return row
}

/** A download through the link: counted (and the first one dated) when it starts a download, and it opens the transmittal. */
export async function recordOutsideDownload(l: LinkContext, kind: 'file' | 'package', revisionId: string | null): Promise<void> {
  await recordEvent(l, kind, revisionId)
  const opened = l.link.status === 'sent'
  await l.ctx.tx
    .update(transmittalLinks)
    .set({
      downloads: sql`${transmittalLinks.downloads} + 1`,
      downloadedAt: l.link.downloadedAt ?? l.ctx.now,
      openedAt: l.link.openedAt ?? l.ctx.now,
      ...(opened && { status: 'opened' }),
    })
    .where(and(eq(transmittalLinks.tenantId, l.ctx.actor.tenantId), eq(transmittalLinks.id, l.link.id)))
  await recordOutside(l, 'downloaded', { kind, ...(revisionId && { revisionId }) })
}

/** GET …/revisions/{revisionId}/file: one of this transmittal's revisions, else 404 (a revision of another transmittal included). */
export async function sharedFile(l: LinkContext, revisionId: string): Promise<ServedBlob> {
  if (!isUuid(revisionId)) throw notFound()
  const [row] = await l.ctx.tx
    .select({ blobKey: documentRevisions.blobKey, contentType: documentRevisions.contentType, sha256: documentRevisions.sha256, fileName: documentRevisions.fileName })
    .from(transmittalRevisions)
    .innerJoin(documentRevisions, and(eq(documentRevisions.tenantId, transmittalRevisions.tenantId), eq(documentRevisions.id, transmittalRevisions.revisionId)))
    .where(and(eq(transmittalRevisions.tenantId, l.ctx.actor.tenantId), eq(transmittalRevisions.transmittalId, l.transmittal.id), eq(transmittalRevisions.revisionId, revisionId)))
    .limit(1)
  if (!row) throw notFound()
  return { key: row.blobKey, contentType: row.contentType, sha256: row.sha256, fileName: row.fileName }
}

const RECEIVING = new Set(['sent', 'acknowledged', 'responded'])

function refuseClosed(l: LinkContext): void {
  if (!RECEIVING.has(l.transmittal.status)) throw stateProblem(l.transmittal, `Transmittal ${l.transmittal.number} is ${l.transmittal.status}: it takes no more receipts.`)
}

/** The transmittal's status once every recipient's (members' and outside contacts') is counted. */
async function rollUp(l: LinkContext, event: string): Promise<void> {
  const members = await l.ctx.tx
    .select({ status: transmittalRecipients.status })
    .from(transmittalRecipients)
    .where(and(eq(transmittalRecipients.tenantId, l.ctx.actor.tenantId), eq(transmittalRecipients.transmittalId, l.transmittal.id)))
  const status = rolledUp(l.transmittal, [...members, ...(await liveOutsideStatuses(l.ctx, l.transmittal.id))])
  if (status !== l.transmittal.status) {
    await l.ctx.tx
      .update(transmittals)
      .set({ status, updatedAt: l.ctx.now })
      .where(and(eq(transmittals.tenantId, l.ctx.actor.tenantId), eq(transmittals.id, l.transmittal.id)))
  }
  await recordOutside(l, event, status !== l.transmittal.status ? { status } : {})
}

/** POST …/acknowledge: the contact acknowledges receipt (once). */
export async function acknowledgeShared(l: LinkContext): Promise<void> {
  refuseClosed(l)
  if (l.link.status !== 'sent' && l.link.status !== 'opened') throw stateProblem(l.transmittal, `You acknowledged this transmittal already.`)
  await l.ctx.tx
    .update(transmittalLinks)
    .set({ status: 'acknowledged', acknowledgedAt: l.ctx.now, openedAt: l.link.openedAt ?? l.ctx.now })
    .where(and(eq(transmittalLinks.tenantId, l.ctx.actor.tenantId), eq(transmittalLinks.id, l.link.id)))
  await recordEvent(l, 'acknowledged')
  await rollUp(l, 'acknowledged')
}

/** POST …/respond: a reply with a comment (it acknowledges too), once. */
export async function respondShared(l: LinkContext, response: string): Promise<void> {
  refuseClosed(l)
  if (l.link.status === 'responded') throw stateProblem(l.transmittal, 'You replied to this transmittal already.')
  await l.ctx.tx
    .update(transmittalLinks)
    .set({ status: 'responded', response, respondedAt: l.ctx.now, acknowledgedAt: l.link.acknowledgedAt ?? l.ctx.now, openedAt: l.link.openedAt ?? l.ctx.now })
    .where(and(eq(transmittalLinks.tenantId, l.ctx.actor.tenantId), eq(transmittalLinks.id, l.link.id)))
  await recordEvent(l, 'responded')
  await rollUp(l, 'responded')
}

/** Reads a fresh copy of the link after a change (for the answer). */
export async function reloadLink(l: LinkContext): Promise<LinkContext> {
  const [link] = await l.ctx.tx
    .select()
    .from(transmittalLinks)
    .where(and(eq(transmittalLinks.tenantId, l.ctx.actor.tenantId), eq(transmittalLinks.id, l.link.id)))
  const [transmittal] = await l.ctx.tx
    .select()
    .from(transmittals)
    .where(and(eq(transmittals.tenantId, l.ctx.actor.tenantId), eq(transmittals.id, l.transmittal.id)))
  return { ctx: l.ctx, link: link ?? l.link, transmittal: transmittal ?? l.transmittal }
}
