import { Readable } from 'node:stream'
import type { Database } from '#server/db/client'
import type { ExportColumn } from '#server/domain/formats/columns'
import { type SpreadsheetFormat, spreadsheetStream } from '#server/domain/formats/table'
import { asMember } from '#server/domain/tenancy/context'
import { checkSelection, itemColumns, type ItemsSelection, selectedItems } from './items'
import type { FileExport, OnBatch } from './pdf-exports'
import { type RegisterQuery, registerColumns, registerFields, registerRows } from './register'
import { checkTransmittals, type TransmittalsQuery, transmittalColumns, transmittalRows, transmittalsIn } from './transmittals'

type Session = { tenantId: string; userId: string }
type Deps = { db: Database; now: () => Date; publicUrl: string }

/**
 * The spreadsheets of docs/exports.md (the items screen's selection, the document register, a
 * project's transmittals) as one thing each, whoever asks for them: the streaming calls
 * (server/api/exports/exports.ts) send `doc` to the browser, the export job
 * (server/jobs/export-jobs.ts, above EXPORT_JOB_ITEMS rows) to a staging blob. What it covers is
 * checked (another organisation's project, report or folder is a 404) before a byte is written.
 */

/**
 * A spreadsheet of `batches` as a file export. Rows are read a batch at a time as `doc` is read;
 * `write` settles when the last batch is in the file, calling `onBatch` with each batch's count
 * (`countOf`: what the job's total counts, the rows by default; the job's progress and heartbeat:
 * a throw there stops the export), and fails if `doc` ends early (its reader stopped, or the
 * writer failed).
 */
function spreadsheetExport<T>(
  name: string,
  sheetName: string,
  format: SpreadsheetFormat,
  columns: ExportColumn<T>[],
  batches: AsyncIterable<T[]>,
  countOf: (batch: T[]) => number = (batch) => batch.length,
): FileExport {
  let progress: OnBatch | undefined
  let settle: { resolve: () => void; reject: (error: unknown) => void } | undefined
  const written = new Promise<void>((resolve, reject) => (settle = { resolve, reject }))
  // Nobody may be waiting (the streaming calls do not): a failure is the reader's to see.
  written.catch(() => undefined)
  async function* counted() {
    let complete = false
    try {
      for await (const batch of batches) {
        yield batch
        await progress?.(countOf(batch))
      }
      complete = true
    } catch (error) {
      settle?.reject(error)
      throw error
    } finally {
      if (complete) settle?.resolve()
      else settle?.reject(new Error('the spreadsheet stopped before its last row'))
    }
  }
  const made = spreadsheetStream(format, sheetName, columns, counted())
  const doc = made instanceof Readable ? made : Readable.from(made, { objectMode: false })
  doc.once('error', (error) => settle?.reject(error))
  doc.once('close', () => settle?.reject(new Error('the spreadsheet stopped before its last row')))
  return {
    doc,
    name,
    write(onBatch) {
      progress = onBatch
      return written
    },
  }
}

/** The items screen's selection (GET /api/items/outstanding/export; job kinds items-csv and items-xlsx). */
export async function itemsSpreadsheetExport(deps: Deps, session: Session, selection: ItemsSelection, format: SpreadsheetFormat): Promise<FileExport> {
  const { db, now } = deps
  const { packageNames } = await asMember(db, session, now(), (ctx) => checkSelection(ctx, selection))
  return spreadsheetExport('items', 'Items', format, itemColumns(packageNames, deps.publicUrl), selectedItems(db, session, now, selection))
}

/** The document register of a project, a folder or a search (GET /api/documents/register/export; job kinds register-csv and register-xlsx). */
export async function registerSpreadsheetExport(deps: Deps, session: Session, query: RegisterQuery, format: SpreadsheetFormat): Promise<FileExport> {
  const { db, now } = deps
  const fields = await asMember(db, session, now(), (ctx) => registerFields(ctx, query))
  return spreadsheetExport('document-register', 'Document register', format, registerColumns(fields, deps.publicUrl), registerRows(db, session, now, query))
}

/** A project's transmittals, a row per recipient (GET /api/projects/{projectId}/transmittals/export; job kinds transmittals-csv and transmittals-xlsx): the job counts transmittals. */
export async function transmittalsSpreadsheetExport(deps: Deps, session: Session, query: TransmittalsQuery, format: SpreadsheetFormat): Promise<FileExport> {
  const { db, now } = deps
  await asMember(db, session, now(), (ctx) => checkTransmittals(ctx, query))
  return spreadsheetExport('transmittals', 'Transmittals', format, transmittalColumns(deps.publicUrl), transmittalRows(db, session, now, query), transmittalsIn)
}
