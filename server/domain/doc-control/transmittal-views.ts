import { and, asc, desc, eq, inArray, isNull, sql } from 'drizzle-orm'
import { users } from '#server/db/schema'
import { transmittalLinkEvents, transmittalLinks, transmittalPackages, transmittalRecipients, transmittalRevisions, transmittals } from '#server/db/schema-doc-control'
import { recordAuditIn, type AuditAction } from '#server/domain/audit'
import { findProject, notFound } from '#server/domain/documents/places'
import { recordChange } from '#server/domain/tenancy/change-log'
import type { DomainContext } from '#server/domain/tenancy/context'
import { isUuid } from '~/lib/schemas/uuid'
import { Problem } from '#server/http/problem'
import type { IssuePurpose, OutsideRecipient, PackageStatus, RecipientStatus, Transmittal, TransmittalPackage, TransmittalRecipient, TransmittalStatus, WizardStep } from '~/lib/doc-control/types'
import { peopleById, revisionsFor, revisionViews, shown } from './revisions'

/**
 * Who reads a transmittal, and what they read (docs/doc-control.md "Transmittals"). Its owner (who
 * made it, who sent it, and organisation admins) reads it in every state, with every recipient's
 * tracking. Once sent, a recipient reads it whatever their document permissions (it was sent to
 * them), and anyone else who sees every revision in it. A draft is its owner's alone: 404 to others.
 * People other than the owner see their own tracking, not the other recipients'.
 */

export type TransmittalRow = typeof transmittals.$inferSelect

/** The actor of an outside contact's step (their link, no session): nobody of the organisation; the audit names no user for it. */
export const OUTSIDE_ACTOR = '00000000-0000-0000-0000-000000000000'
export type RecipientRow = typeof transmittalRecipients.$inferSelect
export type Access = { owner: boolean; recipient: RecipientRow | null }

export async function findTransmittal(ctx: DomainContext, transmittalId: string, options: { lock?: boolean } = {}): Promise<TransmittalRow> {
  if (!isUuid(transmittalId)) throw notFound()
  const query = ctx.tx
    .select()
    .from(transmittals)
    .where(and(eq(transmittals.tenantId, ctx.actor.tenantId), eq(transmittals.id, transmittalId)))
    .limit(1)
  const [row] = options.lock ? await query.for('update') : await query
  if (!row) throw notFound()
  return row
}

export function isOwner(ctx: DomainContext, row: TransmittalRow): boolean {
  return ctx.actor.roleKey === 'admin' || row.createdBy === ctx.actor.userId || row.sentBy === ctx.actor.userId
}

export async function revisionIdsOf(ctx: DomainContext, transmittalId: string): Promise<string[]> {
  const rows = await ctx.tx
    .select({ revisionId: transmittalRevisions.revisionId })
    .from(transmittalRevisions)
    .where(and(eq(transmittalRevisions.tenantId, ctx.actor.tenantId), eq(transmittalRevisions.transmittalId, transmittalId)))
    .orderBy(asc(transmittalRevisions.position))
  return rows.map((r) => r.revisionId)
}

/** The caller's access to a transmittal, or the refusal: 404 for whoever may not read it. */
export async function readAccess(ctx: DomainContext, row: TransmittalRow): Promise<Access> {
  const owner = isOwner(ctx, row)
  // A draft's recipients have received nothing yet.
  const [recipient] =
    row.status === 'draft'
      ? []
      : await ctx.tx
          .select()
          .from(transmittalRecipients)
          .where(and(eq(transmittalRecipients.tenantId, ctx.actor.tenantId), eq(transmittalRecipients.transmittalId, row.id), eq(transmittalRecipients.userId, ctx.actor.userId)))
          .limit(1)
  if (owner || recipient) return { owner, recipient: recipient ?? null }
  if (row.status === 'draft') throw notFound()
  const { restricted } = await findProject(ctx, row.projectId)
  const ids = await revisionIdsOf(ctx, row.id)
  if (ids.length === 0 && restricted) throw notFound()
  // Seeing every revision in it is what reading it takes (404 otherwise, as for one of them).
  await revisionsFor(ctx, row.projectId, ids, 'view')
  return { owner: false, recipient: null }
}

export function stateProblem(row: TransmittalRow, detail: string): Problem {
  return new Problem({ status: 409, title: 'Conflict', detail, code: 'KR_TRANSMITTAL_STATE', extensions: { status: row.status } })
}

/** The change log (realtime tells the sender's screen) and the audit trail of a change, in its transaction; the transmittal's new revision. */
export async function recordTransmittalChange(
  ctx: DomainContext,
  transmittalId: string,
  changeType: 'Created' | 'Updated',
  action: AuditAction,
  data: Record<string, unknown>,
): Promise<number> {
  const revision = await recordChange(ctx, 'Transmittal', transmittalId, changeType)
  const actorUserId = ctx.actor.userId === OUTSIDE_ACTOR ? undefined : ctx.actor.userId
  await recordAuditIn(ctx.tx, { tenantId: ctx.actor.tenantId, actorUserId, action, targetType: 'Transmittal', targetId: transmittalId, data, at: ctx.now })
  return revision
}

