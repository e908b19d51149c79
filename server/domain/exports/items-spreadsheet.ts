import { Readable } from 'node:stream'
import type { Database } from '#server/db/client'
import { type SpreadsheetFormat, spreadsheetStream } from '#server/domain/formats/table'
import { asMember } from '#server/domain/tenancy/context'
import { checkSelection, itemColumns, type ItemsSelection, selectedItems } from './items'
import type { FileExport, OnBatch } from './pdf-exports'

type Session = { tenantId: string; userId: string }

/**
 * The items screen's selection as a spreadsheet (docs/exports.md), as one thing whoever asks for
 * it: the streaming call (GET /api/items/outstanding/export) sends `doc` to the browser, the export
 * job (server/jobs/export-jobs.ts, above EXPORT_JOB_ITEMS items) to a staging blob. The selection
 * is checked (another organisation's project or report is a 404) before a byte is written. Rows
 * are read a batch at a time as `doc` is read; `write` settles when the last batch is in the file,
 * calling `onBatch` with each batch's rows (the job's progress and heartbeat: a throw there stops
 * the export), and fails if `doc` ends early (its reader stopped, or the writer failed).
 */
export async function itemsSpreadsheetExport(
  deps: { db: Database; now: () => Date; publicUrl: string },
  session: Session,
  selection: ItemsSelection,
  format: SpreadsheetFormat,
): Promise<FileExport> {
  const { db, now } = deps
  const { packageNames } = await asMember(db, session, now(), (ctx) => checkSelection(ctx, selection))
  let progress: OnBatch | undefined
  let settle: { resolve: () => void; reject: (error: unknown) => void } | undefined
  const written = new Promise<void>((resolve, reject) => (settle = { resolve, reject }))
  // Nobody may be waiting (the streaming call does not): a failure is the reader's to see.
  written.catch(() => undefined)
  async function* counted() {
    let complete = false
    try {
      for await (const batch of selectedItems(db, session, now, selection)) {
        yield batch
        await progress?.(batch.length)
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
  const made = spreadsheetStream(format, 'Items', itemColumns(packageNames, deps.publicUrl), counted())
  const doc = made instanceof Readable ? made : Readable.from(made, { objectMode: false })
  doc.once('error', (error) => settle?.reject(error))
  doc.once('close', () => settle?.reject(new Error('the spreadsheet stopped before its last row')))
  return {
    doc,
    name: 'items',
    write(onBatch) {
      progress = onBatch
      return written
    },
  }
}
