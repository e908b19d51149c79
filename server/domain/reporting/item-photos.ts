import { and, eq, inArray, isNull } from 'drizzle-orm'
import { photos } from '#server/db/schema-photos'
import type { DomainContext } from '#server/domain/tenancy/context'
import { isUuid } from '~/lib/schemas/uuid'

/** The ids among `ids` that are not live photos of the item: what a response may not attach. */
export async function photosNotOnItem(ctx: DomainContext, itemId: string, ids: string[]): Promise<string[]> {
  const wanted = [...new Set(ids)]
  const valid = wanted.filter(isUuid)
  const found =
    valid.length === 0
      ? []
      : await ctx.tx
          .select({ id: photos.id })
          .from(photos)
          .where(and(eq(photos.tenantId, ctx.actor.tenantId), eq(photos.itemId, itemId), inArray(photos.id, valid), isNull(photos.deletedAt)))
  const known = new Set(found.map((r) => r.id))
  return wanted.filter((id) => !known.has(id))
}
