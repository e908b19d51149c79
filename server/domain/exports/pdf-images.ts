import { PAGE, type Pdf } from '#server/domain/formats/pdf'
import type { ImageOptions, ImageSource, PdfImage } from './pictures'

/** pdfkit's own image object (`PDFDocument#openImage`, missing from its types): drawn again, it is one object in the file, embedded once. */
type OpenedImage = { width: number; height: number }
/** An image already opened in a document, to draw again and again (a sheet under every item pinned on it). */
export type ReusedImage = { opened: OpenedImage; width: number; height: number }

/**
 * Images on a PDF page: fitted into a box keeping their proportions, top-left at (x, y), and a
 * link over them (the item's page) when given. Returns the size drawn.
 */
export function drawImage(doc: Pdf, image: PdfImage | ReusedImage, x: number, y: number, box: { width: number; height: number }, link?: string): { width: number; height: number } {
  const scale = Math.min(box.width / image.width, box.height / image.height)
  const width = image.width * scale
  const height = image.height * scale
  // pdfkit draws an image object it already has (it takes anything with a width and a height as one) without reading it again.
  doc.image('opened' in image ? (image.opened as unknown as Buffer) : image.bytes, x, y, { width, height })
  if (link) doc.link(x, y, width, height, link)
  return { width, height }
}

const reused = new WeakMap<Pdf, Map<string, ReusedImage | null>>()

/**
 * An image that may come again in the same document (the sheet of a drawing many items are pinned
 * on): read, re-encoded and embedded once, then drawn again from the same object, so neither the
 * time nor the file's size grows with every item pinned on it. Null (remembered too) when it
 * cannot be read.
 */
export async function reusedImage(doc: Pdf, images: ImageSource, key: string, maxPixels: number, options: ImageOptions = {}): Promise<ReusedImage | null> {
  let known = reused.get(doc)
  if (!known) {
    known = new Map()
    reused.set(doc, known)
  }
  const id = `${key}\u0000${maxPixels}\u0000${options.rotation ?? 0}`
  const had = known.get(id)
  if (had !== undefined) return had
  const image = await images(key, maxPixels, options)
  const opened = image ? { opened: (doc as unknown as { openImage(src: Buffer): OpenedImage }).openImage(image.bytes), width: image.width, height: image.height } : null
  known.set(id, opened)
  return opened
}

const LOGO_BOX = { width: 180, height: 64 }

/** The organisation's logo at the cursor (at most 180 × 64 points); nothing when it cannot be read. */
export async function drawLogo(doc: Pdf, images: ImageSource, key: string): Promise<void> {
  const logo = await images(key, 600)
  if (!logo) return
  const top = doc.y
  const drawn = drawImage(doc, logo, PAGE.margin, top, LOGO_BOX)
  doc.x = PAGE.margin
  doc.y = top + drawn.height + 12
}
