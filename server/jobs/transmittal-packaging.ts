import { tenants } from '#server/db/schema'
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

export type PackagingJob = {
  /** Looks for work in the tenant now (a package was just queued there). */
  nudge(tenantId: string): void
  /** Resolves once no pass is running (tests, and the bench, wait on it). */
  whenIdle(): Promise<void>
  stop(): Promise<void>
}

class ClaimLost extends Error {
  constructor() {
    super('another instance took the package over')
    this.name = 'ClaimLost'
  }
}

class Stopping extends Error {
  constructor() {
    super('the instance is stopping')
    this.name = 'Stopping'
  }
}

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
  const controller = new AbortController()
  const stop = () => controller.abort(signal?.reason ?? new Stopping())
  if (signal?.aborted) stop()
  signal?.addEventListener('abort', stop, { once: true })
  const heartbeat = setInterval(() => {
    run((ctx) => reportProgress(ctx, claim))
      .then((ok) => {
        if (!ok) controller.abort(new ClaimLost())
      })
      .catch((error: unknown) => logger.warn({ err: error, packageId: claim.packageId }, 'a packaging heartbeat failed'))
  }, heartbeatMs)
  heartbeat.unref()
  const workKey = packageWorkKey(claim.tenantId, claim.transmittalId, claim.packageId, claim.attempt)
  try {
    const stored = await writePackage(
      store,
      workKey,
      contents,
      async (progress) => {
        if (!(await run((ctx) => reportProgress(ctx, claim, progress)))) throw new ClaimLost()
      },
      controller.signal,
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
    const reason: unknown = controller.signal.aborted ? controller.signal.reason : error
    if (reason instanceof Stopping) {
      await run((ctx) => releasePackage(ctx, claim)).catch((releaseError: unknown) => logger.warn({ err: releaseError }, 'a package could not be handed back'))
      return 'lost'
    }
    if (reason instanceof ClaimLost || error instanceof ClaimLost) return 'lost'
    const message = reason instanceof PackageFileError ? reason.message : 'Packaging failed unexpectedly; start it again.'
    logger.warn({ err: error, tenantId: claim.tenantId, packageId: claim.packageId, attempt: claim.attempt }, 'transmittal packaging failed')
    await run((ctx) => failPackage(ctx, claim, message))
    return 'failed'
  } finally {
    clearInterval(heartbeat)
    signal?.removeEventListener('abort', stop)
  }
}

/**
 * One pass: in each tenant (or only those given), claims and builds packages until none is left to
 * claim. Answers how many it built or failed.
 */
export async function runPackagingPass(options: PackagingOptions, tenantIds?: readonly string[], signal?: AbortSignal): Promise<number> {
  const { db, now = () => new Date() } = options
  const ids = tenantIds ?? (await db.select({ id: tenants.id }).from(tenants)).map((t) => t.id)
  let handled = 0
  for (const tenantId of ids) {
    while (!signal?.aborted) {
      const staleBefore = new Date(now().getTime() - PACKAGE_STALE_MS)
      const claim = await tenantRunner(db, tenantId, null, now)((ctx) => claimPackage(ctx, staleBefore))
      if (!claim) break
      if ((await packageOne(options, claim, signal)) !== 'lost') handled++
    }
  }
  return handled
}

/** Starts the job on this instance: a pass at once, then every `intervalMs`, and on every nudge; one pass at a time. */
export function startTransmittalPackaging(options: PackagingOptions): PackagingJob {
  const { logger, intervalMs = 10_000 } = options
  const controller = new AbortController()
  let stopped = false
  let running: Promise<void> | undefined
  // Work asked for while a pass runs: every tenant, or these.
  let pending: Set<string> | 'all' | undefined
  const run = (tenantIds?: string[]) => {
    if (stopped) return
    if (running) {
      pending = tenantIds === undefined || pending === 'all' ? 'all' : new Set([...(pending ?? []), ...tenantIds])
      return
    }
    running = runPackagingPass(options, tenantIds, controller.signal)
      .then(() => undefined)
      .catch((error: unknown) => logger.error({ err: error, job: 'transmittal packaging' }, 'transmittal packaging pass failed'))
      .finally(() => {
        running = undefined
        const next = pending
        pending = undefined
        if (next !== undefined) run(next === 'all' ? undefined : [...next])
      })
  }
  const timer = setInterval(() => run(), intervalMs)
  timer.unref()
  const job: PackagingJob = {
    nudge: (tenantId) => run([tenantId]),
    async whenIdle() {
      while (running) await running
    },
    async stop() {
      stopped = true
      clearInterval(timer)
      jobs.delete(job)
      controller.abort(new Stopping())
      await running
    },
  }
  jobs.add(job)
  run()
  return job
}
