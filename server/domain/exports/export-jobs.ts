import { and, asc, desc, eq, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm'
import { queueCommittedChange } from '#server/db/committed-changes'
import { exportJobs } from '#server/db/schema-exports'
import { photos } from '#server/db/schema-photos'
import { reportItems } from '#server/db/schema-reporting'
import { recordAuditIn } from '#server/domain/audit'
import { countOutstanding } from '#server/domain/reporting/outstanding'
import { getReport } from '#server/domain/reporting/reports'
import type { DomainContext } from '#server/domain/tenancy/context'
import { type Cursor, pageOf } from '#server/domain/tenancy/paging'
import type { ServedBlob } from '#server/domain/uploads/served'
import { Problem, problems } from '#server/http/problem'
import { EXPORT_JOB_FILES, type ExportEstimate, exportSubjectOf, type ExportJob, type ExportJobKind, type ExportJobStatus } from '~/lib/exports/types'
import type { TransmittalStatus } from '~/lib/doc-control/types'
import type { CdeState } from '~/lib/documents/types'
import { contentTypeOf } from '#server/domain/formats/table'
import type { GroupBy } from '~/lib/reporting/items-query'
import { reportTitle } from '~/lib/reporting/types'
import { checkSelection, checkSelectionFound, type ItemsFilters, selectionOf } from './items'
import { countRegister, type RegisterQuery, registerWords } from './register'
import { checkTransmittals, type TransmittalsQuery, transmittalsWords } from './transmittals'

/**
 * Large exports as jobs (docs/exports.md "Large exports as a job"): the rows' side. A start
 * checks what the owner may read and queues a row; the export job (server/jobs/export-jobs.ts, on
 * every instance) claims it with FOR UPDATE SKIP LOCKED, writes the file (a PDF, or a spreadsheet
 * of items, of the document register or of transmittals) to a staging blob, moves it into place
 * once complete and marks the row ready with a link that expires. Progress, the end and
 * a failure are told to the owner's own connections through the hub (EntityChanged of an
 * ExportJob, never to the rest of the organisation). Only the owner sees a job: anyone else's
 * request for it, in the organisation or outside, is a 404 like a job that does not exist.
 */

/** A running job whose heartbeat is older than this lost its instance: another claims it and starts over. */
export const EXPORT_JOB_STALE_MS = 60_000
/** How often a running job renews its heartbeat even between batches (a slow image). */
export const EXPORT_JOB_HEARTBEAT_MS = 15_000
/** A job interrupted this many times (its instance died each time) fails rather than being claimed again. */
export const EXPORT_JOB_MAX_ATTEMPTS = 5

export type ExportLimits = { items: number; photos: number; linkHours: number }

/**
 * The document register's filters (the documents screen's search, with `project`) and the
 * transmittals' (`project` and their status), by their names in the export job calls: the items
 * screen's `status` means something else, so theirs are `suitability` and `transmittalStatus`.
 */
export type DocumentFilters = {
  folder?: string | undefined
  q?: string | undefined
  discipline?: string | undefined
  suitability?: string | undefined
  state?: CdeState | undefined
  transmittalStatus?: TransmittalStatus | undefined
}

/** What a job exports: the filters by the screen's names, and what was fixed when it started. */
export type ExportJobQuery = ItemsFilters & DocumentFilters & {
  group?: GroupBy | undefined
  /** The reader's language at the start (Accept-Language), for the dates in the PDF. */
  locale: string
  title: string
  returnTo: string
}

export type ExportRequest = ItemsFilters & DocumentFilters & { kind: ExportJobKind; group?: GroupBy | undefined; notify?: boolean | undefined }

/** The register's search (GET /api/documents/search's names) of a job's filters. */
export function registerQueryOf(filters: ItemsFilters & DocumentFilters): RegisterQuery {
  return { projectId: filters.project, folderId: filters.folder, q: filters.q, discipline: filters.discipline, status: filters.suitability, state: filters.state }
}

/** The transmittals of a job's filters: its project is required (a 400 without it). */
export function transmittalsQueryOf(filters: ItemsFilters & DocumentFilters): TransmittalsQuery {
  if (!filters.project) throw new Problem({ ...problems.badRequest('A transmittals export needs its project.'), errors: { project: ['Give the project’s id.'] } })
  return { projectId: filters.project, status: filters.transmittalStatus }
}

/** An address with the query's non-empty values, in the order given. */
function addressOf(path: string, values: Array<[string, string | undefined]>): string {
  const search = new URLSearchParams(values.filter((entry): entry is [string, string] => Boolean(entry[1])))
  return search.size > 0 ? `${path}?${search.toString()}` : path
}

function titled(what: string, words: string[]): string {
  return words.length > 0 ? `${what}: ${words.join(' · ')}` : what
}

type JobRow = typeof exportJobs.$inferSelect

function notFound(): Problem {
  return new Problem(problems.notFound('No such export.'))
}

function reportIdOf(request: { kind: ExportJobKind; report?: string | undefined }): string {
  if (request.kind === 'report-pdf' && !request.report) {
    throw new Problem({ ...problems.badRequest('A report PDF needs its report.'), errors: { report: ['Give the report’s id.'] } })
  }
  return request.report ?? ''
}

/**
 * GET /api/exports/estimate (the export buttons' "runs as a job" on the report, items, documents and transmittals screens,
 * read with every page): only the counts. A filter's project or report that is not there is still
 * 404; the names a job's title takes are read only when a job starts (`named`).
 */
export function estimateExport(ctx: DomainContext, request: Omit<ExportRequest, 'notify'>, limits: ExportLimits): Promise<ExportEstimate> {
  return estimateOf(ctx, request, limits, false)
}

/** How many items and photos the export covers, checking first that the reader may read it (404 otherwise); with `named`, the job's title and the screen it returns to. */
async function estimateOf(ctx: DomainContext, request: Omit<ExportRequest, 'notify'>, limits: ExportLimits, named: boolean): Promise<ExportEstimate & { title: string; returnTo: string }> {
  const kinds = { items: limits.items, photos: limits.photos }
  if (request.kind === 'report-pdf') {
    const report = await getReport(ctx, reportIdOf(request))
    const where = and(eq(reportItems.tenantId, ctx.actor.tenantId), eq(reportItems.reportId, report.id), isNull(reportItems.deletedAt))
    const [items] = await ctx.tx.select({ n: sql<number>`count(*)::int` }).from(reportItems).where(where)
    const [pictures] = await ctx.tx
      .select({ n: sql<number>`count(*)::int` })
      .from(photos)
      .innerJoin(reportItems, and(eq(reportItems.tenantId, photos.tenantId), eq(reportItems.id, photos.itemId)))
      .where(and(where, eq(photos.tenantId, ctx.actor.tenantId), isNull(photos.deletedAt)))
    const counts = { items: Number(items?.n ?? 0), photos: Number(pictures?.n ?? 0) }
    return {
      kind: request.kind,
      ...counts,
      asJob: counts.items > limits.items || counts.photos > limits.photos,
      limits: kinds,
      title: `Report PDF: ${reportTitle(report.title)}`,
      returnTo: `/reports/${report.id}`,
    }
  }
  const subject = exportSubjectOf(request.kind)
  // A spreadsheet without photos: its rows (documents, transmittals) are what the limit counts.
  const rows = (count: number, what: string, words: string[], returnTo: string) => ({
    kind: request.kind,
    items: count,
    photos: 0,
    asJob: count > limits.items,
    limits: kinds,
    title: titled(`${what} (${EXPORT_JOB_FILES[request.kind].format})`, words),
    returnTo,
  })
  if (subject === 'register') {
    const query = registerQueryOf(request)
    const address = addressOf('/documents', [
      ['projectId', query.projectId],
      ['folderId', query.folderId],
      ['q', query.q],
      ['discipline', query.discipline],
      ['status', query.status],
      ['state', query.state],
    ])
    return rows(await countRegister(ctx, query), 'Document register', named ? await registerWords(ctx, query) : [], address)
  }
  if (subject === 'transmittals') {
    const query = transmittalsQueryOf(request)
    const address = addressOf('/doc-control/transmittals', [
      ['projectId', query.projectId],
      ['status', query.status],
    ])
    return rows(await checkTransmittals(ctx, query), 'Transmittals', named ? await transmittalsWords(ctx, query) : [], address)
  }
  const selection = selectionOf(request, ctx.actor.userId)
  const facts = named ? await checkSelection(ctx, selection) : await checkSelectionFound(ctx, selection)
  const { verifierMe, ...filters } = selection
  // "Waiting for my confirmation" is counted as every close requested: an estimate, at most too high.
  const items = await countOutstanding(ctx, verifierMe ? { ...filters, status: 'close_requested' } : filters)
  const search = new URLSearchParams()
  for (const name of ['project', 'report', 'package', 'status', 'assignee', 'overdue', 'verifier', 'group'] as const) {
    const value = request[name]
    if (value) search.set(name, value)
  }
  // A punch list prints one thumbnail per item, a spreadsheet none: their photos never outgrow their items.
  const what = request.kind === 'punch-list-pdf' ? 'Punch list PDF' : `Items (${EXPORT_JOB_FILES[request.kind].format})`
  return {
    kind: request.kind,
    items,
    photos: 0,
    asJob: items > limits.items,
    limits: kinds,
    title: titled(what, facts.filters),
    returnTo: `/items${search.size > 0 ? `?${search.toString()}` : ''}`,
  }
}

/** POST /api/exports: queues the export as a job of the caller's (whatever its size: the screens ask for a job only above the limits). */
export async function startExportJob(ctx: DomainContext, request: ExportRequest, locale: string, limits: ExportLimits): Promise<ExportJob> {
  const estimate = await estimateOf(ctx, request, limits, true)
  const { kind, notify, ...filters } = request
  const query: ExportJobQuery = { ...filters, locale, title: estimate.title, returnTo: estimate.returnTo }
  const [row] = await ctx.tx
    .insert(exportJobs)
    .values({ tenantId: ctx.actor.tenantId, ownerUserId: ctx.actor.userId, kind, query, status: 'queued', itemsTotal: estimate.items, notify: notify ?? false, startedAt: ctx.now })
    .returning()
  if (!row) throw new Error('export job not queued')
  await recordAuditIn(ctx.tx, { tenantId: ctx.actor.tenantId, actorUserId: ctx.actor.userId, action: 'exports.job', targetType: 'ExportJob', targetId: row.id, data: { event: 'started', kind, items: estimate.items }, at: ctx.now })
  return jobView(row, ctx.now)
}

async function ownJob(ctx: DomainContext, id: string, lock = false): Promise<JobRow> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw notFound()
  const query = ctx.tx
    .select()
    .from(exportJobs)
    .where(and(eq(exportJobs.tenantId, ctx.actor.tenantId), eq(exportJobs.id, id), eq(exportJobs.ownerUserId, ctx.actor.userId)))
    .limit(1)
  const [row] = lock ? await query.for('update') : await query
  if (!row) throw notFound()
  return row
}

