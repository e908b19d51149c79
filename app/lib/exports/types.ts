/** Large exports run as jobs (docs/exports.md "Large exports as a job"): what the calls answer and the screens show. */

export const EXPORT_JOB_KINDS = ['report-pdf', 'punch-list-pdf', 'items-csv', 'items-xlsx', 'register-csv', 'register-xlsx', 'transmittals-csv', 'transmittals-xlsx'] as const
export type ExportJobKind = (typeof EXPORT_JOB_KINDS)[number]

/** What a kind exports, and so which filters it takes: a report; the items screen's selection; the document register; a project's transmittals. */
export type ExportSubject = 'report' | 'items' | 'register' | 'transmittals'

export function exportSubjectOf(kind: ExportJobKind): ExportSubject {
  if (kind === 'report-pdf') return 'report'
  if (kind.startsWith('register-')) return 'register'
  if (kind.startsWith('transmittals-')) return 'transmittals'
  return 'items'
}

/** What a kind's count counts ("3 items", "240 documents"). */
const UNITS: Record<ExportSubject, readonly [string, string]> = {
  report: ['item', 'items'],
  items: ['item', 'items'],
  register: ['document', 'documents'],
  transmittals: ['transmittal', 'transmittals'],
}

/** The word for `count` of what a kind exports: `items`, `documents` or `transmittals` (singular for one). */
export function exportUnit(kind: ExportJobKind, count: number): string {
  const [one, many] = UNITS[exportSubjectOf(kind)]
  return count === 1 ? one : many
}

/** What each kind of job makes: the name its file is saved under (with the date), and the format's word on the screens. */
export const EXPORT_JOB_FILES: Record<ExportJobKind, { name: string; extension: 'pdf' | 'csv' | 'xlsx'; format: string }> = {
  'report-pdf': { name: 'report', extension: 'pdf', format: 'PDF' },
  'punch-list-pdf': { name: 'punch-list', extension: 'pdf', format: 'PDF' },
  'items-csv': { name: 'items', extension: 'csv', format: 'CSV' },
  'items-xlsx': { name: 'items', extension: 'xlsx', format: 'Excel' },
  'register-csv': { name: 'document-register', extension: 'csv', format: 'CSV' },
  'register-xlsx': { name: 'document-register', extension: 'xlsx', format: 'Excel' },
  'transmittals-csv': { name: 'transmittals', extension: 'csv', format: 'CSV' },
  'transmittals-xlsx': { name: 'transmittals', extension: 'xlsx', format: 'Excel' },
}

export const EXPORT_JOB_STATUSES = ['queued', 'running', 'ready', 'failed'] as const
export type ExportJobStatus = (typeof EXPORT_JOB_STATUSES)[number]

export type ExportJob = {
  id: string
  kind: ExportJobKind
  /** What it exports, in words ("Report PDF: Level 3 walkdown"). */
  title: string
  status: ExportJobStatus
  percent: number
  itemsDone: number
  itemsTotal: number
  sizeBytes: number | null
  /** Why it failed, for the person who asked. */
  error: string | null
  /** The owner asked for a mail when it ends. */
  notify: boolean
  /** Only while ready and not expired: only its owner may use it. */
  downloadUrl: string | null
  expiresAt: string | null
  expired: boolean
  /** The screen it was started from (the report, or the items screen with its filters). */
  returnTo: string
  startedAt: string
  finishedAt: string | null
}

/** How large an export would be, and whether it runs as a job (more than `limits`). */
export type ExportEstimate = {
  kind: ExportJobKind
  /** What the limit counts: items, or the documents of a register, or transmittals. */
  items: number
  photos: number
  asJob: boolean
  limits: { items: number; photos: number }
}

export const EXPORT_JOB_STATUS_LABELS: Record<ExportJobStatus, string> = {
  queued: 'Waiting to start',
  running: 'Being prepared',
  ready: 'Ready',
  failed: 'Failed',
}

export function isExportInProgress(job: Pick<ExportJob, 'status'>): boolean {
  return job.status === 'queued' || job.status === 'running'
}
