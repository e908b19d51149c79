import { once } from 'node:events'
import { PassThrough, type Readable } from 'node:stream'
import type { ExportColumn } from './columns'

/**
 * XLSX through exceljs's streaming writer (docs/decisions, exports libraries): each row is
 * committed as it is written, so a sheet of any length keeps one batch in memory. Shared strings
 * are off (they would keep every distinct text until the end); a bold header row is the one style.
 */

/** Excel's rules for a sheet's name: at most 31 characters, none of : \ / ? * [ ]. */
export function sheetName(name: string): string {
  return name.replace(/[:\\/?*[\]]/g, ' ').trim().slice(0, 31) || 'Sheet1'
}

export function xlsxStream<T>(name: string, columns: ExportColumn<T>[], batches: AsyncIterable<T[]>): Readable {
  const out = new PassThrough()
  void write(out, name, columns, batches).catch((error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))))
  return out
}

async function write<T>(out: PassThrough, name: string, columns: ExportColumn<T>[], batches: AsyncIterable<T[]>): Promise<void> {
  // Loaded at the first spreadsheet, not at the server's start (importing it alone took 0.2 CPU-s).
  const { default: ExcelJS } = await import('exceljs')
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false })
  const sheet = workbook.addWorksheet(sheetName(name), { views: [{ state: 'frozen', ySplit: 1 }] })
  sheet.columns = columns.map((c, index) => ({ header: c.header, key: String(index), width: c.width }))
  sheet.getRow(1).font = { bold: true }
  sheet.getRow(1).commit()
  for await (const batch of batches) {
    for (const row of batch) sheet.addRow(columns.map((c) => c.value(row))).commit()
    // Wait for the reader when it is slower than the database.
    if (out.writableNeedDrain) await once(out, 'drain')
  }
  sheet.commit()
  await workbook.commit()
}
