import { setTimeout as sleep } from 'node:timers/promises'
import { eq } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { users } from '#server/db/schema'
import { withTenant } from '#server/db/tenancy'
import {
  claimExportJob,
  EXPORT_JOB_HEARTBEAT_MS,
  EXPORT_JOB_STALE_MS,
  exportKey,
  exportWorkKey,
  failExportJob,
  finishExportJob,
  releaseExportJob,
  reportExportProgress,
  registerQueryOf,
  takeExpiredFiles,
  transmittalsQueryOf,
  type ExportClaim,
} from '#server/domain/exports/export-jobs'
import { selectionOf } from '#server/domain/exports/items'
import { itemsSpreadsheetExport, registerSpreadsheetExport, transmittalsSpreadsheetExport } from '#server/domain/exports/spreadsheets'
import { type FileExport, punchListPdfExport, reportPdfExport } from '#server/domain/exports/pdf-exports'
import { storeImages } from '#server/domain/exports/pictures'
import { enqueueMail } from '#server/domain/mail'
import type { DomainContext } from '#server/domain/tenancy/context'
import type { Logger } from '#server/http/logger'
import { Problem } from '#server/http/problem'
import type { SpreadsheetFormat } from '#server/domain/formats/table'
import { EXPORT_JOB_FILES, type ExportJobKind } from '~/lib/exports/types'
import type { BlobStore } from '#server/storage/blob-store'
import { claimEach, ClaimLost, startClaimingJob, Stopping, whileHeartbeating, type ClaimingJob } from './claimed-rows'

/**
 * The export job (docs/exports.md "Large exports as a job"), on every instance, claiming export
 * jobs as the packaging job claims packages (./claimed-rows.ts). A claimed job writes its file (a
 * PDF, or a spreadsheet of items, of the document register or of transmittals) with the same writers as the streaming calls, read as its owner (row-level security and the owner's
 * role: what they may see and nothing else), to a staging key; only a complete file is moved to
 * its final key and offered. Progress is written after every batch of items. A pass also deletes
 * the files whose link has expired.
 */

export type ExportJobOptions = {
  db: Database
  store: BlobStore
  logger: Logger
  publicUrl: string
  /** How long a ready file's link works. */
  linkHours: number
  /** A pause after each batch (EXPORT_JOB_PAUSE_MS, 0 by default): a long export leaves the instance's CPU to interactive requests, and its bar moves slowly enough to be seen. */
  pauseMs?: number
  now?: () => Date
  intervalMs?: number
  heartbeatMs?: number
  /** Between batches, for tests that stop an export mid-way (a restart); nothing in production. */
  afterBatch?: (claim: ExportClaim, itemsDone: number) => Promise<void>
}

const jobs = new Set<ClaimingJob>()

/** Wakes this process's export jobs: an export was queued in the tenant. */
export function nudgeExports(tenantId: string): void {
  for (const job of jobs) job.nudge(tenantId)
}

function tenantRunner(db: Database, tenantId: string, userId: string, now: () => Date) {
  return <T>(work: (ctx: DomainContext) => Promise<T>) => withTenant(db, tenantId, (tx) => work({ tx, actor: { tenantId, userId, roleKey: 'admin' }, now: now() }))
}

/** A spreadsheet kind's format (items-csv: csv), as its file's extension says. */
function spreadsheetFormatOf(kind: ExportJobKind): SpreadsheetFormat {
  return EXPORT_JOB_FILES[kind].extension === 'csv' ? 'csv' : 'xlsx'
}

/** The file the job asked for, made as its owner would make it on the screen. */
function makeExport(options: ExportJobOptions, claim: ExportClaim): Promise<FileExport> {
  const { db, store, publicUrl, now = () => new Date() } = options
  const deps = { db, now, publicUrl, images: storeImages(store) }
  const owner = { tenantId: claim.tenantId, userId: claim.ownerUserId }
  const { query } = claim
  switch (claim.kind) {
    case 'report-pdf':
      return reportPdfExport(deps, owner, query.report ?? '', query.locale)
    case 'punch-list-pdf':
      return punchListPdfExport(deps, owner, selectionOf(query, claim.ownerUserId), query.group, query.locale)
    case 'items-csv':
    case 'items-xlsx':
      return itemsSpreadsheetExport(deps, owner, selectionOf(query, claim.ownerUserId), spreadsheetFormatOf(claim.kind))
    case 'register-csv':
    case 'register-xlsx':
      return registerSpreadsheetExport(deps, owner, registerQueryOf(query), spreadsheetFormatOf(claim.kind))
    case 'transmittals-csv':
    case 'transmittals-xlsx':
      return transmittalsSpreadsheetExport(deps, owner, transmittalsQueryOf(query), spreadsheetFormatOf(claim.kind))
  }
}

/** Why an export failed, in words for the person who asked (the log keeps the rest). */
function reasonOf(error: unknown): string {
  if (error instanceof Problem && error.init.status === 404) return 'What it exports is gone, or you may no longer see it.'
  if (error instanceof Problem && error.init.status === 403) return 'Your membership of this organisation is not active.'
  if (error instanceof Problem) return error.init.detail ?? error.message
  return 'The export failed unexpectedly; run it again.'
}