export function jobView(row: JobRow, now: Date): ExportJob {
  const query = row.query as Partial<ExportJobQuery>
  const expired = row.status === 'ready' && (row.expiresAt === null || row.expiresAt <= now || row.blobKey === null)
  const percent = row.status === 'ready' ? 100 : row.itemsTotal > 0 ? Math.min(99, Math.floor((row.itemsDone * 100) / row.itemsTotal)) : 0
  return {
    id: row.id,
    kind: row.kind as ExportJobKind,
    title: query.title ?? 'Export',
    status: row.status as ExportJobStatus,
    percent,
    itemsDone: row.itemsDone,
    itemsTotal: row.itemsTotal,
    sizeBytes: row.status === 'ready' ? row.sizeBytes : null,
    error: row.status === 'failed' ? row.error : null,
    notify: row.notify,
    downloadUrl: row.status === 'ready' && !expired ? `/api/exports/${row.id}/download` : null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    expired,
    returnTo: query.returnTo ?? '/items',
    startedAt: row.startedAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
  }
}

/**
 * GET /api/exports ("My exports"): the caller's own jobs, newest start first (a job run again
 * starts anew and comes back to the top), `limit` at a time after the cursor's (startedAt, id).
 * Only the owner's: another member's jobs, even for an administrator, never appear.
 */
