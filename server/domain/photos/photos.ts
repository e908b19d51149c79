import { announcePhotosChanged } from './announce'
import { createHash, randomUUID } from 'node:crypto'
import type { Readable } from 'node:stream'
import { and, asc, desc, eq, inArray, isNull } from 'drizzle-orm'
import { reusableSelect, type ValueOf } from '#server/db/reusable-select'
import { photoEdits, photos } from '#server/db/schema-photos'
import { reportItems } from '#server/db/schema-reporting'
import { Problem, problems } from '#server/http/problem'
import { hashBlob, type BlobStore } from '#server/storage/blob-store'
import type { UploadRuntime } from '#server/domain/uploads/runtime'
import type { DomainContext } from '../tenancy/context'
import { findItem } from '../reporting/item-view'
import { isUuid } from '~/lib/schemas/uuid'
import { can, ensure } from '../reporting/permissions'
import { refOf, userRefs, type UserRef } from '../tenancy/user-refs'
import { makeRenditions, sniffImageType, type ImageType } from './images'
import { ensureQuota } from '../uploads/quota'
import { renditionQueue } from './work-queue'

/**
 * Photos of report items (docs/photos.md): the Photo JSON, listing, caption and order, deletion,
 * and edited versions (markup flattened into a new image, its overlay kept for re-editing).
 */

export const MAX_FILE_BYTES = 50 * 1024 * 1024
export const ALLOWED_TYPES: readonly ImageType[] = ['image/jpeg', 'image/png', 'image/webp', 'image/heic', 'image/heif']

/** The photos' operations run on the upload engine's runtime. */
export type PhotoRuntime = UploadRuntime

export type PhotoEdit = {
  id: string
  photoId: string
  overlayJson: unknown
  contentType: string
  sizeBytes: number
  editedBy: UserRef | null
  createdAtUtc: string
  fileUrl: string
  displayUrl: string | null
  thumbnailUrl: string | null
}

export type Photo = {
  id: string
  itemId: string
  /** The name as the client sent it (the original's download keeps it); show displayName instead. */
  fileName: string
  /** The cleaned name to show: basename only, no control characters, trimmed, ≤ 120 characters, never empty. */
  displayName: string
  contentType: string
  sizeBytes: number
  width: number | null
  height: number | null
  sha256: string
  sortOrder: number
  caption: string | null
  /** Bumped by every change of its caption or place (expectedRevision). */
  revision: number
  uploadedBy: UserRef | null
  createdAtUtc: string
  updatedAtUtc: string
  thumbnailUrl: string | null
  displayUrl: string | null
  /** The file as uploaded (with its metadata): only for members who may edit photos. */
  originalUrl: string | null
  /** The latest edited version, if any. */
  edit: PhotoEdit | null
}

export const photoColumns = {
  id: photos.id,
  itemId: photos.itemId,
  uploadedBy: photos.uploadedBy,
  fileName: photos.fileName,
  displayName: photos.displayName,
  contentType: photos.contentType,
  sizeBytes: photos.sizeBytes,
  width: photos.width,
  height: photos.height,
  sha256: photos.sha256,
  sortOrder: photos.sortOrder,
  caption: photos.caption,
  originalKey: photos.originalKey,
  displayKey: photos.displayKey,
  thumbnailKey: photos.thumbnailKey,
  revision: photos.revision,
  updatedBy: photos.updatedBy,
  createdAt: photos.createdAt,
  updatedAt: photos.updatedAt,
}
export type PhotoRow = {
  id: string
  itemId: string
  uploadedBy: string | null
  fileName: string
  displayName: string
  contentType: string
  sizeBytes: number
  width: number | null
  height: number | null
  sha256: string
  sortOrder: number
  caption: string | null
  originalKey: string
  displayKey: string | null
  thumbnailKey: string | null
  createdAt: Date
  revision: number
  updatedBy: string | null
  updatedAt: Date
}

export const editColumns = {
  id: photoEdits.id,
  photoId: photoEdits.photoId,
  editedBy: photoEdits.editedBy,
  overlayJson: photoEdits.overlayJson,
  contentType: photoEdits.contentType,
  sizeBytes: photoEdits.sizeBytes,
  blobKey: photoEdits.blobKey,
  displayKey: photoEdits.displayKey,
  thumbnailKey: photoEdits.thumbnailKey,
  createdAt: photoEdits.createdAt,
}
export type EditRow = {
  id: string
  photoId: string
  editedBy: string | null
  overlayJson: unknown
  contentType: string
  sizeBytes: number
  blobKey: string
  displayKey: string | null
  thumbnailKey: string | null
  createdAt: Date
}

