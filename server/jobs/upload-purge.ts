import { tenants } from '#server/db/schema'
import type { Database } from '#server/db/client'
import { withTenant } from '#server/db/tenancy'
import { STRAY_AGE_MS, sweepTenant, type SweepResult } from '#server/domain/photos/sweep'
import { expireSessions } from '#server/domain/uploads/engine'
import type { DomainContext } from '#server/domain/tenancy/context'
import type { Logger } from '#server/http/logger'
import type { BlobStore } from '#server/storage/blob-store'
import { startPeriodic, type PeriodicJob } from './periodic'

const BATCH = 100

/**
 * Marks upload sessions past their expiry as expired and deletes their staged bytes (docs/photos.md
 * "Limits"). Sessions are tenant rows under row-level security, so the pass walks the tenants and
 * works in each one's transaction; SKIP LOCKED lets several instances run it at once. The row is
 * marked first and the bytes deleted after: a chunk still streaming in then finds the session
 * expired and deletes what it wrote.
 */
export async function purgeExpiredUploads(db: Database, store: BlobStore, logger: Logger, now: () => Date): Promise<number> {
  const tenantRows = await db.select({ id: tenants.id }).from(tenants)
  let purged = 0
  for (const tenant of tenantRows) {
    for (;;) {
      const keys = await tenantRunner(db, tenant.id, now())((ctx) => expireSessions(ctx, BATCH))
      for (const key of keys) {
        try {
          await store.delete(key)
        } catch (error) {
          logger.warn({ err: error, key }, 'staged upload bytes could not be deleted')
        }
      }
      purged += keys.length
      if (keys.length < BATCH) break
    }
  }
  return purged
}

/** The job's view of a tenant: its transactions, as the system (no user; row-level security applies). */
function tenantRunner(db: Database, tenantId: string, now: Date) {
  return <T>(work: (ctx: DomainContext) => Promise<T>) => withTenant(db, tenantId, (tx) => work({ tx, actor: { tenantId, userId: '', roleKey: 'read-only' }, now }))
}

/**
 * What a crash during complete may leave (docs/photos.md "Crashes"): sessions stuck in
 * `completing` are marked failed, blobs no row names and stray staged bytes are deleted once older
 * than an hour, and so are the store's own unfinished temporary files.
 */
export async function sweepStrayPhotos(db: Database, store: BlobStore, logger: Logger, now: () => Date): Promise<SweepResult> {
  const tenantRows = await db.select({ id: tenants.id }).from(tenants)
  const total: SweepResult = { interruptedSessions: 0, strayBlobs: 0, strayStaged: 0 }
  const at = now()
  for (const tenant of tenantRows) {
    const result = await sweepTenant(tenantRunner(db, tenant.id, at), tenant.id, store, at, (details, message) => logger.warn(details, message))
    total.interruptedSessions += result.interruptedSessions
    total.strayBlobs += result.strayBlobs
    total.strayStaged += result.strayStaged
  }
  total.strayStaged += await store.purgeTemporary(new Date(at.getTime() - STRAY_AGE_MS))
  return total
}

/** Runs the purge and the sweep once at start, then every `intervalMs` (10 minutes by default), until stopped. */
export function startUploadPurge(options: { db: Database; store: BlobStore; logger: Logger; intervalMs?: number }): PeriodicJob {
  const { db, store, logger, intervalMs = 10 * 60_000 } = options
  return startPeriodic({
    name: 'upload purge pass',
    lease: { db },
    intervalMs,
    logger,
    runAtStart: true,
    pass: async () => {
      const purged = await purgeExpiredUploads(db, store, logger, () => new Date())
      if (purged > 0) logger.info({ purged }, 'expired uploads purged')
      const swept = await sweepStrayPhotos(db, store, logger, () => new Date())
      if (swept.interruptedSessions + swept.strayBlobs + swept.strayStaged > 0) logger.info(swept, 'stray photo files and interrupted uploads swept')
    },
  })
}