export async function listExportJobs(ctx: DomainContext, options: { limit: number; after?: Cursor | undefined }): Promise<{ items: ExportJob[]; nextCursor: string | null }> {
  const { limit, after } = options
  const rows = await ctx.tx
    .select()
    .from(exportJobs)
    .where(
      and(
        eq(exportJobs.tenantId, ctx.actor.tenantId),
        eq(exportJobs.ownerUserId, ctx.actor.userId),
        after ? or(lt(exportJobs.startedAt, after.createdAt), and(eq(exportJobs.startedAt, after.createdAt), lt(exportJobs.id, after.id))) : undefined,
      ),
    )
    .orderBy(desc(exportJobs.startedAt), desc(exportJobs.id))
    .limit(limit + 1)
  const page = pageOf(
    rows.map((row) => ({ ...row, createdAt: row.startedAt })),
    limit,
  )
  return { items: page.rows.map((row) => jobView(row, ctx.now)), nextCursor: page.nextCursor }
}

/** GET /api/exports/{id}: the owner's job, for the progress view. */
export async function getExportJob(ctx: DomainContext, id: string): Promise<ExportJob> {
  return jobView(await ownJob(ctx, id), ctx.now)
}

/** POST /api/exports/{id}/retry: a failed or expired job is queued again from the start, under the same id. */
export async function retryExportJob(ctx: DomainContext, id: string): Promise<{ job: ExportJob; queued: boolean }> {
  const row = await ownJob(ctx, id, true)
  const view = jobView(row, ctx.now)
  if (row.status !== 'failed' && !view.expired) return { job: view, queued: false }
  const [again] = await ctx.tx
    .update(exportJobs)
    .set({ status: 'queued', itemsDone: 0, blobKey: null, sizeBytes: null, error: null, heartbeatAt: null, attempts: 0, startedAt: ctx.now, finishedAt: null, expiresAt: null })
    .where(and(eq(exportJobs.tenantId, ctx.actor.tenantId), eq(exportJobs.id, row.id)))
    .returning()
  if (!again) throw notFound()
  await recordAuditIn(ctx.tx, { tenantId: ctx.actor.tenantId, actorUserId: ctx.actor.userId, action: 'exports.job', targetType: 'ExportJob', targetId: row.id, data: { event: 'started', kind: row.kind, retry: true }, at: ctx.now })
  return { job: jobView(again, ctx.now), queued: true }
}

