import type { Database } from '#server/db/client'
import { withTenant } from '#server/db/tenancy'
import {
  claimPackage,
  failPackage,
  finishPackage,
  packageContents,
  packageKey,
  packageWorkKey,
  PACKAGE_HEARTBEAT_MS,
  PACKAGE_STALE_MS,
  releasePackage,
  reportProgress,
  type Claim,
} from '#server/domain/doc-control/packaging'
import { PackageFileError, writePackage } from '#server/domain/doc-control/packaging-zip'
import type { DomainContext } from '#server/domain/tenancy/context'
import type { Logger } from '#server/http/logger'
import type { BlobStore } from '#server/storage/blob-store'
import { claimEach, ClaimLost, startClaimingJob, Stopping, whileHeartbeating, type ClaimingJob } from './claimed-rows'

/**
 * The transmittal packaging job (docs/doc-control.md "Packaging"), on every instance. Packages are
 * tenant rows under forced row-level security, so a pass walks the tenants and claims in each one's
 * transaction (FOR UPDATE SKIP LOCKED: two instances never take the same package), then builds the
 * package outside any transaction, writing progress and a heartbeat in short ones. A package whose
 * heartbeat stopped for a minute (its instance died) is claimed again by the next pass anywhere and
 * starts over from the first file. Passes run every `intervalMs` and at once when this instance
 * queues a package (`nudgePackaging`), so the person waiting sees progress within a moment.
 */

export type PackagingOptions = {
  db: Database
  store: BlobStore
  logger: Logger
  now?: () => Date
  /** How often a pass looks for work in every tenant (10 s by default); a request on this instance starts one at once. */
  intervalMs?: number
  heartbeatMs?: number
}

export type PackagingJob = ClaimingJob

const jobs = new Set<PackagingJob>()

/** Wakes this process's packaging jobs: a package was queued in the tenant. */
export function nudgePackaging(tenantId: string): void {
  for (const job of jobs) job.nudge(tenantId)
}

function tenantRunner(db: Database, tenantId: string, userId: string | null, now: () => Date) {
  return <T>(work: (ctx: DomainContext) => Promise<T>) => withTenant(db, tenantId, (tx) => work({ tx, actor: { tenantId, userId: userId ?? '', roleKey: 'admin' }, now: now() }))
}

/** Builds one claimed package to its end: ready, failed (with a message for the person waiting), or lost to another instance or a stop. */
export async function packageOne(options: PackagingOptions, claim: Claim, signal?: AbortSignal): Promise<'ready' | 'failed' | 'lost'> {
  const { db, store, logger, now = () => new Date(), heartbeatMs = PACKAGE_HEARTBEAT_MS } = options
  const run = tenantRunner(db, claim.tenantId, claim.requestedBy, now)
  const contents = await run((ctx) => packageContents(ctx, claim))
  if (!contents) return 'lost'
  const workKey = packageWorkKey(claim.tenantId, claim.transmittalId, claim.packageId, claim.attempt)
  try {
    const stored = await whileHeartbeating(
      { everyMs: heartbeatMs, logger, stopping: signal, what: 'the package' },
      () => run((ctx) => reportProgress(ctx, claim)),
      (working) =>
        writePackage(
          store,
          workKey,
          contents,
          async (progress) => {
            if (!(await run((ctx) => reportProgress(ctx, claim, progress)))) throw new ClaimLost('the package')
          },
          working,
        ),
    )
    const key = packageKey(claim.tenantId, claim.transmittalId, claim.packageId, claim.attempt, stored.sha256)
    await store.move(workKey, key)
    if (await run((ctx) => finishPackage(ctx, claim, { key, size: stored.size, filesDone: stored.filesDone, bytesDone: stored.bytesDone }))) {
      logger.info({ tenantId: claim.tenantId, packageId: claim.packageId, files: stored.filesDone, bytes: stored.size, attempt: claim.attempt }, 'transmittal packaged')
      return 'ready'
    }
    await store.delete(key)
    return 'lost'
  } catch (error) {
    await store.delete(workKey).catch(() => undefined)
    if (error instanceof Stopping) {
      await run((ctx) => releasePackage(ctx, claim)).catch((releaseError: unknown) => logger.warn({ err: releaseError }, 'a package could not be handed back'))
      return 'lost'
    }
    if (error instanceof ClaimLost) return 'lost'
    const message = error instanceof PackageFileError ? error.message : 'Packaging failed unexpectedly; start it again.'
    logger.warn({ err: error, tenantId: claim.tenantId, packageId: claim.packageId, attempt: claim.attempt }, 'transmittal packaging failed')
    await run((ctx) => failPackage(ctx, claim, message))
    return 'failed'
  }
}

/**
 * One pass: in each tenant (or only those given), claims and builds packages until none is left to
 * claim. Answers how many it built or failed.
 */
export async function runPackagingPass(options: PackagingOptions, tenantIds?: readonly string[], signal?: AbortSignal): Promise<number> {
  const { db, now = () => new Date() } = options
  return claimEach(
    db,
    tenantIds,
    signal,
    (tenantId) => tenantRunner(db, tenantId, null, now)((ctx) => claimPackage(ctx, new Date(now().getTime() - PACKAGE_STALE_MS))),
    (claim) => packageOne(options, claim, signal),
  )
}

/** Starts the job on this instance: a pass at once, then every `intervalMs`, and on every nudge; one pass at a time. */
export function startTransmittalPackaging(options: PackagingOptions): PackagingJob {
  const job = startClaimingJob({
    name: 'transmittal packaging',
    logger: options.logger,
    intervalMs: options.intervalMs ?? 10_000,
    pass: (tenantIds, signal) => runPackagingPass(options, tenantIds, signal),
  })
  jobs.add(job)
  return {
    ...job,
    async stop() {
      jobs.delete(job)
      await job.stop()
    },
  }
}
