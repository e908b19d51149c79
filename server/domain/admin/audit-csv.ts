import { type CsvCell, csvText, dispositionOf } from '#server/domain/formats/csv'
import { auditSentence } from '~/lib/admin/audit-words'
import type { AuditActionCount, AuditEntry } from './audit'

/**
 * The audit exports' rows; the CSV itself is the server's one writer (server/domain/formats/csv.ts).
 * An entry's row says what happened in the same sentence the screen shows ("Alex Admin changed Sam
 * Site’s role to Read Only (was Site Manager)") and names its target, beside the keys and ids a
 * program reads.
 */

export const ENTRY_COLUMNS = [
  'chainSeq',
  'createdAtUtc',
  'summary',
  'action',
  'actorId',
  'actorName',
  'actorEmail',
  'targetType',
  'targetId',
  'targetName',
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
    auditSentence(entry),
    entry.action,
    entry.actor?.id,
    entry.actor?.displayName,
    entry.actor?.email,
    entry.targetType,
    entry.targetId,
    entry.targetName,
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
