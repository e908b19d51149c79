import type { Readable } from 'node:stream'
import type { Database } from '#server/db/client'
import { createPdf, type Pdf } from '#server/domain/formats/pdf'
import { getReport } from '#server/domain/reporting/reports'
import { asMember } from '#server/domain/tenancy/context'
import type { GroupBy } from '~/lib/reporting/items-query'
import { reportTitle } from '~/lib/reporting/types'
import { checkSelection, type ItemsSelection, selectedItems } from './items'
import { type ImageSource, photosOfItems } from './pictures'
import { writePunchList } from './punch-list'
import { reportItems, writeReportPdf } from './report-pdf'

/**
 * The two PDFs of docs/exports.md as one thing each, whoever asks for them: the streaming calls
 * (server/api/exports/exports.ts) pipe `doc` to the response, the export job
 * (server/jobs/export-jobs.ts) to a staging blob. Making one checks the reader may read what it
 * covers (another organisation's report or project is a 404) before a byte is written; `write`
 * then writes every page and ends the document, calling `onBatch` with the items of each batch it
 * has written (the report: each batch of 50 read and written; the punch list, which reads every
 * item before its first row: every 50 rows written): the job's progress and heartbeat; a throw
 * there stops the export.
 */

export type PdfDeps = { db: Database; now: () => Date; publicUrl: string; images: ImageSource }
type Session = { tenantId: string; userId: string }
export type OnBatch = (items: number) => Promise<void>

/** An export's file as a stream, and what writes it (a PDF here, a spreadsheet in ./spreadsheets.ts). */
export type FileExport = {
  doc: Readable
  /** The file's name without its extension (`report`, `punch-list`, `items`): the download adds the date and the extension. */
  name: string
  write(onBatch?: OnBatch): Promise<void>
}

export type PdfExport = FileExport & { doc: Pdf }

async function* counted<T>(batches: AsyncIterable<T[]>, onBatch: OnBatch | undefined): AsyncGenerator<T[]> {
  for await (const batch of batches) {
    yield batch
    await onBatch?.(batch.length)
  }
}

export async function reportPdfExport(deps: PdfDeps, session: Session, reportId: string, locale: string): Promise<PdfExport> {
  const { db, now } = deps
  const { report, facts } = await asMember(db, session, now(), async (ctx) => ({ report: await getReport(ctx, reportId), facts: await checkSelection(ctx, {}) }))
  const at = now()
  const name = reportTitle(report.title)
  const doc = await createPdf({ title: name, author: facts.madeBy, footer: name, now: at })
  const meta = {
    organisation: facts.organisation,
    logoKey: facts.logoKey,
    madeBy: facts.madeBy,
    packageName: (key: string) => facts.packageNames.get(key) ?? key,
    publicUrl: deps.publicUrl,
    clock: { now: at, locale, timeZone: facts.timeZone },
    images: deps.images,
  }
  return {
    doc,
    name: 'report',
    async write(onBatch) {
      await writeReportPdf(doc, report, meta, counted(reportItems(db, session, now, report.id), onBatch))
      doc.end()
    },
  }
}

export async function punchListPdfExport(deps: PdfDeps, session: Session, selection: ItemsSelection, group: GroupBy | undefined, locale: string): Promise<PdfExport> {
  const { db, now } = deps
  const facts = await asMember(db, session, now(), (ctx) => checkSelection(ctx, selection))
  const at = now()
  const doc = await createPdf({ title: 'Punch list', author: facts.madeBy, footer: `${facts.organisation} · Punch list`, now: at })
  const meta = {
    organisation: facts.organisation,
    title: 'Punch list',
    filters: facts.filters,
    madeBy: facts.madeBy,
    groupBy: group ?? 'none',
    packageName: (key: string) => facts.packageNames.get(key) ?? key,
    publicUrl: deps.publicUrl,
    clock: { now: at, locale, timeZone: facts.timeZone },
    logoKey: facts.logoKey,
    images: deps.images,
    thumbnails: async (ids: string[]) => {
      const firsts = await asMember(db, session, now(), (ctx) => photosOfItems(ctx, ids, 'thumbnail', { firstOnly: true }))
      return new Map([...firsts].flatMap(([id, list]) => (list[0] ? [[id, list[0]] as const] : [])))
    },
  }
  return {
    doc,
    name: 'punch-list',
    async write(onBatch) {
      // Its progress is the rows written: the reading is quick, the writing (a thumbnail a row) is what takes the time.
      await writePunchList(doc, meta, selectedItems(db, session, now, selection), onBatch)
      doc.end()
    },
  }
}