/** GET /api/exports/{id}/download: the owner's file once ready (409 before, 410 once its link expired). */
export async function exportDownload(ctx: DomainContext, id: string): Promise<ServedBlob> {
  const row = await ownJob(ctx, id)
  const view = jobView(row, ctx.now)
  if (row.status !== 'ready') {
    throw new Problem({
      status: 409,
      title: 'Conflict',
      detail: row.status === 'failed' ? `The export failed: ${row.error ?? 'unknown error'}. Run it again.` : 'The export is not ready yet: follow its progress until it is.',
      code: 'KR_EXPORT_NOT_READY',
      extensions: { exportStatus: row.status },
    })
  }
  if (view.expired || !row.blobKey) {
    throw new Problem({
      status: 410,
      title: 'Gone',
      detail: 'This export’s link has expired and its file was deleted: run the export again.',
      code: 'KR_EXPORT_EXPIRED',
      remediation: `POST /api/exports/${row.id}/retry`,
    })
  }
  const stamp = row.finishedAt ?? row.startedAt
  const file = EXPORT_JOB_FILES[row.kind as ExportJobKind]
  return { key: row.blobKey, contentType: contentTypeOf(file.extension), sha256: row.blobKey.slice(row.blobKey.lastIndexOf('.') + 1), fileName: `${file.name}-${stamp.toISOString().slice(0, 10)}.${file.extension}` }
}