// ---- Keys and URLs ----

/** Served keys end in `.{sha256}` of their bytes: the ETag, and the version in the URL. */
export function shaOfKey(key: string): string {
  return key.slice(key.lastIndexOf('.') + 1)
}

/** A rendition's key names its type before the hash: `…/display-webp.{sha256}` is image/webp. */
export function renditionType(key: string): string {
  const name = key.slice(key.lastIndexOf('/') + 1, key.lastIndexOf('.'))
  return `image/${name.slice(name.lastIndexOf('-') + 1)}`
}

export function photoKey(tenantId: string, photoId: string, name: string, sha256: string): string {
  return `${tenantId}/photos/${photoId}/${name}.${sha256}`
}

const HEIF = new Set(['image/heic', 'image/heif'])

/** Browsers show JPEG, PNG and WebP: without a rendition, those originals are shown as they are. */
export function browserShows(contentType: string): boolean {
  return !HEIF.has(contentType)
}

function versioned(path: string, key: string | null): string | null {
  return key === null ? null : `${path}?v=${shaOfKey(key).slice(0, 16)}`
}

/** The blob served for a variant of the original: the rendition, else the original when a browser shows it. */
export function servedKey(row: { displayKey: string | null; thumbnailKey: string | null; originalKey: string; contentType: string }, variant: 'display' | 'thumbnail'): string | null {
  const rendition = variant === 'display' ? row.displayKey : row.thumbnailKey
  if (rendition) return rendition
  return browserShows(row.contentType) ? row.originalKey : null
}

export function servedEditKey(row: { displayKey: string | null; thumbnailKey: string | null; blobKey: string; contentType: string }, variant: 'display' | 'thumbnail' | 'file'): string | null {
  if (variant === 'file') return row.blobKey
  return servedKey({ ...row, originalKey: row.blobKey }, variant)
}

/** May edit photos (upload, caption, order, markup): the item.respond right. */
export function mayEditPhotos(ctx: DomainContext): boolean {
  return can(ctx.actor, 'item.respond')
}

/** Deleting a photo: its uploader (still a writer) or an administrator. */
export function ensureMayDeletePhoto(ctx: DomainContext, row: { uploadedBy: string | null }): void {
  const admin = ctx.actor.roleKey === 'admin'
  const own = row.uploadedBy !== null && row.uploadedBy === ctx.actor.userId && can(ctx.actor, 'item.respond')
  if (!admin && !own) throw new Problem(problems.forbidden('Only the photo’s uploader or an administrator may delete it.'))
}

export async function toPhotos(ctx: DomainContext, rows: PhotoRow[]): Promise<Photo[]> {
  const ids = rows.map((r) => r.id)
  const edits =
    ids.length === 0
      ? []
      : await ctx.tx
          .select(editColumns)
          .from(photoEdits)
          .where(and(eq(photoEdits.tenantId, ctx.actor.tenantId), inArray(photoEdits.photoId, ids)))
          .orderBy(desc(photoEdits.createdAt), desc(photoEdits.id))
  const latest = new Map<string, EditRow>()
  for (const edit of edits) if (!latest.has(edit.photoId)) latest.set(edit.photoId, edit)
  const refs = await userRefs(ctx, [...rows.map((r) => r.uploadedBy), ...[...latest.values()].map((e) => e.editedBy)])
  const editor = mayEditPhotos(ctx)
  return rows.map((row) => {
    const base = `/api/photos/${row.id}`
    const edit = latest.get(row.id)
    return {
      id: row.id,
      itemId: row.itemId,
      fileName: row.fileName,
      displayName: row.displayName,
      contentType: row.contentType,
      sizeBytes: row.sizeBytes,
      width: row.width,
      height: row.height,
      sha256: row.sha256,
      sortOrder: row.sortOrder,
      caption: row.caption,
      revision: row.revision,
      uploadedBy: refOf(refs, row.uploadedBy),
      createdAtUtc: row.createdAt.toISOString(),
      updatedAtUtc: row.updatedAt.toISOString(),
      thumbnailUrl: versioned(`${base}/thumbnail`, servedKey(row, 'thumbnail')),
      displayUrl: versioned(`${base}/display`, servedKey(row, 'display')),
      originalUrl: editor ? versioned(`${base}/original`, row.originalKey) : null,
      edit: edit
        ? {
            id: edit.id,
            photoId: edit.photoId,
            overlayJson: edit.overlayJson,
            contentType: edit.contentType,
            sizeBytes: edit.sizeBytes,
            editedBy: refOf(refs, edit.editedBy),
            createdAtUtc: edit.createdAt.toISOString(),
            fileUrl: versioned(`${base}/edits/${edit.id}/file`, edit.blobKey) ?? '',
            displayUrl: versioned(`${base}/edits/${edit.id}/display`, servedEditKey(edit, 'display')),
            thumbnailUrl: versioned(`${base}/edits/${edit.id}/thumbnail`, servedEditKey(edit, 'thumbnail')),
          }
        : null,
    } satisfies Photo
  })
}

