import { type GroupBy, groupItems } from '~/lib/reporting/items-query'
import { PRIORITY_LABELS, STATUS_LABELS } from '~/lib/reporting/labels'
import type { Item } from '~/lib/reporting/types'
import { projectTitle, reportTitle } from '~/lib/reporting/types'
import { type Clock, dateOf, momentOf } from '#server/domain/formats/dates'
import { ensureRoom, PAGE, type Pdf, write } from '#server/domain/formats/pdf'
import { drawImage, drawLogo } from './pdf-images'
import type { ImageSource, PhotoRef } from './pictures'

/**
 * The punch list PDF (docs/exports.md): the items the screen's filters select, one compact row
 * each with its first photo's thumbnail (markup applied), under the screen's grouping, each
 * number and thumbnail a link to the item's page. Items are read in batches; only their text and
 * the thumbnail's key are kept until the groups are known (a few hundred bytes an item); each
 * thumbnail is read when its row is written.
 */

export type PunchListMeta = {
  organisation: string
  title: string
  filters: string[]
  madeBy: string
  groupBy: GroupBy
  packageName: (key: string) => string
  publicUrl: string
  clock: Clock
  logoKey: string | null
  images: ImageSource
  /** The first photo of each of these items (for its thumbnail), read in the caller's tenant transaction. */
  thumbnails: (itemIds: string[]) => Promise<Map<string, PhotoRef>>
}

/** Pixels on the longest side of a row's thumbnail (its box is 64 × 48 points). */
export const THUMBNAIL_PIXELS = 200
const THUMB = { width: 64, height: 48 }

/** Rows written between two calls of `onRows` (a job's progress). */
const ROWS_PER_PROGRESS = 50

/**
 * Reads every batch (the groups need them all), then writes the rows; `onRows` hears how many rows
 * were written every 50 rows and at the end, so a job's progress follows the writing, which is
 * nearly all of the time, rather than the reading.
 */
export async function writePunchList(doc: Pdf, meta: PunchListMeta, batches: AsyncIterable<Item[]>, onRows?: (rows: number) => Promise<void>): Promise<number> {
  const items: Item[] = []
  const thumbnails = new Map<string, PhotoRef>()
  for await (const batch of batches) {
    items.push(...batch)
    for (const [id, photo] of await meta.thumbnails(batch.map((item) => item.id))) thumbnails.set(id, photo)
  }
  const width = doc.page.width - 2 * PAGE.margin
  if (meta.logoKey) await drawLogo(doc, meta.images, meta.logoKey)
  write(doc, meta.organisation, { size: 10, color: '#555555' })
  write(doc, meta.title, { size: 20, weight: 'bold' })
  write(doc, `${items.length} ${items.length === 1 ? 'item' : 'items'} · made by ${meta.madeBy} on ${momentOf(meta.clock.now.toISOString(), meta.clock)}`, { size: 9, color: '#555555' })
  if (meta.filters.length > 0) write(doc, `Filters: ${meta.filters.join(' · ')}`, { size: 9, color: '#555555' })
  doc.moveDown(1)
  if (items.length === 0) write(doc, 'No outstanding item matches these filters.', { size: 11 })
  let written = 0
  for (const group of groupItems(items, meta.groupBy, meta.packageName)) {
    if (meta.groupBy !== 'none') {
      ensureRoom(doc, 60)
      doc.moveDown(0.5)
      write(doc, `${group.label} (${group.items.length})`, { size: 13, weight: 'bold', x: PAGE.margin, y: doc.y, width })
      doc.moveDown(0.3)
    }
    for (const item of group.items) {
      await row(doc, item, thumbnails.get(item.id), meta, width)
      if (++written % ROWS_PER_PROGRESS === 0) await onRows?.(ROWS_PER_PROGRESS)
    }
  }
  if (written % ROWS_PER_PROGRESS !== 0) await onRows?.(written % ROWS_PER_PROGRESS)
  return items.length
}

async function row(doc: Pdf, item: Item, photo: PhotoRef | undefined, meta: PunchListMeta, fullWidth: number): Promise<void> {
  ensureRoom(doc, 56)
  const top = doc.y
  const link = `${meta.publicUrl.replace(/\/$/, '')}/items/${item.id}`
  const image = photo ? await meta.images(photo.key, THUMBNAIL_PIXELS) : null
  if (image) drawImage(doc, image, PAGE.margin, top, THUMB, link)
  const x = PAGE.margin + THUMB.width + 10
  const width = fullWidth - THUMB.width - 10
  write(doc, `#${item.number}  ${item.title}`, { size: 10.5, weight: 'bold', x, y: top, width, link, underline: false })
  const due = item.dueDate ? `Due ${dateOf(item.dueDate, meta.clock)}${item.overdue ? ' (overdue)' : ''}` : 'No due date'
  const facts = [STATUS_LABELS[item.status], PRIORITY_LABELS[item.priority], item.assignee?.displayName ?? 'Unassigned', due]
  if (item.packageKey) facts.push(meta.packageName(item.packageKey))
  write(doc, facts.join(' · '), { size: 9, x, y: doc.y, width })
  write(doc, `Next: ${item.nextAction.label}`, { size: 9, color: '#333333', x, y: doc.y, width })
  const where = [projectTitle(item.projectTitle), reportTitle(item.reportTitle), item.location].filter(Boolean).join(' · ')
  write(doc, where, { size: 8.5, color: '#555555', x, y: doc.y, width })
  doc.moveDown(0.3)
  doc.y = Math.max(doc.y, top + THUMB.height + 4)
  doc.moveTo(PAGE.margin, doc.y).lineTo(PAGE.margin + fullWidth, doc.y).lineWidth(0.5).strokeColor('#cccccc').stroke()
  doc.moveDown(0.4)
}
