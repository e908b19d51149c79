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

/**
 * The report PDF (docs/exports.md): a cover (organisation, project, report, date, who made it),
 * then each item with its facts, description, the responses in order with who and when, and the
 * close confirmation. Items are read a batch at a time, each batch with its responses in one
 * short tenant transaction, and written before the next batch is read.
 */

const BATCH = 50

type Session = { tenantId: string; userId: string }

export type ReportPdfMeta = { organisation: string; madeBy: string; packageName: (key: string) => string; publicUrl: string; clock: Clock }

type ItemWithResponses = { item: Item; responses: ItemResponse[] }

async function* reportItems(db: Database, session: Session, now: () => Date, reportId: string): AsyncGenerator<ItemWithResponses[]> {
  let after: string | null = null
  do {
    const cursor = after === null ? undefined : decodeCursor(after)
    const page = await asMember(db, session, now(), async (ctx) => {
      const result = await listReportItems(ctx, reportId, { limit: BATCH, after: cursor })
      const withResponses = await Promise.all(result.items.map(async (item) => ({ item, responses: await listResponses(ctx, item.id) })))
      return { items: withResponses, nextCursor: result.nextCursor }
    })
    if (page.items.length > 0) yield page.items
    after = page.nextCursor
  } while (after !== null)
}

export async function writeReportPdf(doc: Pdf, report: Report, meta: ReportPdfMeta, source: { db: Database; session: Session; now: () => Date }): Promise<void> {
  const width = doc.page.width - 2 * PAGE.margin
  const name = reportTitle(report.title)
  // Cover.
  doc.moveDown(6)
  write(doc, meta.organisation, { size: 12, color: '#555555', width })
  write(doc, name, { size: 26, weight: 'bold', width })
  write(doc, projectTitle(report.projectTitle), { size: 14, width })
  doc.moveDown(1)
  const counts = report.itemCounts
  write(doc, `${counts.open + counts.closeRequested + counts.closed} items: ${counts.open} open, ${counts.closeRequested} close requested, ${counts.closed} closed`, { size: 11, width })
  write(doc, `Report started ${momentOf(report.createdAtUtc, meta.clock)}${report.createdBy ? ` by ${report.createdBy.displayName}` : ''}`, { size: 10, color: '#333333', width })
  write(doc, `Made by ${meta.madeBy} on ${momentOf(meta.clock.now.toISOString(), meta.clock)}`, { size: 10, color: '#333333', width })
  for await (const batch of reportItems(source.db, source.session, source.now, report.id)) {
    for (const entry of batch) writeItem(doc, entry, meta, width)
  }
}

function writeItem(doc: Pdf, { item, responses }: ItemWithResponses, meta: ReportPdfMeta, width: number): void {
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
    if (response.photoIds.length > 0) write(doc, `${response.photoIds.length} ${response.photoIds.length === 1 ? 'photo' : 'photos'} on the item’s page`, { size: 8.5, color: '#555555', x: x + 12, y: doc.y, width: width - 12 })
  }
  if (item.status === 'closed' && item.closedAtUtc) {
    write(doc, `Closed ${momentOf(item.closedAtUtc, meta.clock)}${item.closedBy ? `, confirmed by ${item.closedBy.displayName}` : ''}`, { size: 9.5, weight: 'bold', x, y: doc.y, width })
  }
  doc.moveDown(0.4)
  doc.moveTo(x, doc.y).lineTo(x + width, doc.y).lineWidth(0.5).strokeColor('#cccccc').stroke()
}