export async function toPhoto(ctx: DomainContext, row: PhotoRow): Promise<Photo> {
  const [photo] = await toPhotos(ctx, [row])
  if (!photo) throw new Error('photo view not built')
  return photo
}

/** A live photo of the tenant on a live item, or 404 (another tenant's id reads the same). */
export async function findPhoto(ctx: DomainContext, id: string, options: { lock?: boolean } = {}): Promise<PhotoRow> {
  if (!isUuid(id)) throw new Problem(problems.notFound('The photo was not found.'))
  const query = ctx.tx
    .select(photoColumns)
    .from(photos)
    .innerJoin(reportItems, and(eq(reportItems.tenantId, photos.tenantId), eq(reportItems.id, photos.itemId)))
    .where(and(eq(photos.tenantId, ctx.actor.tenantId), eq(photos.id, id), isNull(photos.deletedAt), isNull(reportItems.deletedAt)))
    .limit(1)
  const [row] = options.lock ? await query.for('update', { of: photos }) : await query
  if (!row) throw new Problem(problems.notFound('The photo was not found.'))
  return row
}

/** GET /api/items/{id}/photos: in sortOrder, then oldest first. */
export async function listPhotos(ctx: DomainContext, itemId: string): Promise<Photo[]> {
  const item = await findItem(ctx, itemId)
  return toPhotos(ctx, await photosStatement(ctx.tx, { tenantId: ctx.actor.tenantId, itemId: item.id }))
}

/** Every item page reads them: built once (server/db/reusable-select.ts). */
const photosStatement = reusableSelect((tx, value: ValueOf<{ tenantId: string; itemId: string }>) =>
  tx
    .select(photoColumns)
    .from(photos)
    .where(and(eq(photos.tenantId, value('tenantId')), eq(photos.itemId, value('itemId')), isNull(photos.deletedAt)))
    .orderBy(asc(photos.sortOrder), asc(photos.createdAt), asc(photos.id)),
)

/** DELETE /api/photos/{id}: the row stays (responses may name it), marked deleted; the bytes go. */
export async function deletePhoto(rt: PhotoRuntime, id: string): Promise<void> {
  const keys = await rt.run(async (ctx) => {
    const row = await findPhoto(ctx, id, { lock: true })
    ensureMayDeletePhoto(ctx, row)
    await ctx.tx.update(photos).set({ deletedAt: ctx.now, updatedAt: ctx.now }).where(and(eq(photos.tenantId, ctx.actor.tenantId), eq(photos.id, row.id)))
    await announcePhotosChanged(ctx, row.itemId)
    const edits = await ctx.tx
      .select({ blobKey: photoEdits.blobKey, displayKey: photoEdits.displayKey, thumbnailKey: photoEdits.thumbnailKey })
      .from(photoEdits)
      .where(and(eq(photoEdits.tenantId, ctx.actor.tenantId), eq(photoEdits.photoId, row.id)))
    return [row.originalKey, row.displayKey, row.thumbnailKey, ...edits.flatMap((e) => [e.blobKey, e.displayKey, e.thumbnailKey])]
  })
  await deleteBlobs(rt, keys)
}

export async function deleteBlobs(rt: PhotoRuntime, keys: (string | null)[]): Promise<void> {
  for (const key of keys) {
    if (key === null) continue
    try {
      await rt.store.delete(key)
    } catch (error) {
      rt.warn({ err: error, key }, 'a photo blob could not be deleted')
    }
  }
}

// ---- Renditions (server/domain/photos/images.ts) ----

export class UnreadableImageError extends Error {
  override name = 'UnreadableImageError'
}

/**
 * Display and thumbnail renditions of a stored image, stored beside it. A type the image code
 * cannot decode (UnsupportedImageError, e.g. HEIC) stores none; a file that claims a type by its
 * first bytes but cannot be read throws UnreadableImageError.
 */
