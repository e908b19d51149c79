import { announcePhotosChanged } from './announce'
import { and, eq, sql } from 'drizzle-orm'
import { photos } from '#server/db/schema-photos'
import type { DomainContext } from '../tenancy/context'
import { ensure } from '../reporting/permissions'
import { refuseStaleWrite } from '../tenancy/edit-conflict'
import { movePhotoTo } from './order'
import { findPhoto, photoColumns, toPhoto, type Photo } from './photos'

export type PhotoPatch = { sortOrder?: number | undefined; caption?: string | null | undefined; expectedRevision?: number | undefined }

/**
 * PATCH /api/photos/{id}: caption, and a place in the order. A sortOrder moves the photo to that
 * place (0 first, past the end last) and shifts the others, in this one transaction. A change
 * against an older revision of the photo is refused (409 KR_EDIT_CONFLICT).
 */
export async function updatePhoto(ctx: DomainContext, id: string, patch: PhotoPatch): Promise<Photo> {
  let row = await findPhoto(ctx, id, { lock: true })
  ensure(ctx.actor, 'item.respond')
  const opened = row
  await refuseStaleWrite(ctx, { ...opened, what: 'photo' }, patch.expectedRevision, () => toPhoto(ctx, opened))
  if (patch.sortOrder !== undefined) row = await movePhotoTo(ctx, row, patch.sortOrder)
  const [updated] = await ctx.tx
    .update(photos)
    .set({ ...(patch.caption !== undefined && { caption: patch.caption }), revision: sql`${photos.revision} + 1`, updatedBy: ctx.actor.userId, updatedAt: ctx.now })
    .where(and(eq(photos.tenantId, ctx.actor.tenantId), eq(photos.id, row.id)))
    .returning(photoColumns)
  if (!updated) throw new Error('photo not updated')
  await announcePhotosChanged(ctx, updated.itemId)
  return toPhoto(ctx, updated)
}
