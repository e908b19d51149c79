import { readFile } from 'node:fs/promises'
import { and, asc, desc, eq, inArray, isNull } from 'drizzle-orm'
import { itemPins } from '#server/db/schema-documents'
import { photoEdits, photos } from '#server/db/schema-photos'
import { getItemPin } from '#server/domain/documents/pins'
import { revisionBlob } from '#server/domain/documents/revisions'
import { loadSharp } from '#server/domain/photos/images'
import { servedEditKey, servedKey } from '#server/domain/photos/photos'
import { renditionQueue } from '#server/domain/photos/work-queue'
import type { DomainContext } from '#server/domain/tenancy/context'
import { Problem } from '#server/http/problem'
import type { BlobStore } from '#server/storage/blob-store'

/**
 * The pictures of an export (docs/exports.md "Photos"): which blob shows each item's photos (the
 * display or thumbnail rendition of the latest edited version, so markup is applied, else of the
 * original), where an item is pinned on a drawing, and the images themselves, re-encoded for the
 * page. Only keys are read inside the tenant transaction; the bytes are read one image at a time
 * while the page is written, and every image is re-encoded by libvips, which writes no metadata
 * (no camera, no location), whatever the stored file carries.
 */

export type PhotoRef = { photoId: string; key: string; caption: string }

/** The pin of an item on a drawing's sheet, as the item's page shows it (fractions of the raster, top-left origin). */
export type PinRef = { sheetKey: string; x: number; y: number; rotation: 0 | 90 | 180 | 270; colour: string; label: string }

export type PdfImage = { bytes: Buffer; width: number; height: number }

/**
 * How an image is wanted: turned by `rotation` degrees (a sheet as the drawings overlay shows it);
 * a clean JPEG (below) of at most `keepUpTo` pixels on its longest side goes in as it is (by
 * default a little more than `maxPixels`; a photo's display rendition: its own size).
 */
export type ImageOptions = { rotation?: number; keepUpTo?: number }

/** Reads and re-encodes images for a PDF; null when a blob is missing or not readable (the page says so). */
export type ImageSource = (key: string, maxPixels: number, options?: ImageOptions) => Promise<PdfImage | null>

/** The live photos of each item, in the item page's order (sortOrder, then oldest first), with the blob to print for each. */
export async function photosOfItems(ctx: DomainContext, itemIds: string[], variant: 'display' | 'thumbnail', options: { firstOnly?: boolean } = {}): Promise<Map<string, PhotoRef[]>> {
  const result = new Map<string, PhotoRef[]>()
  if (itemIds.length === 0) return result
  const rows = await ctx.tx
    .select({
      id: photos.id,
      itemId: photos.itemId,
      caption: photos.caption,
      displayName: photos.displayName,
      contentType: photos.contentType,
      originalKey: photos.originalKey,
      displayKey: photos.displayKey,
      thumbnailKey: photos.thumbnailKey,
    })
    .from(photos)
    .where(and(eq(photos.tenantId, ctx.actor.tenantId), inArray(photos.itemId, itemIds), isNull(photos.deletedAt)))
    .orderBy(asc(photos.itemId), asc(photos.sortOrder), asc(photos.createdAt), asc(photos.id))
  const chosen = options.firstOnly ? rows.filter((row, index) => index === 0 || rows[index - 1]?.itemId !== row.itemId) : rows
  const ids = chosen.map((r) => r.id)
  const edits =
    ids.length === 0
      ? []
      : await ctx.tx
          .select({ photoId: photoEdits.photoId, blobKey: photoEdits.blobKey, displayKey: photoEdits.displayKey, thumbnailKey: photoEdits.thumbnailKey, contentType: photoEdits.contentType })
          .from(photoEdits)
          .where(and(eq(photoEdits.tenantId, ctx.actor.tenantId), inArray(photoEdits.photoId, ids)))
          .orderBy(desc(photoEdits.createdAt), desc(photoEdits.id))
  const latest = new Map<string, (typeof edits)[number]>()
  for (const edit of edits) if (!latest.has(edit.photoId)) latest.set(edit.photoId, edit)
  for (const row of chosen) {
    const edit = latest.get(row.id)
    const key = edit ? servedEditKey(edit, variant) : servedKey(row, variant)
    // A HEIC without renditions has nothing a page can show: it is counted, not printed.
    const list = result.get(row.itemId) ?? []
    list.push({ photoId: row.id, key: key ?? '', caption: row.caption?.trim() || row.displayName })
    result.set(row.itemId, list)
  }
  return result
}

