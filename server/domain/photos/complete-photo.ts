import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { photos } from '#server/db/schema-photos'
import type { DomainContext } from '../tenancy/context'
import { findItem } from '../reporting/item-view'
import { announcePhotosChanged } from './announce'
import { crashPoint } from './crash-point'
import { displayFileName } from './file-name'
import { sniffImageType, type ImageType } from './images'
import { lockPhotoOrder, nextSortOrder } from './order'
import { deleteBlobs, photoColumns, photoKey, storeRenditions, toPhoto, typeProblem, UnreadableImageError, type Photo, type PhotoRuntime } from './photos'
import { ensureQuota } from '../uploads/quota'
import { checkStaged, ensureStillCompleting, markCompleted, markFailed, reopen } from '../uploads/complete'
import type { SessionRow } from '../uploads/session'

/**
 * What completing a photo session makes (docs/photos.md "Upload protocol", step 4): the type read
 * from the bytes (a JPEG, PNG, WebP, HEIC or HEIF, else 415 and the session fails), the file moved
 * into place, its renditions, and the photo, last in the item's order.
 */

/** A completed photo session's photo, for a retry of complete. */
export async function replayPhoto(ctx: DomainContext, row: SessionRow): Promise<Photo | undefined> {
  if (!row.photoId) return undefined
  const [photo] = await ctx.tx
    .select(photoColumns)
    .from(photos)
    .where(and(eq(photos.tenantId, ctx.actor.tenantId), eq(photos.id, row.photoId)))
    .limit(1)
  return photo ? toPhoto(ctx, photo) : undefined
}

/** Finishes a claimed photo session (upload-complete.ts `claimSession`). */
export async function finishPhoto(rt: PhotoRuntime, row: SessionRow, tenantId: string): Promise<Photo> {
  const itemId = row.itemId
  if (itemId === null) throw new Error('a photo upload session without an item')
  const made: string[] = []
  let originalKey: string | undefined
  try {
    const { size, sha256, head } = await checkStaged(rt, row)
    const type: ImageType | undefined = sniffImageType(head.subarray(0, 64))
    if (!type) {
      await markFailed(rt, row, 'type')
      throw typeProblem()
    }
    const photoId = randomUUID()
    originalKey = photoKey(tenantId, photoId, 'original', sha256)
    await rt.store.move(row.stagingKey, originalKey)
    crashPoint('photo-complete:after-move')
    let renditions
    try {
      renditions = await storeRenditions(rt.store, originalKey, type, (name, sha) => photoKey(tenantId, photoId, name, sha))
    } catch (error) {
      if (!(error instanceof UnreadableImageError)) throw error
      await rt.store.move(originalKey, row.stagingKey)
      originalKey = undefined
      await markFailed(rt, row, 'unreadable')
      throw typeProblem('The file could not be read as an image.')
    }
    if (renditions.displayKey) made.push(renditions.displayKey)
    if (renditions.thumbnailKey) made.push(renditions.thumbnailKey)
    const stored = originalKey
    return await rt.run(async (ctx) => {
      await ensureStillCompleting(ctx, row.id)
      const item = await findItem(ctx, itemId)
      await ensureQuota(ctx, size, { exceptSessionId: row.id })
      await lockPhotoOrder(ctx, item.id)
      const [inserted] = await ctx.tx
        .insert(photos)
        .values({
          tenantId,
          id: photoId,
          itemId: item.id,
          uploadedBy: ctx.actor.userId,
          fileName: row.fileName,
          displayName: displayFileName(row.fileName),
          contentType: type,
          sizeBytes: size,
          width: renditions.width,
          height: renditions.height,
          sha256,
          sortOrder: await nextSortOrder(ctx, item.id),
          originalKey: stored,
          displayKey: renditions.displayKey,
          thumbnailKey: renditions.thumbnailKey,
          createdAt: ctx.now,
          updatedAt: ctx.now,
        })
        .returning(photoColumns)
      if (!inserted) throw new Error('photo not stored')
      await markCompleted(ctx, row.id, { photoId })
      await announcePhotosChanged(ctx, item.id)
      return toPhoto(ctx, inserted)
    })
  } catch (error) {
    // Anything but a refusal that failed the session leaves it open, the bytes back in staging.
    await deleteBlobs(rt, made)
    if (originalKey) {
      try {
        await rt.store.move(originalKey, row.stagingKey)
      } catch (moveError) {
        rt.warn({ err: moveError, key: originalKey }, 'an upload could not be put back in staging')
      }
    }
    await reopen(rt, row)
    throw error
  }
}
