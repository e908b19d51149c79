import type { Database } from '#server/db/client'
import { asMember } from '#server/domain/tenancy/context'
import { listReportItems } from '#server/domain/reporting/items'
import { decodeCursor } from '#server/domain/tenancy/paging'
import { listResponses } from '#server/domain/reporting/responses'
import { PRIORITY_LABELS, STATUS_LABELS } from '~/lib/reporting/labels'
import type { Item, ItemResponse, Report } from '~/lib/reporting/types'
import { projectTitle, reportTitle } from '~/lib/reporting/types'
import { type Clock, dateOf, momentOf } from '#server/domain/formats/dates'
import { ensureRoom, PAGE, type Pdf, write } from '#server/domain/formats/pdf'
import { DISPLAY_MAX } from '#server/domain/photos/images'
import { drawImage, drawLogo, reusedImage } from './pdf-images'
import { type ImageSource, type PhotoRef, type PinRef, photosOfItems, pinsOfItems, turnedPoint } from './pictures'

/**
 * The report PDF (docs/exports.md): a cover (organisation, project, report, date, who made it),
 * then each item with its facts, description, the responses in order with who and when, and the
 * close confirmation, the drawing it is pinned on with its pin, and its photos (markup applied,
 * two per row, captioned). Items are read a batch at a time, each batch with its responses, photo
 * and pin keys in one short tenant transaction, and written before the next batch is read; the
 * images are read and re-encoded one at a time while the page is written.
 */

const BATCH = 50

type Session = { tenantId: string; userId: string }

export type ReportPdfMeta = {
  organisation: string
  /** The organisation's logo (Settings → Site), printed on the cover. */
  logoKey: string | null
  madeBy: string
  packageName: (key: string) => string
  publicUrl: string
  clock: Clock
  images: ImageSource
}

export type ItemWithResponses = { item: Item; responses: ItemResponse[]; photos: PhotoRef[]; pin: PinRef | null }

/**
 * Pixels on the longest side of an image that has to be re-encoded: a photo's cell is about
 * 250 × 200 points (≈ 220 dpi), a drawing's 260 × 180. A photo's display rendition is not
 * re-encoded at all (it is embedded as it is).
 */
export const PHOTO_PIXELS = 800
export const SHEET_PIXELS = 1000

export async function* reportItems(db: Database, session: Session, now: () => Date, reportId: string): AsyncGenerator<ItemWithResponses[]> {
  let after: string | null = null
  do {
    const cursor = after === null ? undefined : decodeCursor(after)
    const page = await asMember(db, session, now(), async (ctx) => {
      const result = await listReportItems(ctx, reportId, { limit: BATCH, after: cursor })
      const ids = result.items.map((item) => item.id)
      const [photos, pins] = await Promise.all([photosOfItems(ctx, ids, 'display'), pinsOfItems(ctx, ids)])
      const withResponses = await Promise.all(
        result.items.map(async (item) => ({ item, responses: await listResponses(ctx, item.id), photos: photos.get(item.id) ?? [], pin: pins.get(item.id) ?? null })),
      )
      return { items: withResponses, nextCursor: result.nextCursor }
    })
    if (page.items.length > 0) yield page.items
    after = page.nextCursor
  } while (after !== null)
}

export async function writeReportPdf(doc: Pdf, report: Report, meta: ReportPdfMeta, entries: AsyncIterable<ItemWithResponses[]>): Promise<void> {
  const width = doc.page.width - 2 * PAGE.margin
  const name = reportTitle(report.title)
  // Cover.
  doc.moveDown(2)
  if (meta.logoKey) await drawLogo(doc, meta.images, meta.logoKey)
  doc.moveDown(4)
  write(doc, meta.organisation, { size: 12, color: '#555555', width })
  write(doc, name, { size: 26, weight: 'bold', width })
  write(doc, projectTitle(report.projectTitle), { size: 14, width })
  doc.moveDown(1)
  const counts = report.itemCounts
  write(doc, `${counts.open + counts.closeRequested + counts.closed} items: ${counts.open} open, ${counts.closeRequested} close requested, ${counts.closed} closed`, { size: 11, width })
  write(doc, `Report started ${momentOf(report.createdAtUtc, meta.clock)}${report.createdBy ? ` by ${report.createdBy.displayName}` : ''}`, { size: 10, color: '#333333', width })
  write(doc, `Made by ${meta.madeBy} on ${momentOf(meta.clock.now.toISOString(), meta.clock)}`, { size: 10, color: '#333333', width })
  for await (const batch of entries) {
    for (const entry of batch) await writeItem(doc, entry, meta, width)
  }
}

