import { type CsvCell, csvText, dispositionOf } from '#server/domain/formats/csv'
import type { AuditActionCount, AuditEntry } from './audit'

/** The audit exports' rows; the CSV itself is the server's one writer (server/domain/exports/csv.ts). */

export const ENTRY_COLUMNS = [
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
] as const

/** The header row, behind the byte-order mark, that starts the streamed export. */
export const ENTRY_HEADER = csvText([ENTRY_COLUMNS], { bom: true })

function entryRow(entry: AuditEntry): CsvCell[] {
  return [
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
  ]
}

/** One batch of the streamed export. */
export function entriesCsv(entries: readonly AuditEntry[]): string {
  return csvText(entries.map(entryRow))
}

export function actionsCsv(actions: readonly AuditActionCount[]): string {
  return csvText([['action', 'count', 'lastAtUtc'], ...actions.map((a) => [a.action, a.count, a.lastAtUtc])], { bom: true })
}

/** attachment; filename="audit-2026-11-25.csv" */
export function csvDisposition(name: string, at: Date): string {
  return dispositionOf(name, 'csv', at)
}
