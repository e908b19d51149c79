import { and, eq, inArray, isNotNull } from 'drizzle-orm'
import { transmittalRecipients, transmittalRevisions, transmittals } from '#server/db/schema-doc-control'
import type { DomainContext } from '#server/domain/tenancy/context'
import { notifyFrom } from './notifications'

/**
 * Revision superseded (an in-app notification only; no mail exists for it): the people a sent
 * transmittal gave the old revision to are told that a newer one replaces it. Call in the
 * transaction that supersedes it.
 */
export async function notifySuperseded(
  ctx: DomainContext,
  document: { id: string; number: string },
  superseded: { id: string; code: string | null },
  next: { code: string },
): Promise<string[]> {
  const sentWith = await ctx.tx
    .select({ id: transmittalRevisions.transmittalId })
    .from(transmittalRevisions)
    .innerJoin(transmittals, and(eq(transmittals.tenantId, transmittalRevisions.tenantId), eq(transmittals.id, transmittalRevisions.transmittalId)))
    .where(and(eq(transmittalRevisions.tenantId, ctx.actor.tenantId), eq(transmittalRevisions.revisionId, superseded.id), isNotNull(transmittals.sentAt)))
  if (sentWith.length === 0) return []
  const recipients = await ctx.tx
    .select({ userId: transmittalRecipients.userId })
    .from(transmittalRecipients)
    .where(
      and(
        eq(transmittalRecipients.tenantId, ctx.actor.tenantId),
        inArray(
          transmittalRecipients.transmittalId,
          sentWith.map((t) => t.id),
        ),
      ),
    )
  const old = superseded.code ? ` ${superseded.code}` : ''
  return notifyFrom(
    ctx,
    recipients.map((r) => r.userId),
    { kind: 'revision-superseded', title: `${document.number}${old} is superseded by ${next.code}`, link: `/documents/${document.id}` },
  )
}
