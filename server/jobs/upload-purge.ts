import { tenants } from '#server/db/schema'
import type { Database } from '#server/db/client'
import { withTenant } from '#server/db/tenancy'
import { expireSessions } from '#server/domain/photos/uploads'
import type { Logger } from '#server/http/logger'
import type { BlobStore } from '#server/storage/blob-store'

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
      const keys = await withTenant(db, tenant.id, (tx) => expireSessions({ tx, actor: { tenantId: tenant.id, userId: '', roleKey: 'read-only' }, now: now() }, BATCH))
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

/** Runs the purge every `intervalMs` (10 minutes by default) until stopped. */
export function startUploadPurge(options: { db: Database; store: BlobStore; logger: Logger; intervalMs?: number }): { stop(): Promise<void> } {
  const { db, store, logger, intervalMs = 10 * 60_000 } = options
  let stopped = false
  let running: Promise<unknown> = Promise.resolve()
  const timer = setInterval(() => {
    running = running
      .then(async () => {
        if (stopped) return
        const purged = await purgeExpiredUploads(db, store, logger, () => new Date())
        if (purged > 0) logger.info({ purged }, 'expired uploads purged')
      })
      .catch((error: unknown) => logger.error({ err: error }, 'upload purge pass failed'))
  }, intervalMs)
  timer.unref()
  return {
    async stop() {
      stopped = true
      clearInterval(timer)
      await running
    },
  }
}