/**
 * Where each of the items is pinned, for those pinned on a drawing the caller may see (as
 * GET /api/items/{id}/pin answers them) whose revision has a sheet.
 */
export async function pinsOfItems(ctx: DomainContext, itemIds: string[]): Promise<Map<string, PinRef>> {
  const result = new Map<string, PinRef>()
  if (itemIds.length === 0) return result
  const pinned = await ctx.tx
    .select({ itemId: itemPins.itemId })
    .from(itemPins)
    .where(and(eq(itemPins.tenantId, ctx.actor.tenantId), inArray(itemPins.itemId, itemIds)))
  for (const { itemId } of pinned) {
    try {
      const pin = await getItemPin(ctx, itemId)
      if (!pin.sheet) continue
      const sheet = await revisionBlob(ctx, pin.sheet.revisionId, 'sheet')
      result.set(itemId, {
        sheetKey: sheet.key,
        x: pin.x,
        y: pin.y,
        rotation: pin.sheet.rotation,
        colour: pin.colour,
        label: `${pin.documentNumber} ${pin.documentTitle}, revision ${pin.revisionCode}`,
      })
    } catch (error) {
      // A drawing the caller may not see hides the pin, as on the item's page.
      if (error instanceof Problem && error.init.status === 404) continue
      throw error
    }
  }
  return result
}

/** Where a point of the sheet (fractions of the raster) lands once the sheet is turned as the drawings overlay shows it. */
export function turnedPoint(rotation: PinRef['rotation'], x: number, y: number): { x: number; y: number } {
  switch (rotation) {
    case 90:
      return { x: 1 - y, y: x }
    case 180:
      return { x: 1 - x, y: 1 - y }
    case 270:
      return { x: y, y: 1 - x }
    default:
      return { x, y }
  }
}

/** Refuse decompression bombs, as the photo renditions do. */
const MAX_INPUT_PIXELS = 120_000_000

/**
 * Images read from the blob store for a page, at most `maxPixels` on the longest side. A JPEG that
 * carries no metadata (EXIF, XMP, IPTC: the renditions never do), needs no turning and is no
 * larger than `keepUpTo` is embedded byte for byte: a PDF takes JPEG as it is (DCTDecode), so the
 * display and thumbnail renditions go in without being decoded at all (decoding and encoding 600
 * display renditions was nearly all of a report's time: docs/performance.md). Anything else
 * (WebP renditions, an original with metadata, a sheet to turn) is re-encoded by libvips as JPEG
 * (flattened on white, quality 80, libjpeg-turbo without mozjpeg's slower trellis search, no
 * metadata), one at a time through the photos' work queue, so an export shares the cores with
 * uploads instead of taking them.
 */
export function storeImages(store: BlobStore): ImageSource {
  return async (key, maxPixels, { rotation = 0, keepUpTo = maxPixels * 1.6 } = {}) => {
    if (!key) return null
    const sharp = await loadSharp()
    try {
      return await store.withLocalFile(key, async (file) => {
        const input = sharp(file, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS, autoOrient: true })
        const meta = await input.metadata()
        const { width = 0, height = 0 } = meta.autoOrient
        const clean = meta.format === 'jpeg' && !meta.exif && !meta.xmp && !meta.iptc && (meta.orientation ?? 1) === 1 && meta.channels === 3
        if (clean && rotation === 0 && Math.max(width, height) <= keepUpTo) return { bytes: await readFile(file), width, height }
        return renditionQueue.run(async () => {
          const { data, info } = await input
            .rotate(rotation)
            .resize(maxPixels, maxPixels, { fit: 'inside', withoutEnlargement: true })
            .flatten({ background: '#ffffff' })
            .jpeg({ quality: 80 })
            .toBuffer({ resolveWithObject: true })
          return { bytes: data, width: info.width, height: info.height }
        })
      })
    } catch (error) {
      if (error instanceof Problem) throw error
      return null
    }
  }
}