export async function storeRenditions(
  store: BlobStore,
  sourceKey: string,
  type: ImageType,
  keyOf: (name: string, sha256: string) => string,
): Promise<{ width: number | null; height: number | null; displayKey: string | null; thumbnailKey: string | null }> {
  const none = { width: null, height: null, displayKey: null, thumbnailKey: null }
  let made: Awaited<ReturnType<typeof makeRenditions>>
  try {
    made = await renditionQueue.run(() => store.withLocalFile(sourceKey, (file) => makeRenditions(file, type)))
  } catch (error) {
    if (error instanceof Problem) throw error
    if (error instanceof Error && error.name === 'UnsupportedImageError') return none
    throw new UnreadableImageError('the image could not be read', { cause: error })
  }
  const stored: string[] = []
  try {
    const keys = { display: '', thumbnail: '' }
    for (const name of ['display', 'thumbnail'] as const) {
      const rendition = made[name]
      const sha256 = createHash('sha256').update(rendition.bytes).digest('hex')
      const subtype = /^image\/([a-z0-9]+)$/.exec(rendition.contentType)?.[1] ?? 'jpeg'
      const key = keyOf(`${name}-${subtype}`, sha256)
      await store.put(key, rendition.bytes)
      stored.push(key)
      keys[name] = key
    }
    return { width: made.width, height: made.height, displayKey: keys.display, thumbnailKey: keys.thumbnail }
  } catch (error) {
    for (const key of stored) await store.delete(key)
    throw error
  }
}

// ---- Edited versions ----

export type NewEdit = { photoId: string; file: Readable; overlayJson: unknown }

export function typeProblem(detail = 'The file is not a JPEG, PNG, WebP, HEIC or HEIF image.'): Problem {
  return new Problem({
    status: 415,
    title: 'Unsupported media type',
    detail,
    code: 'KR_UPLOAD_TYPE',
    remediation: 'Send a JPEG, PNG, WebP, HEIC or HEIF photo.',
    extensions: { allowedTypes: ALLOWED_TYPES },
  })
}

/**
 * POST /api/photos/edits: the edited image is stored beside the original (staged, checked by its
 * bytes, then moved into place), with its overlay; the Photo answered carries it as `edit`.
 */
export async function createEdit(rt: PhotoRuntime, input: NewEdit): Promise<Photo> {
  const { tenantId } = await rt.run(async (ctx) => {
    await findPhoto(ctx, input.photoId)
    ensure(ctx.actor, 'item.respond')
    return ctx.actor
  })
  const editId = randomUUID()
  const staged = `staging/${tenantId}/edit-${editId}`
  await rt.store.put(staged, input.file)
  const moved: string[] = []
  try {
    const { size, sha256, head } = await hashBlob(rt.store, staged)
    if (size > MAX_FILE_BYTES) throw tooLarge(size)
    const type = sniffImageType(head.subarray(0, 64))
    if (!type) throw typeProblem()
    const blobKey = photoKey(tenantId, input.photoId, `edit-${editId}`, sha256)
    await rt.store.move(staged, blobKey)
    moved.push(blobKey)
    let renditions
    try {
      renditions = await storeRenditions(rt.store, blobKey, type, (name, sha) => photoKey(tenantId, input.photoId, `edit-${editId}-${name}`, sha))
    } catch (error) {
      if (error instanceof UnreadableImageError) throw typeProblem('The file could not be read as an image.')
      throw error
    }
    if (renditions.displayKey) moved.push(renditions.displayKey)
    if (renditions.thumbnailKey) moved.push(renditions.thumbnailKey)
    return await rt.run(async (ctx) => {
      const row = await findPhoto(ctx, input.photoId, { lock: true })
      ensure(ctx.actor, 'item.respond')
      await ensureQuota(ctx, size)
      await ctx.tx.insert(photoEdits).values({
        tenantId,
        id: editId,
        photoId: row.id,
        editedBy: ctx.actor.userId,
        overlayJson: input.overlayJson,
        contentType: type,
        sizeBytes: size,
        blobKey,
        displayKey: renditions.displayKey,
        thumbnailKey: renditions.thumbnailKey,
        createdAt: ctx.now,
      })
      await announcePhotosChanged(ctx, row.itemId)
      return toPhoto(ctx, row)
    })
  } catch (error) {
    await deleteBlobs(rt, [staged, ...moved])
    throw error
  }
}

/** `maxBytes`: the organisation's own, lower limit (Storage › largest photo), when it has one. */
export function tooLarge(size: number, maxBytes = MAX_FILE_BYTES): Problem {
  return new Problem({
    status: 413,
    title: 'File too large',
    detail: `A photo may be at most ${maxBytes / (1024 * 1024)} MB.`,
    code: 'KR_UPLOAD_TOO_LARGE',
    remediation: 'Downscale the photo and send it again.',
    extensions: { maxBytes, sizeBytes: size },
  })
}
