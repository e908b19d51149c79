/** Large exports run as jobs (docs/exports.md "Large exports as a job"): what the calls answer and the screens show. */

export const EXPORT_JOB_KINDS = ['report-pdf', 'punch-list-pdf', 'items-csv', 'items-xlsx'] as const
export type ExportJobKind = (typeof EXPORT_JOB_KINDS)[number]

/** What each kind of job makes: the name its file is saved under (with the date), and the format's word on the screens. */
export const EXPORT_JOB_FILES: Record<ExportJobKind, { name: string; extension: 'pdf' | 'csv' | 'xlsx'; format: string }> = {
  'report-pdf': { name: 'report', extension: 'pdf', format: 'PDF' },
  'punch-list-pdf': { name: 'punch-list', extension: 'pdf', format: 'PDF' },
  'items-csv': { name: 'items', extension: 'csv', format: 'CSV' },
  'items-xlsx': { name: 'items', extension: 'xlsx', format: 'Excel' },
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