async function mailOwner(options: ExportJobOptions, claim: ExportClaim, outcome: 'ready' | 'failed', details: { error?: string; expiresAt?: Date }): Promise<void> {
  const { db, publicUrl, logger } = options
  try {
    await withTenant(db, claim.tenantId, async (tx) => {
      const [owner] = await tx.select({ email: users.email, displayName: users.displayName }).from(users).where(eq(users.id, claim.ownerUserId)).limit(1)
      if (!owner) return
      await enqueueMail(tx as unknown as Database, {
        tenantId: claim.tenantId,
        to: owner.email,
        template: 'export-ready',
        variables: {
          recipientName: owner.displayName,
          exportTitle: claim.query.title,
          outcome: outcome === 'ready' ? 'is ready' : 'failed',
          error: details.error ?? null,
          expiresAt: details.expiresAt ? `${details.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC` : null,
          exportUrl: `${publicUrl.replace(/\/$/, '')}/exports/${claim.jobId}`,
        },
      })
    })
  } catch (error) {
    logger.warn({ err: error, jobId: claim.jobId }, 'the export’s mail could not be queued')
  }
}

/** Writes one claimed export to its end: ready, failed (with a reason for its owner), or lost to another instance or a stop. */
export async function exportOne(options: ExportJobOptions, claim: ExportClaim, signal?: AbortSignal): Promise<'ready' | 'failed' | 'lost'> {
  const { db, store, logger, now = () => new Date(), heartbeatMs = EXPORT_JOB_HEARTBEAT_MS } = options
  const run = tenantRunner(db, claim.tenantId, claim.ownerUserId, now)
  const workKey = exportWorkKey(claim)
  try {
    const { stored, items } = await whileHeartbeating(
      { everyMs: heartbeatMs, logger, stopping: signal, what: 'the export' },
      () => run((ctx) => reportExportProgress(ctx, claim)),
      async (working) => {
        const made = await makeExport(options, claim)
        let items = 0
        const writing = store.put(workKey, made.doc)
        // Awaited below; when the writer fails first, this fails too (the document is destroyed) and is not the error to tell.
        writing.catch(() => undefined)
        await made
          .write(async (batch) => {
            items += batch
            if (working.aborted) throw working.reason
            if (!(await run((ctx) => reportExportProgress(ctx, claim, items)))) throw new ClaimLost('the export')
            await options.afterBatch?.(claim, items)
            if (working.aborted) throw working.reason
            // Aborted by a stop or a lost claim: whileHeartbeating throws the reason, not the timer's AbortError.
            if (options.pauseMs) await sleep(options.pauseMs, undefined, { signal: working })
          })
          .catch((error: unknown) => {
            // The store may not be reading the document yet (the file store makes its folder first): an 'error' event
            // nobody listens to would be an uncaught exception. The store's pipeline still sees the document destroyed.
            made.doc.on('error', () => undefined)
            made.doc.destroy(error instanceof Error ? error : new Error(String(error)))
            throw error
          })
        return { stored: await writing, items }
      },
    )
    const key = exportKey(claim, stored.sha256)
    await store.move(workKey, key)
    const expiresAt = new Date(now().getTime() + options.linkHours * 3_600_000)
    if (await run((ctx) => finishExportJob(ctx, claim, { key, size: stored.size, items }, expiresAt))) {
      logger.info({ tenantId: claim.tenantId, jobId: claim.jobId, kind: claim.kind, items, bytes: stored.size, attempt: claim.attempt }, 'export ready')
      if (claim.notify) await mailOwner(options, claim, 'ready', { expiresAt })
      return 'ready'
    }
    await store.delete(key)
    return 'lost'
  } catch (error) {
    await store.delete(workKey).catch(() => undefined)
    if (error instanceof Stopping) {
      await run((ctx) => releaseExportJob(ctx, claim)).catch((releaseError: unknown) => logger.warn({ err: releaseError }, 'an export could not be handed back'))
      return 'lost'
    }
    if (error instanceof ClaimLost) return 'lost'
    const reason = reasonOf(error)
    logger.warn({ err: error, tenantId: claim.tenantId, jobId: claim.jobId, attempt: claim.attempt }, 'export failed')
    if (await run((ctx) => failExportJob(ctx, claim, reason))) {
      if (claim.notify) await mailOwner(options, claim, 'failed', { error: reason })
    }
    return 'failed'
  }
}

/** Deletes the files of the tenant's exports whose link expired. */
async function purgeExpired(options: ExportJobOptions, tenantId: string): Promise<void> {
  const { db, store, now = () => new Date() } = options
  const keys = await withTenant(db, tenantId, (tx) => takeExpiredFiles({ tx, actor: { tenantId, userId: '', roleKey: 'admin' }, now: now() }))
  for (const key of keys) await store.delete(key).catch((error: unknown) => options.logger.warn({ err: error, key }, 'an expired export’s file could not be deleted'))
}

/** One pass: in each tenant (or only those given), deletes expired files, then claims and writes exports until none is left. */
export async function runExportPass(options: ExportJobOptions, tenantIds?: readonly string[], signal?: AbortSignal): Promise<number> {
  const { db, now = () => new Date() } = options
  return claimEach(
    db,
    tenantIds,
    signal,
    async (tenantId) => {
      await purgeExpired(options, tenantId)
      return tenantRunner(db, tenantId, '', now)((ctx) => claimExportJob(ctx, new Date(now().getTime() - EXPORT_JOB_STALE_MS)))
    },
    (claim) => exportOne(options, claim, signal),
  )
}

/** Starts the job on this instance: a pass at once, then every `intervalMs` (10 s), and on every nudge. */
export function startExportJobs(options: ExportJobOptions): ClaimingJob {
  const job = startClaimingJob({ name: 'export jobs', logger: options.logger, intervalMs: options.intervalMs ?? 10_000, pass: (tenantIds, signal) => runExportPass(options, tenantIds, signal) })
  jobs.add(job)
  return {
    ...job,
    async stop() {
      jobs.delete(job)
      await job.stop()
    },
  }
}
