import { createHash } from 'node:crypto'
import { Problem } from '#server/http/problem'
import type { BlobStore } from '#server/storage/blob-store'
// sharp as the server sets it up (no operation cache, one libvips thread per image).
import { loadSharp } from '../photos/images'
import { renditionQueue } from '../photos/work-queue'
import { renderPdfFirstPage } from './revision-pdf'

/**
 * A drawing sheet's raster (docs/documents.md "Revisions"): what pins are placed on. A PNG, JPEG or
 * WebP revision is scaled down to it; page 1 of a PDF is rendered to it (revision-pdf.ts). Either
 * way a PNG whose longer side is at most SHEET_MAX_SIDE pixels, stored under its own key ending in
 * its hash. The work waits its turn in the photos' image queue (one job per CPU).
 */

/** The raster's longer side, in pixels: enough to read an A1 drawing's detail when zoomed. */
export const SHEET_MAX_SIDE = 4096
/** Larger images are not decoded (scanned A0 sheets at 300 dpi are about 140 megapixels). */
const SHEET_MAX_INPUT_PIXELS = 250_000_000
/** PDFium holds the whole file in memory: larger PDFs get no sheet (the file itself is stored as usual). */
export const SHEET_MAX_PDF_BYTES = 256 * 1024 * 1024

export type Sheet = { key: string; width: number; height: number }

const RASTER_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp'])

export function sheetSourceType(contentType: string, sizeBytes: number): 'image' | 'pdf' | undefined {
  if (RASTER_TYPES.has(contentType)) return 'image'
  if (contentType === 'application/pdf' && sizeBytes <= SHEET_MAX_PDF_BYTES) return 'pdf'
  return undefined
}

async function rasterOf(path: string, source: 'image' | 'pdf'): Promise<{ data: Buffer; width: number; height: number }> {
  const sharp = await loadSharp()
  const input =
    source === 'image'
      ? sharp(path, { failOn: 'error', limitInputPixels: SHEET_MAX_INPUT_PIXELS, autoOrient: true })
      : await renderPdfFirstPage(path, SHEET_MAX_SIDE).then((page) => sharp(page.rgba, { raw: { width: page.width, height: page.height, channels: 4 } }).removeAlpha())
  const { data, info } = await input
    .resize(SHEET_MAX_SIDE, SHEET_MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
    .png({ compressionLevel: 6 })
    .toBuffer({ resolveWithObject: true })
  return { data, width: info.width, height: info.height }
}

/**
 * Makes and stores the sheet raster of the blob at `sourceKey`, or answers undefined when the file
 * cannot be read as one (a corrupt or encrypted PDF, an image libvips refuses): the revision is
 * stored all the same, without a sheet. A full queue still refuses (503), as it does for photos.
 */
export async function storeSheet(
  store: BlobStore,
  sourceKey: string,
  source: 'image' | 'pdf',
  keyOf: (sha256: string) => string,
  warn: (details: Record<string, unknown>, message: string) => void,
): Promise<Sheet | undefined> {
  let raster: Awaited<ReturnType<typeof rasterOf>>
  try {
    raster = await renditionQueue.run(() => store.withLocalFile(sourceKey, (path) => rasterOf(path, source)))
  } catch (error) {
    if (error instanceof Problem) throw error
    warn({ err: error, key: sourceKey }, 'no sheet could be made of a revision')
    return undefined
  }
  const key = keyOf(createHash('sha256').update(raster.data).digest('hex'))
  await store.put(key, raster.data)
  return { key, width: raster.width, height: raster.height }
}