async function writeItem(doc: Pdf, { item, responses, photos, pin }: ItemWithResponses, meta: ReportPdfMeta, width: number): Promise<void> {
  ensureRoom(doc, 120)
  doc.moveDown(0.8)
  const x = PAGE.margin
  const link = `${meta.publicUrl.replace(/\/$/, '')}/items/${item.id}`
  write(doc, `#${item.number}  ${item.title}`, { size: 13, weight: 'bold', x, y: doc.y, width, link })
  const facts = [STATUS_LABELS[item.status], PRIORITY_LABELS[item.priority], item.assignee ? `Assignee: ${item.assignee.displayName}` : 'Unassigned']
  if (item.dueDate) facts.push(`Due ${dateOf(item.dueDate, meta.clock)}${item.overdue ? ' (overdue)' : ''}`)
  if (item.packageKey) facts.push(meta.packageName(item.packageKey))
  write(doc, facts.join(' · '), { size: 9.5, x, y: doc.y, width })
  write(doc, `Next action: ${item.nextAction.label}`, { size: 9.5, x, y: doc.y, width })
  if (item.location) write(doc, `Location: ${item.location}`, { size: 9.5, x, y: doc.y, width })
  if (item.description) {
    doc.moveDown(0.3)
    write(doc, item.description, { size: 10, x, y: doc.y, width })
  }
  if (pin) await writePin(doc, pin, meta, link)
  const recorded = `Recorded ${momentOf(item.createdAtUtc, meta.clock)}${item.createdBy ? ` by ${item.createdBy.displayName}` : ''}`
  write(doc, recorded, { size: 8.5, color: '#555555', x, y: doc.y, width })
  if (responses.length > 0) {
    doc.moveDown(0.3)
    write(doc, 'Responses', { size: 10, weight: 'bold', x, y: doc.y, width })
  }
  for (const response of responses) {
    ensureRoom(doc, 36)
    const who = response.author?.displayName ?? 'A former member'
    const heading =
      response.kind === 'close_confirmed' ? `Close confirmed by ${who}` : response.kind === 'close_rejected' ? `Close rejected by ${who}` : response.requestClose ? `${who} asked to close` : who
    write(doc, `${heading} · ${momentOf(response.createdAtUtc, meta.clock)}`, { size: 9, weight: 'bold', color: '#333333', x: x + 12, y: doc.y, width: width - 12 })
    if (response.body) write(doc, response.body, { size: 9.5, x: x + 12, y: doc.y, width: width - 12 })
    if (response.photoIds.length > 0) write(doc, photoNote(response.photoIds, photos), { size: 8.5, color: '#555555', x: x + 12, y: doc.y, width: width - 12 })
  }
  if (item.status === 'closed' && item.closedAtUtc) {
    write(doc, `Closed ${momentOf(item.closedAtUtc, meta.clock)}${item.closedBy ? `, confirmed by ${item.closedBy.displayName}` : ''}`, { size: 9.5, weight: 'bold', x, y: doc.y, width })
  }
  if (photos.length > 0) await writePhotos(doc, photos, meta, link, width)
  doc.moveDown(0.4)
  doc.moveTo(x, doc.y).lineTo(x + width, doc.y).lineWidth(0.5).strokeColor('#cccccc').stroke()
}