export function iso(at: Date | null): string | null {
  return at === null ? null : at.toISOString()
}


type LinkRow = typeof transmittalLinks.$inferSelect

function outsideView(row: LinkRow, notices: OutsideRecipient['supersededNotices']): OutsideRecipient {
  return {
    id: row.id,
    name: row.name,
    company: row.company,
    email: row.email,
    partyId: row.partyId,
    status: row.status as RecipientStatus,
    expiresAt: iso(row.expiresAt),
    revokedAt: iso(row.revokedAt),
    openedAt: iso(row.openedAt),
    downloadedAt: iso(row.downloadedAt),
    views: row.views,
    downloads: row.downloads,
    acknowledgedAt: iso(row.acknowledgedAt),
    respondedAt: iso(row.respondedAt),
    response: row.response,
    supersededNotices: notices,
  }
}

/** The outside recipients of transmittals, by transmittal, by name (the sender's tracking). */
export async function outsideRecipientsOf(ctx: DomainContext, transmittalIds: readonly string[]): Promise<Map<string, OutsideRecipient[]>> {
  const byId = new Map<string, OutsideRecipient[]>(transmittalIds.map((id) => [id, []]))
  if (transmittalIds.length === 0) return byId
  const rows = await ctx.tx
    .select()
    .from(transmittalLinks)
    .where(and(eq(transmittalLinks.tenantId, ctx.actor.tenantId), inArray(transmittalLinks.transmittalId, [...transmittalIds])))
    .orderBy(asc(sql`lower(${transmittalLinks.name})`), asc(transmittalLinks.email))
  const notices = new Map<string, OutsideRecipient['supersededNotices']>()
  if (rows.length > 0) {
    // Told that a revision they received was superseded (documents/superseded.ts records it on the link it mailed).
    const told = await ctx.tx
      .select({ linkId: transmittalLinkEvents.linkId, revisionId: transmittalLinkEvents.revisionId, at: transmittalLinkEvents.at })
      .from(transmittalLinkEvents)
      .where(
        and(
          eq(transmittalLinkEvents.tenantId, ctx.actor.tenantId),
          inArray(
            transmittalLinkEvents.linkId,
            rows.map((r) => r.id),
          ),
          eq(transmittalLinkEvents.kind, 'superseded'),
        ),
      )
      .orderBy(asc(transmittalLinkEvents.at))
    for (const event of told) if (event.revisionId) notices.set(event.linkId, [...(notices.get(event.linkId) ?? []), { revisionId: event.revisionId, at: event.at.toISOString() }])
  }
  for (const row of rows) byId.get(row.transmittalId)?.push(outsideView(row, notices.get(row.id) ?? []))
  return byId
}

/** The statuses of a transmittal's outside recipients whose link was not revoked: they count towards "acknowledged" and "responded". */
export async function liveOutsideStatuses(ctx: DomainContext, transmittalId: string): Promise<Array<{ status: string }>> {
  return ctx.tx
    .select({ status: transmittalLinks.status })
    .from(transmittalLinks)
    .where(and(eq(transmittalLinks.tenantId, ctx.actor.tenantId), eq(transmittalLinks.transmittalId, transmittalId), isNull(transmittalLinks.revokedAt)))
}

type RecipientWithPerson = RecipientRow & { displayName: string; email: string }

function recipientView(row: RecipientWithPerson, tracked: boolean): TransmittalRecipient {
  const base = { id: row.id, userId: row.userId, displayName: row.displayName, email: row.email, partyId: row.partyId }
  if (!tracked) {
    return {
      ...base,
      status: row.status === 'pending' ? 'pending' : 'sent',
      openedAt: null,
      downloadedAt: null,
      downloads: 0,
      acknowledgedAt: null,
      respondedAt: null,
      response: null,
    }
  }
  return {
    ...base,
    status: row.status as RecipientStatus,
    openedAt: iso(row.openedAt),
    downloadedAt: iso(row.downloadedAt),
    downloads: row.downloads,
    acknowledgedAt: iso(row.acknowledgedAt),
    respondedAt: iso(row.respondedAt),
    response: row.response,
  }
}

/** The recipients of transmittals, by transmittal, by name. */
async function recipientsOf(ctx: DomainContext, transmittalIds: readonly string[]): Promise<Map<string, RecipientWithPerson[]>> {
  const byId = new Map<string, RecipientWithPerson[]>(transmittalIds.map((id) => [id, []]))
  if (transmittalIds.length === 0) return byId
  const rows = await ctx.tx
    .select({ recipient: transmittalRecipients, displayName: users.displayName, email: users.email })
    .from(transmittalRecipients)
    .innerJoin(users, eq(users.id, transmittalRecipients.userId))
    .where(and(eq(transmittalRecipients.tenantId, ctx.actor.tenantId), inArray(transmittalRecipients.transmittalId, [...transmittalIds])))
    .orderBy(asc(users.displayName), asc(users.email))
  for (const row of rows) byId.get(row.recipient.transmittalId)?.push({ ...row.recipient, displayName: row.displayName, email: row.email })
  return byId
}

