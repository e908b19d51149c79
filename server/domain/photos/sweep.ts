import { and, eq, inArray, isNull, sql } from 'drizzle-orm'
import { documentRevisions } from '#server/db/schema-documents'
import { photoEdits, photos, uploadSessions } from '#server/db/schema-photos'
import type { BlobStore } from '#server/storage/blob-store'
import type { DomainContext } from '../tenancy/context'
import { isUuid } from '~/lib/schemas/uuid'

/**
 * Nothing orphaned after a crash (docs/photos.md "Crashes"). Complete moves the file into place,
 * makes the renditions, then inserts the row: a process that dies in between leaves files no row
 * names and a session stuck in `completing`. The sweep, per tenant:
 * - marks sessions `completing` for over an hour `failed` (reason `interrupted`) and deletes their
 *   staged bytes: the broken rows;
 * - deletes blobs under the tenant's photos that no live photo or edit names, and blobs under its
 *   revisions that no document revision names, once older than an hour (a complete in progress
 *   is younger: `move` touches the file);
 * - deletes staged bytes older than an hour that no open session owns (edit staging, leftovers).
 * Row first, then files; a photo row without its file cannot arise from complete (the file comes
 * first) and deletion marks the row before it deletes the bytes.
 */

export const STRAY_AGE_MS = 60 * 60_000
const BATCH = 500

export type SweepResult = { interruptedSessions: number; strayBlobs: number; strayStaged: number }

/** The stale `completing` sessions of the tenant, marked failed: their staging keys. */
export async function markInterrupted(ctx: DomainContext, olderThan: Date): Promise<string[]> {
  const rows = await ctx.tx
    .update(uploadSessions)
    .set({ state: 'failed', failureReason: 'interrupted', leaseToken: null, leaseExpiresAt: null, updatedAt: ctx.now })
    .where(
      and(
        eq(uploadSessions.tenantId, ctx.actor.tenantId),
        sql`${uploadSessions.id} in (select id from upload_sessions where tenant_id = ${ctx.actor.tenantId} and state = 'completing' and updated_at <= ${olderThan.toISOString()} limit ${BATCH} for update skip locked)`,
      ),
    )
    .returning({ stagingKey: uploadSessions.stagingKey })
  return rows.map((r) => r.stagingKey)
}

/** Of the given photo ids, every blob key a live photo or its edits names. */
async function referencedKeys(ctx: DomainContext, photoIds: string[]): Promise<Set<string>> {
  const keys = new Set<string>()
  if (photoIds.length === 0) return keys
  const live = await ctx.tx
    .select({ id: photos.id, originalKey: photos.originalKey, displayKey: photos.displayKey, thumbnailKey: photos.thumbnailKey })
    .from(photos)
    .where(and(eq(photos.tenantId, ctx.actor.tenantId), inArray(photos.id, photoIds), isNull(photos.deletedAt)))
  const liveIds = live.map((p) => p.id)
  const edits =
    liveIds.length === 0
      ? []
      : await ctx.tx
          .select({ blobKey: photoEdits.blobKey, displayKey: photoEdits.displayKey, thumbnailKey: photoEdits.thumbnailKey })
          .from(photoEdits)
          .where(and(eq(photoEdits.tenantId, ctx.actor.tenantId), inArray(photoEdits.photoId, liveIds)))
  for (const row of [...live.map((p) => [p.originalKey, p.displayKey, p.thumbnailKey]), ...edits.map((e) => [e.blobKey, e.displayKey, e.thumbnailKey])]) {
    for (const key of row) if (key) keys.add(key)
  }
  return keys
}

/** Of the given revision ids, every blob key a revision names (revisions are never deleted). */
async function referencedRevisionKeys(ctx: DomainContext, revisionIds: string[]): Promise<Set<string>> {
  if (revisionIds.length === 0) return new Set()
  const rows = await ctx.tx
    .select({ blobKey: documentRevisions.blobKey, sheetKey: documentRevisions.sheetKey })
    .from(documentRevisions)
    .where(and(eq(documentRevisions.tenantId, ctx.actor.tenantId), inArray(documentRevisions.id, revisionIds)))
  return new Set(rows.flatMap((r) => (r.sheetKey ? [r.blobKey, r.sheetKey] : [r.blobKey])))
}

/** Staging keys of the tenant's sessions that are still open (their bytes are an upload in progress). */
async function openStagingKeys(ctx: DomainContext, sessionIds: string[]): Promise<Set<string>> {
  if (sessionIds.length === 0) return new Set()
  const rows = await ctx.tx
    .select({ stagingKey: uploadSessions.stagingKey })
    .from(uploadSessions)
    .where(and(eq(uploadSessions.tenantId, ctx.actor.tenantId), inArray(uploadSessions.id, sessionIds), eq(uploadSessions.state, 'open')))
  return new Set(rows.map((r) => r.stagingKey))
}

export type TenantRunner = <T>(work: (ctx: DomainContext) => Promise<T>) => Promise<T>

/** One tenant's sweep; `run` opens that tenant's transactions. */
export async function sweepTenant(run: TenantRunner, tenantId: string, store: BlobStore, now: Date, warn: (details: Record<string, unknown>, message: string) => void): Promise<SweepResult> {
  const olderThan = new Date(now.getTime() - STRAY_AGE_MS)
  const result: SweepResult = { interruptedSessions: 0, strayBlobs: 0, strayStaged: 0 }
  const remove = async (key: string) => {
    try {
      await store.delete(key)
      return true
    } catch (error) {
      warn({ err: error, key }, 'a stray photo blob could not be deleted')
      return false
    }
  }

  for (;;) {
    const staged = await run((ctx) => markInterrupted(ctx, olderThan))
    for (const key of staged) await remove(key)
    result.interruptedSessions += staged.length
    if (staged.length < BATCH) break
  }

  for (const [area, referenced] of [
    ['photos', referencedKeys],
    ['revisions', referencedRevisionKeys],
  ] as const) {
    const old = (await store.list(`${tenantId}/${area}`)).filter((e) => e.modifiedAt.getTime() <= olderThan.getTime())
    const ownerIds = [...new Set(old.map((e) => e.key.split('/')[2] ?? '').filter(isUuid))]
    for (let i = 0; i < ownerIds.length; i += BATCH) {
      const batch = ownerIds.slice(i, i + BATCH)
      const keep = await run((ctx) => referenced(ctx, batch))
      const inBatch = new Set(batch)
      for (const entry of old) {
        if (inBatch.has(entry.key.split('/')[2] ?? '') && !keep.has(entry.key) && (await remove(entry.key))) result.strayBlobs++
      }
    }
    // Anything there that is not in a photo's or revision's folder is no blob of ours either.
    for (const entry of old) {
      if (!isUuid(entry.key.split('/')[2] ?? '') && (await remove(entry.key))) result.strayBlobs++
    }
  }

  const oldStaged = (await store.list(`staging/${tenantId}`)).filter((e) => e.modifiedAt.getTime() <= olderThan.getTime())
  const sessionIds = oldStaged.flatMap((e) => {
    const id = /\/upload-([0-9a-f-]{36})$/.exec(e.key)?.[1]
    return id && isUuid(id) ? [id] : []
  })
  const open = await run((ctx) => openStagingKeys(ctx, sessionIds))
  for (const entry of oldStaged) {
    if (!open.has(entry.key) && (await remove(entry.key))) result.strayStaged++
  }
  return result
}
