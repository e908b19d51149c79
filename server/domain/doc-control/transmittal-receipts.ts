import { and, eq } from 'drizzle-orm'
import { transmittalRecipients, transmittals } from '#server/db/schema-doc-control'
import { forbidden } from '#server/domain/documents/access'
import type { DomainContext } from '#server/domain/tenancy/context'
import type { Transmittal, TransmittalStatus } from '~/lib/doc-control/types'
import { findTransmittal, liveOutsideStatuses, readAccess, recordTransmittalChange, stateProblem, transmittalView, type RecipientRow, type TransmittalRow } from './transmittal-views'

/**
 * The recipients' side of a transmittal (docs/doc-control.md "Transmittal states"). Per recipient:
 * pending (draft) → sent → opened (their first read, or first download) → acknowledged →
 * responded. The transmittal follows: acknowledged once every recipient has acknowledged,
 * responded once a response date was set and every recipient has responded. Only the recipient
 * acknowledges and responds (a read-only member too: a receipt changes no document), never once
 * the transmittal is closed. Each step is in the change log, so the sender's screen follows it.
 */

const RECEIVED_STATES = new Set(['sent', 'acknowledged', 'responded'])

/** GET /api/transmittals/{id}: a recipient's first read of a sent transmittal records that they opened it. */
export async function getTransmittal(ctx: DomainContext, transmittalId: string): Promise<Transmittal> {
  const row = await findTransmittal(ctx, transmittalId)
  const access = await readAccess(ctx, row)
  if (access.recipient?.status === 'sent') {
    // A conditional update: two first reads at once record one opening.
    const opened = await ctx.tx
      .update(transmittalRecipients)
      .set({ status: 'opened', openedAt: ctx.now })
      .where(and(eq(transmittalRecipients.tenantId, ctx.actor.tenantId), eq(transmittalRecipients.id, access.recipient.id), eq(transmittalRecipients.status, 'sent')))
      .returning({ id: transmittalRecipients.id })
    if (opened.length > 0) return transmittalView(ctx, await touch(ctx, row, {}, { event: 'opened' }))
  }
  return transmittalView(ctx, row)
}

async function touch(ctx: DomainContext, row: TransmittalRow, change: Partial<TransmittalRow>, data: Record<string, unknown>): Promise<TransmittalRow> {
  const revision = await recordTransmittalChange(ctx, row.id, 'Updated', 'doc-control.transmittal.received', data)
  const [updated] = await ctx.tx
    .update(transmittals)
    .set({ ...change, revision, updatedAt: ctx.now })
    .where(and(eq(transmittals.tenantId, ctx.actor.tenantId), eq(transmittals.id, row.id)))
    .returning()
  if (!updated) throw new Error('transmittal not updated')
  return updated
}

/** The caller's own entry on a transmittal that still expects receipts: 403 for other readers, 409 when closed. */
async function myEntry(ctx: DomainContext, transmittalId: string): Promise<{ row: TransmittalRow; recipient: RecipientRow }> {
  const row = await findTransmittal(ctx, transmittalId, { lock: true })
  const access = await readAccess(ctx, row)
  if (!access.recipient) throw forbidden('Only its recipients acknowledge or respond to a transmittal.')
  if (!RECEIVED_STATES.has(row.status)) throw stateProblem(row, `Transmittal ${row.number} is ${row.status}: it takes no more receipts.`)
  return { row, recipient: access.recipient }
}

/** What the transmittal's status is once its recipients' are as given. */
export function rolledUp(row: Pick<TransmittalRow, 'responseDueDate'>, recipients: ReadonlyArray<{ status: string }>): TransmittalStatus {
  if (recipients.length === 0) return 'sent'
  if (row.responseDueDate !== null && recipients.every((r) => r.status === 'responded')) return 'responded'
  if (recipients.every((r) => r.status === 'acknowledged' || r.status === 'responded')) return 'acknowledged'
  return 'sent'
}

async function afterReceipt(ctx: DomainContext, row: TransmittalRow, event: string): Promise<Transmittal> {
  const recipients = await ctx.tx
    .select({ status: transmittalRecipients.status })
    .from(transmittalRecipients)
    .where(and(eq(transmittalRecipients.tenantId, ctx.actor.tenantId), eq(transmittalRecipients.transmittalId, row.id)))
  // Outside contacts (their links not revoked) count as recipients too.
  const status = rolledUp(row, [...recipients, ...(await liveOutsideStatuses(ctx, row.id))])
  return transmittalView(ctx, await touch(ctx, row, status === row.status ? {} : { status }, { event, ...(status !== row.status && { status }) }))
}

export async function acknowledgeTransmittal(ctx: DomainContext, transmittalId: string): Promise<Transmittal> {
  const { row, recipient } = await myEntry(ctx, transmittalId)
  if (recipient.status !== 'sent' && recipient.status !== 'opened') throw stateProblem(row, `You have ${recipient.status} this transmittal already.`)
  await ctx.tx
    .update(transmittalRecipients)
    .set({ status: 'acknowledged', acknowledgedAt: ctx.now, openedAt: recipient.openedAt ?? ctx.now })
    .where(and(eq(transmittalRecipients.tenantId, ctx.actor.tenantId), eq(transmittalRecipients.id, recipient.id)))
  return afterReceipt(ctx, row, 'acknowledged')
}

/** A response acknowledges too (one cannot answer what one has not received). */
export async function respondToTransmittal(ctx: DomainContext, transmittalId: string, response: string): Promise<Transmittal> {
  const { row, recipient } = await myEntry(ctx, transmittalId)
  if (recipient.status === 'responded') throw stateProblem(row, 'You have responded to this transmittal already.')
  await ctx.tx
    .update(transmittalRecipients)
    .set({ status: 'responded', response, respondedAt: ctx.now, acknowledgedAt: recipient.acknowledgedAt ?? ctx.now, openedAt: recipient.openedAt ?? ctx.now })
    .where(and(eq(transmittalRecipients.tenantId, ctx.actor.tenantId), eq(transmittalRecipients.id, recipient.id)))
  return afterReceipt(ctx, row, 'responded')
}
