import { and, eq } from 'drizzle-orm'
import { photoEdits } from '#server/db/schema-photos'
import { Problem, problems } from '#server/http/problem'
import type { DomainContext } from '../tenancy/context'
import type { ServedBlob } from '../uploads/served'
import { isUuid } from '~/lib/schemas/uuid'
import { editColumns, findPhoto, mayEditPhotos, renditionType, servedEditKey, servedKey, shaOfKey } from './photos'

/**
 * Which blob a photo URL serves (docs/photos.md "Serving"), for a signed-in member of the photo's
 * tenant: the display and thumbnail renditions (or the original, when there is no rendition and
 * a browser shows its type), the original itself only to members who may edit photos, and the
 * same for an edited version. The HTTP side adds ETag, Cache-Control and Range.
 */
export type PhotoVariant = 'display' | 'thumbnail' | 'original'
export type EditVariant = 'display' | 'thumbnail' | 'file'

const noRendition = () => new Problem(problems.notFound('This photo has no rendition a browser can show; download the original instead.'))

export async function photoBlob(ctx: DomainContext, photoId: string, variant: PhotoVariant): Promise<ServedBlob> {
  const row = await findPhoto(ctx, photoId)
  if (variant === 'original') {
    if (!mayEditPhotos(ctx)) throw new Problem(problems.forbidden('Only members who may edit photos may download the original.'))
    return { key: row.originalKey, contentType: row.contentType, sha256: row.sha256, fileName: row.fileName }
  }
  const key = servedKey(row, variant)
  if (!key) throw noRendition()
  const rendition = key !== row.originalKey
  return { key, contentType: rendition ? renditionType(key) : row.contentType, sha256: shaOfKey(key), fileName: row.fileName }
}

export async function editBlob(ctx: DomainContext, photoId: string, editId: string, variant: EditVariant): Promise<ServedBlob> {
  const photo = await findPhoto(ctx, photoId)
  if (!isUuid(editId)) throw new Problem(problems.notFound('The edited version was not found.'))
  const [edit] = await ctx.tx
    .select(editColumns)
    .from(photoEdits)
    .where(and(eq(photoEdits.tenantId, ctx.actor.tenantId), eq(photoEdits.photoId, photo.id), eq(photoEdits.id, editId)))
    .limit(1)
  if (!edit) throw new Problem(problems.notFound('The edited version was not found.'))
  const key = servedEditKey(edit, variant)
  if (!key) throw noRendition()
  const rendition = key !== edit.blobKey
  return { key, contentType: rendition ? renditionType(key) : edit.contentType, sha256: shaOfKey(key), fileName: photo.fileName }
}

/**
 * One byte range of RFC 9110 §14.1.2 (`bytes=a-b`, `bytes=a-`, `bytes=-n`) against `size`:
 * 'none' to send the whole (no header, several ranges, or another unit), 'unsatisfiable' for 416.
 */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'none' | 'unsatisfiable' {
  if (!header) return 'none'
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!match) return 'none'
  const [, first = '', last = ''] = match
  if (first === '' && last === '') return 'none'
  if (first === '') {
    const suffix = Number(last)
    if (suffix === 0 || size === 0) return 'unsatisfiable'
    return { start: Math.max(0, size - suffix), end: size - 1 }
  }
  const start = Number(first)
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1)
  if (start >= size || (last !== '' && Number(last) < start)) return 'unsatisfiable'
  return { start, end }
}
