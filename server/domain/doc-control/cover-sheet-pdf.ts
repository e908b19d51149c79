import type { PackageContents } from '#server/domain/doc-control/packaging'
import type { IssuePurpose } from '~/lib/doc-control/types'
import { PURPOSE_LABELS } from '~/lib/schemas/sets'
import { type Clock, dateOf, momentOf } from '#server/domain/formats/dates'
import { createPdf, ensureRoom, PAGE, type Pdf, write } from '#server/domain/formats/pdf'

/**
 * The transmittal cover sheet as a PDF (docs/exports.md): number, project, from, to, purpose, the
 * message, and the documents with their revision and suitability. It goes into every transmittal
 * package ZIP beside the HTML sheet, and is downloadable from the transmittal's page.
 */

export const COVER_SHEET_PDF_NAME = '00-transmittal.pdf'

export function writeCoverSheet(doc: Pdf, c: PackageContents, clock: Clock): void {
  const width = doc.page.width - 2 * PAGE.margin
  const x = PAGE.margin
  const project = [c.project.code, c.project.title].filter(Boolean).join(' – ') || 'Untitled Project'
  write(doc, `Transmittal ${c.number}`, { size: 20, weight: 'bold', width })
  doc.moveDown(0.5)
  const details: Array<[string, string]> = [
    ['Project', project],
    ['Subject', c.subject || '—'],
    ['Purpose', PURPOSE_LABELS[c.purpose as IssuePurpose] ?? c.purpose],
    ['From', c.sentBy ?? '—'],
    ['Sent', c.sentAt ? momentOf(c.sentAt.toISOString(), clock) : 'Not sent'],
    ['Response due', c.responseDueDate ? dateOf(c.responseDueDate, clock) : 'No response asked'],
  ]
  for (const [label, value] of details) {
    const top = doc.y
    write(doc, label, { size: 10, weight: 'bold', x, y: top, width: 110 })
    const after = doc.y
    write(doc, value, { size: 10, x: x + 120, y: top, width: width - 120 })
    doc.y = Math.max(after, doc.y)
  }
  doc.moveDown(0.5)
  write(doc, `To (${c.recipients.length})`, { size: 12, weight: 'bold', x, y: doc.y, width })
  for (const r of c.recipients) write(doc, `${r.displayName} <${r.email}>${r.party ? ` · ${r.party}` : ''}`, { size: 10, x, y: doc.y, width })
  if (c.message) {
    doc.moveDown(0.5)
    write(doc, 'Message', { size: 12, weight: 'bold', x, y: doc.y, width })
    write(doc, c.message, { size: 10, x, y: doc.y, width })
  }
  doc.moveDown(0.5)
  write(doc, `Documents (${c.revisions.length})`, { size: 12, weight: 'bold', x, y: doc.y, width })
  const columns = [
    { label: 'Document', at: 0, width: 170 },
    { label: 'Title', at: 175, width: 190 },
    { label: 'Revision', at: 370, width: 55 },
    { label: 'Suitability', at: 430, width: width - 430 },
  ]
  const line = (cells: string[], weight: 'regular' | 'bold') => {
    ensureRoom(doc, 28)
    const top = doc.y
    let bottom = top
    columns.forEach((column, index) => {
      write(doc, cells[index] ?? '', { size: 9, weight, x: x + column.at, y: top, width: column.width })
      bottom = Math.max(bottom, doc.y)
    })
    doc.y = bottom + 2
  }
  line(columns.map((c) => c.label), 'bold')
  for (const r of c.revisions) line([r.number, r.title, r.code, r.status], 'regular')
}

/** The cover sheet's bytes (a page or two: small enough to hold whole for the ZIP). */
export async function coverSheetPdf(c: PackageContents, clock: Clock): Promise<Buffer> {
  const doc = await createPdf({ title: `Transmittal ${c.number}`, author: c.sentBy ?? 'Site Portal', footer: `Transmittal ${c.number}`, now: c.sentAt ?? clock.now })
  const chunks: Buffer[] = []
  doc.on('data', (chunk: Buffer) => chunks.push(chunk))
  const done = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve)
    doc.on('error', reject)
  })
  writeCoverSheet(doc, c, clock)
  doc.end()
  await done
  return Buffer.concat(chunks)
}
