import { and, eq } from 'drizzle-orm'
import { queueCommittedChange } from '#server/db/committed-changes'
import { reportItems } from '#server/db/schema-reporting'
import type { DomainContext } from '../tenancy/context'

/**
 * A change of an item's photos (added, edited, captioned, moved, deleted) is announced to realtime
 * as an update of the item once the transaction commits, so a screen showing the item reloads it.
 * It is not a change of the item itself: the item keeps its revision (sync carries no photos, and an
 * open edit form must not meet a conflict because a photo arrived), so nothing goes into the change log.
 */
export async function announcePhotosChanged(ctx: DomainContext, itemId: string): Promise<void> {
  const [item] = await ctx.tx
    .select({ revision: reportItems.revision })
    .from(reportItems)
    .where(and(eq(reportItems.tenantId, ctx.actor.tenantId), eq(reportItems.id, itemId)))
  if (!item) return
  queueCommittedChange(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    entity: 'ReportItem',
    entityId: itemId,
    changeType: 'Updated',
    revision: item.revision,
    changedAt: ctx.now,
    actorUserId: ctx.actor.userId,
  })
}
