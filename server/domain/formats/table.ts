import type { Readable } from 'node:stream'
import { type CsvCell, csvText } from './csv'
import type { ExportColumn } from './columns'
import { xlsxStream } from './xlsx'

/**
 * One table, two spreadsheet formats (docs/exports.md): the same columns and rows go out as CSV
 * (the server's one CSV writer) or as XLSX (exceljs's streaming writer), batch by batch.
 */

export type SpreadsheetFormat = 'csv' | 'xlsx'

export const MEDIA_TYPES = {
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pdf: 'application/pdf',
} as const

/** The content type a file of this format is downloaded with (CSV says it is UTF-8). */
export function contentTypeOf(extension: keyof typeof MEDIA_TYPES): string {
  return extension === 'csv' ? `${MEDIA_TYPES.csv}; charset=utf-8` : MEDIA_TYPES[extension]
}

/** CSV text chunks: the header behind a byte-order mark, then one chunk per batch. */
export async function* csvChunks<T>(columns: ExportColumn<T>[], batches: AsyncIterable<T[]>): AsyncGenerator<string> {
  yield csvText([columns.map((c) => c.header)], { bom: true })
  for await (const batch of batches) yield csvText(batch.map((row) => columns.map((c): CsvCell => c.value(row))))
}

/** The table in the chosen format, as a Node stream of bytes. */
export function spreadsheetStream<T>(format: SpreadsheetFormat, sheetName: string, columns: ExportColumn<T>[], batches: AsyncIterable<T[]>): Readable | AsyncIterable<string> {
  return format === 'csv' ? csvChunks(columns, batches) : xlsxStream(sheetName, columns, batches)
}