/** "Photos 1 and 3 below": the response's photos by their number under the item (a deleted one is "1 photo removed since"). */
function photoNote(photoIds: string[], photos: PhotoRef[]): string {
  const numbers = photoIds.map((id) => photos.findIndex((p) => p.photoId === id) + 1).filter((n) => n > 0)
  const removed = photoIds.length - numbers.length
  const parts: string[] = []
  if (numbers.length > 0) parts.push(`${numbers.length === 1 ? 'Photo' : 'Photos'} ${listOf(numbers.map(String))} below`)
  if (removed > 0) parts.push(`${removed} ${removed === 1 ? 'photo' : 'photos'} since removed`)
  return parts.join('; ')
}

function listOf(words: string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`
}

const SHEET_BOX = { width: 260, height: 180 }

/** The drawing's sheet, turned as the drawings overlay shows it, with the item's pin in its status colour. */
async function writePin(doc: Pdf, pin: PinRef, meta: ReportPdfMeta, link: string): Promise<void> {
  const image = await reusedImage(doc, meta.images, pin.sheetKey, SHEET_PIXELS, { rotation: pin.rotation })
  const x = PAGE.margin
  doc.moveDown(0.3)
  if (!image) {
    write(doc, `Pinned on ${pin.label} (the sheet could not be read)`, { size: 9, color: '#555555', x, y: doc.y })
    return
  }
  ensureRoom(doc, SHEET_BOX.height + 30)
  const top = doc.y
  const box = drawImage(doc, image, x, top, SHEET_BOX, link)
  const at = turnedPoint(pin.rotation, pin.x, pin.y)
  const cx = x + at.x * box.width
  const cy = top + at.y * box.height
  doc.save()
  doc.circle(cx, cy, 6).lineWidth(1.5).fillAndStroke(pin.colour, '#ffffff')
  doc.restore()
  doc.rect(x, top, box.width, box.height).lineWidth(0.5).strokeColor('#999999').stroke()
  doc.y = top + box.height + 3
  write(doc, `Pinned on ${pin.label}`, { size: 8.5, color: '#555555', x, y: doc.y, width: SHEET_BOX.width * 1.6 })
}

/** The item's photos, two per row, each with its number and caption under it. */
async function writePhotos(doc: Pdf, photos: PhotoRef[], meta: ReportPdfMeta, link: string, width: number): Promise<void> {
  const x = PAGE.margin
  const gap = 12
  const cell = { width: (width - gap) / 2, height: 200 }
  doc.moveDown(0.3)
  ensureRoom(doc, 40)
  write(doc, 'Photos', { size: 10, weight: 'bold', x, y: doc.y, width })
  doc.moveDown(0.2)
  for (let index = 0; index < photos.length; index += 2) {
    const pair = photos.slice(index, index + 2)
    // One image in memory per cell of the row, never more.
    // A display rendition (a clean JPEG of at most 2048 px) goes in as it is: no decoding, no loss.
    const images = await Promise.all(pair.map((photo) => meta.images(photo.key, PHOTO_PIXELS, { keepUpTo: DISPLAY_MAX })))
    const heights = images.map((image) => (image ? Math.min(cell.height, (image.height * cell.width) / image.width) : 24))
    ensureRoom(doc, Math.max(...heights) + 30)
    const top = doc.y
    let bottom = top
    pair.forEach((photo, column) => {
      const left = x + column * (cell.width + gap)
      const image = images[column]
      let below: number
      if (image) {
        const box = drawImage(doc, image, left, top, cell, link)
        below = top + box.height + 2
      } else {
        write(doc, '(this photo could not be printed)', { size: 8.5, color: '#555555', x: left, y: top, width: cell.width })
        below = doc.y
      }
      write(doc, `Photo ${index + column + 1} · ${photo.caption}`, { size: 8.5, color: '#333333', x: left, y: below, width: cell.width, height: 24, ellipsis: true })
      bottom = Math.max(bottom, doc.y)
    })
    doc.x = x
    doc.y = bottom + 8
  }
}
