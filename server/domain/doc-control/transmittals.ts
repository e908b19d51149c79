import { randomUUID } from 'node:crypto'
import { and, count, desc, eq, inArray, ne, or, sql, type SQL } from 'drizzle-orm'
import { memberships, users } from '#server/db/schema'
import { recordAuditIn, type AuditAction } from '#server/domain/audit'
import { partyMembers, projectParties, transmittalRecipients, transmittalRevisions, transmittals } from '#server/db/schema-doc-control'
import { documentFolders, documents } from '#server/db/schema-documents'
import { actorEntries, forbidden, visibleCondition } from '#server/domain/documents/access'
import { ensureProjectActive, findProject } from '#server/domain/documents/places'
import { enqueueMail } from '#server/domain/mail'
import { notifyFrom } from '#server/domain/notifications/notifications'
import { wantsMail } from '#server/domain/settings/notification-preferences'
import { recordChange } from '#server/domain/tenancy/change-log'
import { refuseStaleWrite } from '#server/domain/tenancy/edit-conflict'
import type { DomainContext } from '#server/domain/tenancy/context'
import { Problem, type FieldErrors } from '#server/http/problem'
import { PURPOSE_LABELS } from '~/lib/schemas/sets'
import type { IssuePurpose, Transmittal, TransmittalRecipient, TransmittalStatus, WizardStep } from '~/lib/doc-control/types'
import { revisionsFor } from './revisions'
import { purposeWarnings } from '#server/domain/documents/rule-book'
import { refuseReadOnly, setRevisionIds } from './sets'
import { outsideCount, revokeLink, sendToOutside, writeOutsideRecipients } from './transmittal-links'
import { transmittalNumberFor } from './transmittal-numbering'
import {
  findTransmittal,
  readAccess,
  recipientViews,
  recordTransmittalChange,
  revisionIdsOf,
  stateProblem,
  transmittalView,
  transmittalViews,
  type TransmittalRow,
} from './transmittal-views'

/**
 * Transmittals (docs/doc-control.md "Transmittals", "Transmittal states"): a draft made and changed
 * by its owner (its creator, or an admin), numbered per project when it is made; sent once it has a
 * subject, revisions and recipients (mail to each through the outbox); then tracked per recipient
 * (./transmittal-receipts.ts) and closed by its sender. Making and sending take `view` on every
 * revision in it and a member who is not read-only.
 */

export type NewTransmittal = {
  subject?: string | undefined
  purpose?: IssuePurpose | undefined
  message?: string | undefined
  responseDueDate?: string | null | undefined
  revisionIds?: string[] | undefined
  setId?: string | undefined
}
export type TransmittalPatch = Omit<NewTransmittal, 'revisionIds' | 'setId'> & { wizardStep?: WizardStep | undefined }
export type TransmittalQuery = { status?: TransmittalStatus | undefined; page: number; pageSize: number }