/** Each transmittal's recipients as the caller may see them (everyone's tracking for the owner, their own for a recipient). */
export async function recipientViews(ctx: DomainContext, row: TransmittalRow): Promise<TransmittalRecipient[]> {
  const owner = isOwner(ctx, row)
  return ((await recipientsOf(ctx, [row.id])).get(row.id) ?? []).map((r) => recipientView(r, owner || r.userId === ctx.actor.userId))
}

/** Transmittals as the caller reads them, in a fixed number of queries whatever their number. */
export async function transmittalViews(ctx: DomainContext, rows: readonly TransmittalRow[]): Promise<Transmittal[]> {
  const ids = rows.map((r) => r.id)
  if (ids.length === 0) return []
  const revisionRows = await ctx.tx
    .select({ transmittalId: transmittalRevisions.transmittalId, revisionId: transmittalRevisions.revisionId })
    .from(transmittalRevisions)
    .where(and(eq(transmittalRevisions.tenantId, ctx.actor.tenantId), inArray(transmittalRevisions.transmittalId, ids)))
    .orderBy(asc(transmittalRevisions.position))
  const views = await revisionViews(
    ctx,
    revisionRows.map((r) => r.revisionId),
  )
  const recipients = await recipientsOf(ctx, ids)
  const outside = await outsideRecipientsOf(ctx, ids)
  const packages = await ctx.tx
    .selectDistinctOn([transmittalPackages.transmittalId])
    .from(transmittalPackages)
    .where(and(eq(transmittalPackages.tenantId, ctx.actor.tenantId), inArray(transmittalPackages.transmittalId, ids)))
    .orderBy(transmittalPackages.transmittalId, desc(transmittalPackages.startedAt), desc(transmittalPackages.id))
  const packageOf = new Map(packages.map((p) => [p.transmittalId, p]))
  const people = await peopleById(ctx, [...rows.map((r) => r.sentBy), ...rows.map((r) => r.createdBy), ...rows.map((r) => r.purposeConfirmedBy)])
  const ref = (id: string | null) => {
    const person = id === null ? undefined : people.get(id)
    return person ? { id: person.id, displayName: person.displayName } : null
  }
  return rows.map((row) => {
    const owner = isOwner(ctx, row)
    const mine = (recipients.get(row.id) ?? []).find((r) => r.userId === ctx.actor.userId)
    const pkg = packageOf.get(row.id)
    return {
      id: row.id,
      projectId: row.projectId,
      number: row.number,
      subject: row.subject,
      purpose: row.purpose as IssuePurpose,
      message: row.message,
      responseDueDate: row.responseDueDate,
      status: row.status as TransmittalStatus,
      sentAt: iso(row.sentAt),
      sentBy: ref(row.sentBy),
      createdBy: ref(row.createdBy),
      revisions: revisionRows.flatMap((r) => {
        const view = r.transmittalId === row.id ? views.get(r.revisionId) : undefined
        return view ? [shown(view)] : []
      }),
      recipients: (recipients.get(row.id) ?? []).map((r) => recipientView(r, owner || r.userId === ctx.actor.userId)),
      outsideRecipients: owner ? (outside.get(row.id) ?? []) : [],
      mine: mine && row.status !== 'draft' ? recipientView(mine, true) : null,
      package: pkg ? packageView(pkg) : null,
      wizardStep: row.wizardStep as WizardStep,
      purposeCheck: row.purposeWarnings ? { warnings: row.purposeWarnings, confirmedBy: ref(row.purposeConfirmedBy), confirmedAtUtc: iso(row.purposeConfirmedAt) } : null,
      revision: row.revision,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    }
  })
}

export async function transmittalView(ctx: DomainContext, row: TransmittalRow): Promise<Transmittal> {
  const [view] = await transmittalViews(ctx, [row])
  if (!view) throw new Error('transmittal view not made')
  return view
}

export type PackageRow = typeof transmittalPackages.$inferSelect

export function packageView(row: PackageRow): TransmittalPackage {
  const status = row.status as PackageStatus
  // By bytes (a package is mostly a few large files), capped below 100 until the ZIP is in place.
  const fraction = row.bytesTotal > 0 ? row.bytesDone / row.bytesTotal : row.filesTotal > 0 ? row.filesDone / row.filesTotal : 0
  return {
    id: row.id,
    status,
    percent: status === 'ready' ? 100 : Math.min(99, Math.floor(fraction * 100)),
    filesDone: row.filesDone,
    filesTotal: row.filesTotal,
    bytesDone: row.bytesDone,
    bytesTotal: row.bytesTotal,
    sizeBytes: row.sizeBytes,
    error: row.error,
    downloadUrl: status === 'ready' ? `/api/transmittals/${row.transmittalId}/package/download` : null,
    startedAt: row.startedAt.toISOString(),
    finishedAt: row.finishedAt === null ? null : row.finishedAt.toISOString(),
  }
}
