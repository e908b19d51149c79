import { stringify, type Input, type Options } from 'csv-stringify/sync'

/**
 * The server's one CSV writer (docs/exports.md): csv-stringify with the options every export shares.
 * RFC 4180 (comma, CRLF, double quotes doubled inside quoted cells), and a cell is quoted whenever
 * it holds a line break of either kind (csv-stringify alone quotes only the record delimiter).
 * A text cell that a spreadsheet would run as a formula (= + - @, a tab or carriage return first)
 * goes out behind a single quote (OWASP "CSV injection"): exports hold whatever people typed.
 */

const FORMULA_START = /^[=+\-@\t\r]/

export function guardFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text
}

/** What an import takes off again (deliverables-io.ts reads its own exports back). */
export function unguardFormula(text: string): string {
  return text.startsWith("'") && FORMULA_START.test(text.slice(1)) ? text.slice(1) : text
}

const OPTIONS: Options = {
  record_delimiter: 'windows',
  quoted_match: /[\r\n]/,
  cast: { string: guardFormula, boolean: (value) => (value ? 'yes' : 'no'), date: (value) => value.toISOString() },
}

/** Spreadsheets read a file as UTF-8 only with a byte-order mark. */
export const CSV_BOM = '\uFEFF'

export type CsvCell = string | number | boolean | Date | null | undefined

/** Rows as CSV text (each row ends with CRLF); `bom` puts the byte-order mark first. */
export function csvText(rows: ReadonlyArray<ReadonlyArray<CsvCell>>, options: { bom?: boolean } = {}): string {
  const text = rows.length === 0 ? '' : stringify(rows as Input, OPTIONS)
  return options.bom ? CSV_BOM + text : text
}

/** attachment; filename="audit-2026-11-25.csv" */
export function dispositionOf(name: string, extension: string, at?: Date): string {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '') || 'export'
  return `attachment; filename="${at ? `${safe}-${at.toISOString().slice(0, 10)}` : safe}.${extension}"`
}
