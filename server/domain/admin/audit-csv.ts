import type { AuditActionCount, AuditEntry } from './audit'

/**
 * The audit exports as CSV (RFC 4180: comma, CRLF, double quotes doubled inside quoted cells).
 * A cell that a spreadsheet would run as a formula (= + - @, a tab or carriage return first) goes
 * out behind a single quote (OWASP "CSV injection"): audit data holds whatever people typed.
 */

const FORMULA_START = /^[=+\-@\t\r]/

export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return ''
  const text = String(value)
  const safe = FORMULA_START.test(text) ? `'${text}` : text
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe
}

export function csvLine(cells: ReadonlyArray<string | number | null | undefined>): string {
  return `${cells.map(csvCell).join(',')}\r\n`
}

/** Spreadsheets read the file as UTF-8 only with a byte-order mark. */
export const CSV_BOM = '\uFEFF'

export const ENTRY_HEADER = csvLine([
  'chainSeq',
  'createdAtUtc',
  'action',
  'actorId',
  'actorName',
  'actorEmail',
  'targetType',
  'targetId',
  'ip',
  'correlationId',
  'data',
  'id',
  'prevHash',
  'hash',
])

export function entryLine(entry: AuditEntry): string {
  return csvLine([
    entry.chainSeq,
    entry.createdAtUtc,
    entry.action,
    entry.actor?.id,
    entry.actor?.displayName,
    entry.actor?.email,
    entry.targetType,
    entry.targetId,
    entry.ip,
    entry.correlationId,
    entry.data === null ? '' : JSON.stringify(entry.data),
    entry.id,
    entry.prevHash,
    entry.hash,
  ])
}

export function actionsCsv(actions: readonly AuditActionCount[]): string {
  return CSV_BOM + csvLine(['action', 'count', 'lastAtUtc']) + actions.map((a) => csvLine([a.action, a.count, a.lastAtUtc])).join('')
}

/** attachment; filename="audit-2026-11-25.csv" */
export function csvDisposition(name: string, at: Date): string {
  return `attachment; filename="${name}-${at.toISOString().slice(0, 10)}.csv"`
}
