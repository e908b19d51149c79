import { announcePhotosChanged } from './announce'
import { and, asc, eq, inArray, isNull, max, sql } from 'drizzle-orm'
import { photos } from '#server/db/schema-photos'
import { Problem, problems } from '#server/http/problem'
import type { DomainContext } from '../tenancy/context'
import { findItem } from '../reporting/item-view'
import { ensure } from '../reporting/permissions'
import { photoColumns, toPhotos, type Photo, type PhotoRow } from './photos'

/**
 * The order of an item's photos (docs/photos.md "Order"). Every change to it takes the item's
 * order lock for the rest of its transaction and leaves the live photos numbered 0, 1, 2…, so two
 * people reordering at once are applied one after the other, never mixed, and no two photos share
 * a place.
 */

/** Serialises every change to one item's photo order (reorder, move one, add one) within its transaction. */
export async function lockPhotoOrder(ctx: DomainContext, itemId: string): Promise<void> {
  await ctx.tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`photo-order:${ctx.actor.tenantId}:${itemId}`}, 0))`)
}

/** The item's live photos in their current order (sortOrder, then oldest first). */
async function orderedRows(ctx: DomainContext, itemId: string): Promise<PhotoRow[]> {
  return ctx.tx
    .select(photoColumns)
    .from(photos)
    .where(and(eq(photos.tenantId, ctx.actor.tenantId), eq(photos.itemId, itemId), isNull(photos.deletedAt)))
    .orderBy(asc(photos.sortOrder), asc(photos.createdAt), asc(photos.id))
}

/** Gives each photo its index as sortOrder, writing only those that change. */
async function renumber(ctx: DomainContext, ordered: readonly PhotoRow[], touched?: string): Promise<PhotoRow[]> {
  const changed = ordered.flatMap((row, index) => (row.sortOrder === index && row.id !== touched ? [] : [{ row, index }]))
  if (changed.length > 0) {
    const ids = changed.map((c) => c.row.id)
    const cases = sql.join(
      changed.map((c) => sql`when ${c.row.id}::uuid then ${c.index}::integer`),
      sql` `,
    )
    await ctx.tx
      .update(photos)
      .set({ sortOrder: sql`case ${photos.id} ${cases} end`, updatedAt: ctx.now })
      .where(and(eq(photos.tenantId, ctx.actor.tenantId), inArray(photos.id, ids)))
  }
  const moved = new Set(changed.map((c) => c.row.id))
  return ordered.map((row, index) => (moved.has(row.id) ? { ...row, sortOrder: index, updatedAt: ctx.now } : row))
}

export function orderMismatch(current: readonly string[]): Problem {
  return new Problem({
    status: 409,
    title: 'Conflict',
    detail: 'The list must name each photo of the item exactly once; the photos have changed since it was read.',
    code: 'KR_PHOTO_ORDER_MISMATCH',
    remediation: 'Reload the photos and apply the order again.',
    extensions: { photoIds: current },
  })
}

/**
 * PUT /api/items/{itemId}/photos/order: the full ordered list of the item's live photo ids,
 * applied in one transaction. A list that does not name exactly the item's photos (one added or
 * deleted meanwhile, another item's, a stranger) answers 409 with the current order.
 */
export async function reorderPhotos(ctx: DomainContext, itemId: string, photoIds: readonly string[]): Promise<Photo[]> {
  const item = await findItem(ctx, itemId)
  ensure(ctx.actor, 'item.respond')
  if (new Set(photoIds).size !== photoIds.length) {
    throw new Problem(problems.badRequest('Some fields are not valid.', { photoIds: ['Name each photo only once.'] }))
  }
  await lockPhotoOrder(ctx, item.id)
  const current = await orderedRows(ctx, item.id)
  const byId = new Map(current.map((row) => [row.id, row]))
  const wanted = photoIds.flatMap((id) => byId.get(id) ?? [])
  if (wanted.length !== photoIds.length || wanted.length !== current.length) throw orderMismatch(current.map((r) => r.id))
  const renumbered = await renumber(ctx, wanted)
  await announcePhotosChanged(ctx, item.id)
  return toPhotos(ctx, renumbered)
}

/**
 * PATCH /api/photos/{id} with sortOrder: the photo moves to that place (0 is first; past the end
 * is last) and the others shift to make room, in the same transaction, so no two share a place.
 */
export async function movePhotoTo(ctx: DomainContext, row: PhotoRow, position: number): Promise<PhotoRow> {
  await lockPhotoOrder(ctx, row.itemId)
  const others = (await orderedRows(ctx, row.itemId)).filter((r) => r.id !== row.id)
  const at = Math.min(position, others.length)
  const moved = await renumber(ctx, [...others.slice(0, at), row, ...others.slice(at)], row.id)
  const self = moved[at]
  if (!self) throw new Error('photo not placed')
  return self
}

/** The place of a new photo: last. Call with the order lock held (lockPhotoOrder). */
export async function nextSortOrder(ctx: DomainContext, itemId: string): Promise<number> {
  const [row] = await ctx.tx
    .select({ last: max(photos.sortOrder) })
    .from(photos)
    .where(and(eq(photos.tenantId, ctx.actor.tenantId), eq(photos.itemId, itemId), isNull(photos.deletedAt)))
  return row?.last === null || row?.last === undefined ? 0 : row.last + 1
}