// ---- The job's side: one tenant's transactions ----

export type ExportClaim = { tenantId: string; jobId: string; ownerUserId: string; kind: ExportJobKind; query: ExportJobQuery; attempt: number; notify: boolean }

/** `{tenantId}/exports/{jobId}-{attempt}.{sha256}`: the attempt keeps a late writer of an earlier attempt from replacing the file served. */
export function exportKey(claim: ExportClaim, sha256: string): string {
  return `${claim.tenantId}/exports/${claim.jobId}-${claim.attempt}.${sha256}`
}

/** Where an attempt writes until the file is complete: never offered for download. */
export function exportWorkKey(claim: ExportClaim): string {
  return `${claim.tenantId}/exports/${claim.jobId}.attempt-${claim.attempt}`
}

/** Tells the owner's own connections that the job changed (the progress view reloads). */
function announce(ctx: DomainContext, jobId: string, ownerUserId: string): void {
  queueCommittedChange(ctx.tx, { tenantId: ctx.actor.tenantId, entity: 'ExportJob', entityId: jobId, changeType: 'Updated', revision: 0, changedAt: ctx.now, actorUserId: null, audienceUserId: ownerUserId })
}

/**
 * Claims the tenant's oldest queued job, or a running one whose heartbeat stopped before
 * `staleBefore`, with FOR UPDATE SKIP LOCKED, and marks it running from the first item with a new
 * attempt number (the packaging job's claim, server/domain/doc-control/packaging.ts).
 */
export async function claimExportJob(ctx: DomainContext, staleBefore: Date): Promise<ExportClaim | undefined> {
  for (;;) {
    const [candidate] = await ctx.tx
      .select({ id: exportJobs.id, status: exportJobs.status, attempts: exportJobs.attempts, ownerUserId: exportJobs.ownerUserId })
      .from(exportJobs)
      .where(and(eq(exportJobs.tenantId, ctx.actor.tenantId), or(eq(exportJobs.status, 'queued'), and(eq(exportJobs.status, 'running'), lt(exportJobs.heartbeatAt, staleBefore)))))
      .orderBy(asc(exportJobs.startedAt))
      .limit(1)
      .for('update', { skipLocked: true })
    if (!candidate) return undefined
    const where = and(eq(exportJobs.tenantId, ctx.actor.tenantId), eq(exportJobs.id, candidate.id))
    if (candidate.status === 'running' && candidate.attempts >= EXPORT_JOB_MAX_ATTEMPTS) {
      await ctx.tx
        .update(exportJobs)
        .set({ status: 'failed', error: `The export was interrupted ${candidate.attempts} times; run it again.`, finishedAt: ctx.now })
        .where(where)
      announce(ctx, candidate.id, candidate.ownerUserId)
      continue
    }
    const [claimed] = await ctx.tx
      .update(exportJobs)
      .set({ status: 'running', attempts: candidate.attempts + 1, heartbeatAt: ctx.now, itemsDone: 0, error: null, blobKey: null, sizeBytes: null, finishedAt: null, expiresAt: null })
      .where(where)
      .returning()
    if (!claimed) return undefined
    announce(ctx, claimed.id, claimed.ownerUserId)
    return {
      tenantId: ctx.actor.tenantId,
      jobId: claimed.id,
      ownerUserId: claimed.ownerUserId,
      kind: claimed.kind as ExportJobKind,
      query: claimed.query as ExportJobQuery,
      attempt: claimed.attempts,
      notify: claimed.notify,
    }
  }
}

function owned(ctx: DomainContext, claim: ExportClaim) {
  return and(eq(exportJobs.tenantId, ctx.actor.tenantId), eq(exportJobs.id, claim.jobId), eq(exportJobs.attempts, claim.attempt), eq(exportJobs.status, 'running'))
}