/** The next number of the project: its transmittal-number lock is held to the end of the transaction, so two never take one. */
async function nextSeq(ctx: DomainContext, projectId: string): Promise<number> {
  await ctx.tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`transmittal-numbers:${projectId}`}, 0))`)
  const [row] = await ctx.tx
    .select({ seq: sql<number>`coalesce(max(${transmittals.seq}), 0)::int + 1` })
    .from(transmittals)
    .where(and(eq(transmittals.tenantId, ctx.actor.tenantId), eq(transmittals.projectId, projectId)))
  return Number(row?.seq ?? 1)
}

async function writeRevisions(ctx: DomainContext, transmittalId: string, revisions: ReadonlyArray<{ revisionId: string; documentId: string }>): Promise<void> {
  await ctx.tx.delete(transmittalRevisions).where(and(eq(transmittalRevisions.tenantId, ctx.actor.tenantId), eq(transmittalRevisions.transmittalId, transmittalId)))
  if (revisions.length === 0) return
  await ctx.tx
    .insert(transmittalRevisions)
    .values(revisions.map((r, position) => ({ tenantId: ctx.actor.tenantId, transmittalId, documentId: r.documentId, revisionId: r.revisionId, position })))
}

export async function createTransmittal(ctx: DomainContext, projectId: string, input: NewTransmittal): Promise<Transmittal> {
  const { project } = await findProject(ctx, projectId)
  refuseReadOnly(ctx, 'Read-only members cannot send transmittals.')
  if (input.setId !== undefined && input.revisionIds !== undefined) {
    throw new Problem({
      status: 400,
      title: 'Invalid request',
      detail: 'Choose revisions or a set, not both.',
      code: 'KR_VALIDATION',
      errors: { setId: ['Choose revisions or a set, not both.'] },
    })
  }
  const ids = input.setId !== undefined ? await setRevisionIds(ctx, input.setId, projectId) : (input.revisionIds ?? [])
  const revisions = await revisionsFor(ctx, projectId, ids, 'view')
  ensureProjectActive(project)
  const seq = await nextSeq(ctx, projectId)
  const id = randomUUID()
  const number = await transmittalNumberFor(ctx, project, seq)
  const revision = await recordTransmittalChange(ctx, id, 'Created', 'doc-control.transmittal.changed', { number, revisions: revisions.length })
  const [row] = await ctx.tx
    .insert(transmittals)
    .values({
      tenantId: ctx.actor.tenantId,
      id,
      projectId,
      seq,
      number,
      subject: input.subject ?? '',
      purpose: input.purpose ?? 'for-information',
      message: input.message ?? '',
      responseDueDate: input.responseDueDate ?? null,
      createdBy: ctx.actor.userId,
      revision,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    })
    .returning()
  if (!row) throw new Error('transmittal not stored')
  await writeRevisions(ctx, id, revisions)
  return transmittalView(ctx, row)
}

/** A transmittal its owner may change: 404 for who may not read it, 403 for other readers and read-only members, 409 once sent. */
async function ownDraft(ctx: DomainContext, transmittalId: string): Promise<TransmittalRow> {
  const row = await findTransmittal(ctx, transmittalId, { lock: true })
  const access = await readAccess(ctx, row)
  if (!access.owner) throw forbidden('Only the transmittal’s sender changes it.')
  refuseReadOnly(ctx, 'Read-only members cannot send transmittals.')
  if (row.status !== 'draft') throw stateProblem(row, `Transmittal ${row.number} has been sent: it can no longer change.`)
  return row
}

async function touch(
  ctx: DomainContext,
  row: TransmittalRow,
  change: Partial<TransmittalRow>,
  data: Record<string, unknown>,
  action: AuditAction = 'doc-control.transmittal.changed',
): Promise<TransmittalRow> {
  const revision = await recordTransmittalChange(ctx, row.id, 'Updated', action, data)
  const [updated] = await ctx.tx
    .update(transmittals)
    .set({ ...change, revision, updatedBy: ctx.actor.userId, updatedAt: ctx.now })
    .where(and(eq(transmittals.tenantId, ctx.actor.tenantId), eq(transmittals.id, row.id)))
    .returning()
  if (!updated) throw new Error('transmittal not updated')
  return updated
}

/**
 * A draft its owner may change, as it was when the editor opened it: a save by someone else since
 * (the creator and every administrator own a draft) is refused, 409 KR_EDIT_CONFLICT.
 */
async function ownDraftAt(ctx: DomainContext, transmittalId: string, expectedRevision: number | undefined): Promise<TransmittalRow> {
  const row = await ownDraft(ctx, transmittalId)
  await refuseStaleWrite(ctx, { ...row, what: 'draft transmittal' }, expectedRevision, () => transmittalView(ctx, row))
  return row
}

export async function updateTransmittal(ctx: DomainContext, transmittalId: string, patch: TransmittalPatch & { expectedRevision?: number | undefined }): Promise<Transmittal> {
  const row = await ownDraftAt(ctx, transmittalId, patch.expectedRevision)
  const change: Partial<TransmittalRow> = {}
  if (patch.subject !== undefined) change.subject = patch.subject
  if (patch.purpose !== undefined) change.purpose = patch.purpose
  if (patch.message !== undefined) change.message = patch.message
  if (patch.responseDueDate !== undefined) change.responseDueDate = patch.responseDueDate
  if (patch.wizardStep !== undefined) change.wizardStep = patch.wizardStep
  if (Object.keys(change).length === 0) return transmittalView(ctx, row)
  return transmittalView(ctx, await touch(ctx, row, change, { fields: Object.keys(change) }))
}

/**
 * The sender discards a draft: it never went to anyone, so nothing of it is kept but the audit
 * entry. Its number is not handed out again unless it was the project's last (docs/doc-control.md).
 */
export async function discardTransmittal(ctx: DomainContext, transmittalId: string): Promise<void> {
  const row = await ownDraft(ctx, transmittalId)
  await recordChange(ctx, 'Transmittal', row.id, 'Deleted')
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action: 'doc-control.transmittal.changed',
    targetType: 'Transmittal',
    targetId: row.id,
    data: { event: 'discarded', number: row.number },
    at: ctx.now,
  })
  await ctx.tx.delete(transmittals).where(and(eq(transmittals.tenantId, ctx.actor.tenantId), eq(transmittals.id, row.id)))
}

export async function putTransmittalRevisions(ctx: DomainContext, transmittalId: string, revisionIds: string[], expectedRevision?: number): Promise<Transmittal> {
  const row = await ownDraftAt(ctx, transmittalId, expectedRevision)
  const revisions = await revisionsFor(ctx, row.projectId, revisionIds, 'view')
  await writeRevisions(ctx, row.id, revisions)
  return transmittalView(ctx, await touch(ctx, row, {}, { revisions: revisions.length }))
}

/**
 * Replaces the recipients: people (active members of the organisation) and parties of the
 * project, a party standing for its people who are active members (each keeps the party it came
 * through; someone chosen in person has none). An id of no member or party here is 404, like any
 * unknown id; a member who is not active (invited, suspended) is named in a 422.
 */
export async function putTransmittalRecipients(
  ctx: DomainContext,
  transmittalId: string,
  input: { userIds: string[]; partyIds: string[]; expectedRevision?: number | undefined },
): Promise<Transmittal> {
  const row = await ownDraftAt(ctx, transmittalId, input.expectedRevision)
  await membersOf(ctx, input.userIds)
  const parties =
    input.partyIds.length === 0
      ? []
      : await ctx.tx
          .select({ id: projectParties.id })
          .from(projectParties)
          .where(and(eq(projectParties.tenantId, ctx.actor.tenantId), eq(projectParties.projectId, row.projectId), inArray(projectParties.id, input.partyIds)))
  if (parties.length !== input.partyIds.length) throw new Problem({ status: 404, title: 'Not found', detail: 'A party chosen is not one of this project’s.', code: 'KR_NOT_FOUND' })
  const fromParties =
    input.partyIds.length === 0
      ? []
      : await ctx.tx
          .select({ userId: partyMembers.userId, partyId: partyMembers.partyId })
          .from(partyMembers)
          .innerJoin(memberships, and(eq(memberships.tenantId, partyMembers.tenantId), eq(memberships.userId, partyMembers.userId)))
          .where(and(eq(partyMembers.tenantId, ctx.actor.tenantId), inArray(partyMembers.partyId, input.partyIds), eq(memberships.status, 'active')))
  const chosen = new Map<string, string | null>()
  for (const id of input.userIds) chosen.set(id, null)
  // In the order the parties were chosen, so someone in two parties keeps the first.
  for (const partyId of input.partyIds) {
    for (const member of fromParties) if (member.partyId === partyId && !chosen.has(member.userId)) chosen.set(member.userId, partyId)
  }
  await ctx.tx.delete(transmittalRecipients).where(and(eq(transmittalRecipients.tenantId, ctx.actor.tenantId), eq(transmittalRecipients.transmittalId, row.id)))
  if (chosen.size > 0) {
    await ctx.tx
      .insert(transmittalRecipients)
      .values([...chosen].map(([userId, partyId]) => ({ tenantId: ctx.actor.tenantId, transmittalId: row.id, userId, partyId, status: 'pending' })))
  }
  // A party's outside contacts (issue 32) are recipients too, reached by a link.
  const outside = await writeOutsideRecipients(ctx, row.id, input.partyIds)
  return transmittalView(ctx, await touch(ctx, row, {}, { recipients: chosen.size, outsideRecipients: outside, parties: input.partyIds.length }))
}

/** The named users as active members of the organisation: 404 for one who is no member, 422 for one not active. */
async function membersOf(ctx: DomainContext, userIds: readonly string[]): Promise<Map<string, { displayName: string; email: string }>> {
  if (userIds.length === 0) return new Map()
  const rows = await ctx.tx
    .select({ userId: memberships.userId, status: memberships.status, displayName: users.displayName, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.tenantId, ctx.actor.tenantId), inArray(memberships.userId, [...userIds])))
  if (rows.length !== new Set(userIds).size)
    throw new Problem({ status: 404, title: 'Not found', detail: 'A person chosen is not a member of this organisation.', code: 'KR_NOT_FOUND' })
  const inactive = rows.filter((r) => r.status !== 'active')
  if (inactive.length > 0) {
    const names = inactive.map((r) => r.displayName).join(', ')
    throw new Problem({
      status: 422,
      title: 'Invalid request',
      detail: `Not active members of the organisation: ${names}.`,
      code: 'KR_VALIDATION',
      errors: { userIds: [`Not active members of the organisation: ${names}.`] },
    })
  }
  return new Map(rows.map((r) => [r.userId, r]))
}

/**
 * Sends a draft: 422 naming everything missing at once (subject, revisions, recipients); the
 * revisions are checked again (the sender must still see each), and so are the recipients (still
 * active members). Each recipient gets mail with a link; the transmittal and its recipients are sent.
 */
export async function sendTransmittal(
  ctx: DomainContext,
  transmittalId: string,
  options: { publicUrl: string; linkSecret: string; confirmPurpose?: boolean | undefined },
): Promise<Transmittal> {
  const row = await ownDraft(ctx, transmittalId)
  const ids = await revisionIdsOf(ctx, row.id)
  const recipients = await ctx.tx
    .select({ userId: transmittalRecipients.userId })
    .from(transmittalRecipients)
    .where(and(eq(transmittalRecipients.tenantId, ctx.actor.tenantId), eq(transmittalRecipients.transmittalId, row.id)))
  const missing: FieldErrors = {}
  if (row.subject.trim() === '') missing.subject = ['Give the transmittal a subject.']
  if (ids.length === 0) missing.revisions = ['Choose the revisions to send.']
  if (recipients.length === 0 && (await outsideCount(ctx, row.id)) === 0) missing.recipients = ['Choose who receives it.']
  if (Object.keys(missing).length > 0) {
    throw new Problem({
      status: 422,
      title: 'Not ready to send',
      detail: `Before sending, add: ${Object.keys(missing).join(', ')}.`,
      code: 'KR_TRANSMITTAL_INCOMPLETE',
      errors: missing,
    })
  }
  const revisions = await revisionsFor(ctx, row.projectId, ids, 'view')
  const { project } = await findProject(ctx, row.projectId)
  ensureProjectActive(project)
  // The rule book: a suitability that does not fit the purpose is warned about, and sent only when the sender confirms.
  const warnings = purposeWarnings(row.purpose as IssuePurpose, revisions)
  if (warnings.length > 0 && options.confirmPurpose !== true) throw purposeUnconfirmed(warnings)
  const people = await membersOf(
    ctx,
    recipients.map((r) => r.userId),
  )
  await ctx.tx
    .update(transmittalRecipients)
    .set({ status: 'sent' })
    .where(and(eq(transmittalRecipients.tenantId, ctx.actor.tenantId), eq(transmittalRecipients.transmittalId, row.id)))
  const sent = await ctx.tx
    .update(transmittals)
    .set({
      status: 'sent',
      sentAt: ctx.now,
      sentBy: ctx.actor.userId,
      ...(warnings.length > 0 && { purposeWarnings: warnings, purposeConfirmedBy: ctx.actor.userId, purposeConfirmedAt: ctx.now }),
    })
    .where(and(eq(transmittals.tenantId, ctx.actor.tenantId), eq(transmittals.id, row.id)))
    .returning()
  const updated = sent[0]
  if (!updated) throw new Error('transmittal not sent')
  const [sender] = await ctx.tx.select({ displayName: users.displayName }).from(users).where(eq(users.id, ctx.actor.userId)).limit(1)
  const link = `${options.publicUrl}/doc-control/transmittals/${row.id}?projectId=${row.projectId}`
  const purpose = PURPOSE_LABELS[updated.purpose as IssuePurpose] ?? updated.purpose
  const documents = revisions.map((r) => ({ number: r.number, code: r.code, status: r.status, title: r.title }))
  await notifyFrom(ctx, [...people.keys()], {
    kind: 'transmittal-received',
    title: `Transmittal ${updated.number}: ${updated.subject}`,
    link: `/doc-control/transmittals/${row.id}?projectId=${row.projectId}`,
  })
  for (const [userId, person] of people) {
    if (!(await wantsMail(ctx.tx, ctx.actor.tenantId, userId, 'transmittal'))) continue
    await enqueueMail(ctx.tx, {
      tenantId: ctx.actor.tenantId,
      to: person.email,
      template: 'transmittal-sent',
      variables: {
        publicUrl: options.publicUrl,
        recipientName: person.displayName,
        senderName: sender?.displayName ?? 'Someone',
        transmittalNumber: updated.number,
        transmittalSubject: updated.subject,
        purpose: purpose.toLowerCase(),
        responseDue: updated.responseDueDate ?? null,
        message: updated.message,
        documentCount: revisions.length,
        documents,
        transmittalUrl: link,
      },
    })
  }
  const outside = await sendToOutside(ctx, { publicUrl: options.publicUrl, linkSecret: options.linkSecret, senderName: sender?.displayName ?? 'Someone', transmittal: updated, purpose: purpose.toLowerCase(), documents })
  return transmittalView(ctx, await touch(ctx, updated, {}, { number: updated.number, recipients: people.size, outsideRecipients: outside, revisions: revisions.length, ...(warnings.length > 0 && { purposeWarnings: warnings, purposeConfirmed: true }) }, 'doc-control.transmittal.sent'))
}

/** Sending asked once more: the warnings, as a field error on `confirmPurpose` (the second submit's checkbox). */
function purposeUnconfirmed(warnings: string[]): Problem {
  return new Problem({
    status: 409,
    title: 'Confirm the purpose',
    detail: `The purpose of issue does not fit ${warnings.length === 1 ? 'one revision' : `${warnings.length} revisions`}: ${warnings.join(' ')}`,
    code: 'KR_PURPOSE_UNCONFIRMED',
    remediation: 'Change the purpose or the revisions, or send again with confirmPurpose: true; the warning and your confirmation are kept on the transmittal.',
    errors: { confirmPurpose: warnings },
    extensions: { warnings },
  })
}

/**
 * The sender (or an admin) revokes an outside recipient's link (issue 32): it answers 404 from now
 * on; what they viewed, downloaded and acknowledged before stays recorded. Revoking twice is the same.
 */
export async function revokeTransmittalLink(ctx: DomainContext, transmittalId: string, linkId: string): Promise<Transmittal> {
  const row = await findTransmittal(ctx, transmittalId, { lock: true })
  const access = await readAccess(ctx, row)
  if (!access.owner) throw forbidden('Only the transmittal’s sender revokes its links.')
  refuseReadOnly(ctx, 'Read-only members cannot revoke links.')
  await revokeLink(ctx, row, linkId)
  return transmittalView(ctx, await touch(ctx, row, {}, { event: 'link-revoked', linkId }))
}

/** The sender (or an admin) closes a sent transmittal: nothing more is expected of its recipients. */
export async function closeTransmittal(ctx: DomainContext, transmittalId: string): Promise<Transmittal> {
  const row = await findTransmittal(ctx, transmittalId, { lock: true })
  const access = await readAccess(ctx, row)
  if (!access.owner) throw forbidden('Only the transmittal’s sender closes it.')
  refuseReadOnly(ctx, 'Read-only members cannot close transmittals.')
  if (row.status === 'draft' || row.status === 'closed')
    throw stateProblem(row, row.status === 'draft' ? 'A draft is sent before it is closed.' : 'This transmittal is closed already.')
  return transmittalView(ctx, await touch(ctx, row, { status: 'closed' }, { event: 'closed', from: row.status }))
}

export async function getTransmittalStatus(ctx: DomainContext, transmittalId: string): Promise<{ status: TransmittalStatus; recipients: TransmittalRecipient[] }> {
  const row = await findTransmittal(ctx, transmittalId)
  await readAccess(ctx, row)
  return { status: row.status as TransmittalStatus, recipients: await recipientViews(ctx, row) }
}

/**
 * A project's transmittals the caller may read, newest first: their own drafts, and once sent
 * those they sent or received or whose every revision they may view (the permission rule in the
 * query, so paging and the total count only what they see). Admins read every one.
 */
export async function listTransmittals(
  ctx: DomainContext,
  projectId: string,
  query: TransmittalQuery,
): Promise<{ items: Transmittal[]; total: number; page: number; pageSize: number }> {
  const { restricted } = await findProject(ctx, projectId)
  const me = ctx.actor.userId
  const conditions: Array<SQL | undefined> = [eq(transmittals.tenantId, ctx.actor.tenantId), eq(transmittals.projectId, projectId)]
  if (query.status !== undefined) conditions.push(eq(transmittals.status, query.status))
  if (ctx.actor.roleKey !== 'admin') {
    const entries = await actorEntries(ctx, projectId)
    const visible = visibleCondition(ctx.actor, entries, { documentId: sql`${documents.id}`, projectId: sql`${documents.projectId}`, folderPath: sql`${documentFolders.path}` })
    const seesEvery =
      visible === undefined
        ? restricted
          ? sql`false`
          : sql`true`
        : sql`not exists (select 1 from ${transmittalRevisions}
            inner join ${documents} on ${documents.tenantId} = ${transmittalRevisions.tenantId} and ${documents.id} = ${transmittalRevisions.documentId}
            left join ${documentFolders} on ${documentFolders.tenantId} = ${documents.tenantId} and ${documentFolders.id} = ${documents.folderId}
            where ${transmittalRevisions.tenantId} = ${transmittals.tenantId} and ${transmittalRevisions.transmittalId} = ${transmittals.id} and not ${visible})`
    const received = sql`exists (select 1 from ${transmittalRecipients} where ${transmittalRecipients.tenantId} = ${transmittals.tenantId}
      and ${transmittalRecipients.transmittalId} = ${transmittals.id} and ${transmittalRecipients.userId} = ${me}::uuid)`
    conditions.push(or(eq(transmittals.createdBy, me), eq(transmittals.sentBy, me), and(ne(transmittals.status, 'draft'), or(received, seesEvery))))
  }
  const where = and(...conditions)
  const [total] = await ctx.tx.select({ n: count() }).from(transmittals).where(where)
  const rows = await ctx.tx
    .select()
    .from(transmittals)
    .where(where)
    .orderBy(desc(transmittals.createdAt), desc(transmittals.seq))
    .limit(query.pageSize)
    .offset((query.page - 1) * query.pageSize)
  return { items: await transmittalViews(ctx, rows), total: Number(total?.n ?? 0), page: query.page, pageSize: query.pageSize }
}
