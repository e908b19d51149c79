import { PAGE, type Pdf } from '#server/domain/formats/pdf'
import type { ImageSource, PdfImage } from './pictures'

/**
 * Images on a PDF page: fitted into a box keeping their proportions, top-left at (x, y), and a
 * link over them (the item's page) when given. Returns the size drawn.
 */
export function drawImage(doc: Pdf, image: PdfImage, x: number, y: number, box: { width: number; height: number }, link?: string): { width: number; height: number } {
  const scale = Math.min(box.width / image.width, box.height / image.height)
  const width = image.width * scale
  const height = image.height * scale
  doc.image(image.bytes, x, y, { width, height })
  if (link) doc.link(x, y, width, height, link)
  return { width, height }
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
