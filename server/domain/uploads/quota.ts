import { and, eq, gt, inArray, isNull, sql } from 'drizzle-orm'
import { tenants } from '#server/db/schema'
import { supportAttachments } from '#server/db/schema-admin'
import { documentRevisions } from '#server/db/schema-documents'
import { photoEdits, photos, uploadSessions } from '#server/db/schema-photos'
import { Problem } from '#server/http/problem'
import type { DomainContext } from '#server/domain/tenancy/context'

/**
 * The tenant's storage quota (tenants.storage_quota_bytes): the originals of its live photos, their
 * edited versions, its document revisions (never deleted: superseded ones stay downloadable), the
 * files attached to support tickets, and
 * the declared size of its open upload sessions of either purpose (space an upload may still
 * fill). Renditions and drawing sheet rasters are not counted. Checks take a per-tenant
 * transaction lock, so two uploads at once cannot both take the last free bytes.
 */
export type QuotaUse = { quotaBytes: number; usedBytes: number; reservedBytes: number }

export async function quotaUse(ctx: DomainContext, options: { exceptSessionId?: string } = {}): Promise<QuotaUse> {
  const tenantId = ctx.actor.tenantId
  await ctx.tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`quota:${tenantId}`}, 0))`)
  const [tenant] = await ctx.tx.select({ quota: tenants.storageQuotaBytes }).from(tenants).where(eq(tenants.id, tenantId)).limit(1)
  const [photoSum] = await ctx.tx
    .select({ bytes: sql<string | null>`sum(${photos.sizeBytes})` })
    .from(photos)
    .where(and(eq(photos.tenantId, tenantId), isNull(photos.deletedAt)))
  const [editSum] = await ctx.tx
    .select({ bytes: sql<string | null>`sum(${photoEdits.sizeBytes})` })
    .from(photoEdits)
    .innerJoin(photos, and(eq(photos.tenantId, photoEdits.tenantId), eq(photos.id, photoEdits.photoId)))
    .where(and(eq(photoEdits.tenantId, tenantId), isNull(photos.deletedAt)))
  const [revisionSum] = await ctx.tx
    .select({ bytes: sql<string | null>`sum(${documentRevisions.sizeBytes})` })
    .from(documentRevisions)
    .where(eq(documentRevisions.tenantId, tenantId))
  const [attachmentSum] = await ctx.tx
    .select({ bytes: sql<string | null>`sum(${supportAttachments.sizeBytes})` })
    .from(supportAttachments)
    .where(eq(supportAttachments.tenantId, tenantId))
  const [openSum] = await ctx.tx
    .select({ bytes: sql<string | null>`sum(${uploadSessions.size})` })
    .from(uploadSessions)
    .where(
      and(
        eq(uploadSessions.tenantId, tenantId),
        inArray(uploadSessions.state, ['open', 'completing']),
        gt(uploadSessions.expiresAt, ctx.now),
        options.exceptSessionId ? sql`${uploadSessions.id} <> ${options.exceptSessionId}` : undefined,
      ),
    )
  return {
    quotaBytes: tenant?.quota ?? 0,
    usedBytes: Number(photoSum?.bytes ?? 0) + Number(editSum?.bytes ?? 0) + Number(revisionSum?.bytes ?? 0) + Number(attachmentSum?.bytes ?? 0),
    reservedBytes: Number(openSum?.bytes ?? 0),
  }
}

/** Refuses `bytes` more when they do not fit: 413 KR_QUOTA_EXCEEDED with the numbers. */
export async function ensureQuota(ctx: DomainContext, bytes: number, options: { exceptSessionId?: string } = {}): Promise<void> {
  const use = await quotaUse(ctx, options)
  if (use.usedBytes + use.reservedBytes + bytes > use.quotaBytes) {
    throw new Problem({
      status: 413,
      title: 'Storage quota exceeded',
      detail: "The organisation's storage is full: this file does not fit.",
      code: 'KR_QUOTA_EXCEEDED',
      remediation: 'Delete photos that are no longer needed, or ask an administrator for more storage.',
      extensions: { quotaBytes: use.quotaBytes, usedBytes: use.usedBytes + use.reservedBytes, requestedBytes: bytes },
    })
  }
}