/** Writes progress (items read so far) and renews the heartbeat; false when the claim was lost. */
export async function reportExportProgress(ctx: DomainContext, claim: ExportClaim, itemsDone?: number): Promise<boolean> {
  const rows = await ctx.tx
    .update(exportJobs)
    .set({ heartbeatAt: ctx.now, ...(itemsDone !== undefined && { itemsDone, itemsTotal: sql`greatest(${exportJobs.itemsTotal}, ${itemsDone})` }) })
    .where(owned(ctx, claim))
    .returning({ id: exportJobs.id })
  if (rows.length > 0 && itemsDone !== undefined) announce(ctx, claim.jobId, claim.ownerUserId)
  return rows.length > 0
}

/** The file is in place: ready, its link valid until `expiresAt`. False when the claim was lost meanwhile (the caller deletes its blob). */
export async function finishExportJob(ctx: DomainContext, claim: ExportClaim, stored: { key: string; size: number; items: number }, expiresAt: Date): Promise<boolean> {
  const rows = await ctx.tx
    .update(exportJobs)
    .set({ status: 'ready', blobKey: stored.key, sizeBytes: stored.size, itemsDone: stored.items, itemsTotal: stored.items, heartbeatAt: ctx.now, finishedAt: ctx.now, expiresAt })
    .where(owned(ctx, claim))
    .returning({ id: exportJobs.id })
  if (rows.length === 0) return false
  announce(ctx, claim.jobId, claim.ownerUserId)
  await recordAuditIn(ctx.tx, { tenantId: ctx.actor.tenantId, actorUserId: claim.ownerUserId, action: 'exports.job', targetType: 'ExportJob', targetId: claim.jobId, data: { event: 'ready', kind: claim.kind, sizeBytes: stored.size, attempt: claim.attempt }, at: ctx.now })
  return true
}

export async function failExportJob(ctx: DomainContext, claim: ExportClaim, error: string): Promise<boolean> {
  const rows = await ctx.tx
    .update(exportJobs)
    .set({ status: 'failed', error, heartbeatAt: ctx.now, finishedAt: ctx.now })
    .where(owned(ctx, claim))
    .returning({ id: exportJobs.id })
  if (rows.length === 0) return false
  announce(ctx, claim.jobId, claim.ownerUserId)
  await recordAuditIn(ctx.tx, { tenantId: ctx.actor.tenantId, actorUserId: claim.ownerUserId, action: 'exports.job', targetType: 'ExportJob', targetId: claim.jobId, data: { event: 'failed', kind: claim.kind, error, attempt: claim.attempt }, at: ctx.now })
  return true
}

/** An instance stopping hands its job back: queued again, so the next instance to look starts it at once. */
export async function releaseExportJob(ctx: DomainContext, claim: ExportClaim): Promise<void> {
  await ctx.tx.update(exportJobs).set({ status: 'queued', itemsDone: 0, heartbeatAt: null }).where(owned(ctx, claim))
}

/** Files whose link expired: their keys, forgotten by their rows (the caller deletes the blobs). */
export async function takeExpiredFiles(ctx: DomainContext): Promise<string[]> {
  const expired = await ctx.tx
    .select({ id: exportJobs.id, key: exportJobs.blobKey })
    .from(exportJobs)
    .where(and(eq(exportJobs.tenantId, ctx.actor.tenantId), eq(exportJobs.status, 'ready'), isNotNull(exportJobs.blobKey), lt(exportJobs.expiresAt, ctx.now)))
    .for('update', { skipLocked: true })
  if (expired.length === 0) return []
  await ctx.tx
    .update(exportJobs)
    .set({ blobKey: null })
    .where(and(eq(exportJobs.tenantId, ctx.actor.tenantId), inArray(exportJobs.id, expired.map((row) => row.id))))
  return expired.flatMap((row) => (row.key ? [row.key] : []))
}
