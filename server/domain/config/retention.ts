import { and, asc, eq, inArray, isNotNull, isNull, lte, gt, sql } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { tenants } from '#server/db/schema'
import { retentionPolicies } from '#server/db/schema-admin'
import { reportItems, reports } from '#server/db/schema-reporting'
import { rowsOf, withTenant } from '#server/db/tenancy'
import { recordAuditIn } from '#server/domain/audit'
import { recordChange } from '#server/domain/tenancy/change-log'
import type { DomainContext } from '#server/domain/tenancy/context'
import { refuseStaleWrite } from '#server/domain/tenancy/edit-conflict'
import type { RetentionHealth, RetentionPolicy, RetentionPolicyInput } from '~/lib/schemas/admin-retention'

/**
 * Retention (docs/admin/shell-and-retention.md "Retention"): one policy per organisation. A closed
 * item is archived `archiveAfterDays` after it closed (report_items.archived_at) and purged —
 * deleted, its photos, responses and activity with it — `purgeAfterDays` after it closed, once
 * archived. An archived report with no live item left is purged `purgeAfterDays` after it was
 * archived. The job (server/jobs/retention.ts) runs `runRetentionPass` hourly; each organisation's
 * passes are a day apart (RETENTION_SPACING_MS).
 */

const DAY_MS = 24 * 60 * 60_000
/**
 * An organisation's passes are at least this far apart, whatever the job's clock says: the job
 * looks every hour and at start (a server restarted more often than daily would otherwise never
 * reach its next day), and an organisation whose last pass is younger is left alone. An item
 * archived by one pass is so purged a day later at the soonest, never by a restart a minute on.
 * Under a day, so a pass that ran a little late does not push every later one back by an hour.
 */
export const RETENTION_SPACING_MS = 23 * 60 * 60_000
/** Items purged per transaction: each is a change-log entry. The pass loops until less is left. */
const BATCH = 500

export const RETENTION_DEFAULTS = { enabled: false, archiveAfterDays: 365, purgeAfterDays: 2555 } as const

type PolicyRow = typeof retentionPolicies.$inferSelect
type Meta = { ip?: string | undefined; correlationId?: string | undefined }

async function policyRow(ctx: DomainContext, options: { lock?: boolean } = {}): Promise<PolicyRow | undefined> {
  const query = ctx.tx.select().from(retentionPolicies).where(eq(retentionPolicies.tenantId, ctx.actor.tenantId)).limit(1)
  const [row] = options.lock ? await query.for('update') : await query
  return row
}

function policyView(row: PolicyRow | undefined): RetentionPolicy {
  return {
    enabled: row?.enabled ?? RETENTION_DEFAULTS.enabled,
    archiveAfterDays: row?.archiveAfterDays ?? RETENTION_DEFAULTS.archiveAfterDays,
    purgeAfterDays: row?.purgeAfterDays ?? RETENTION_DEFAULTS.purgeAfterDays,
    lastRunAtUtc: row?.lastRunAt?.toISOString() ?? null,
    updatedAtUtc: row?.updatedAt.toISOString() ?? null,
    revision: row?.revision ?? 0,
  }
}

export async function getRetentionPolicy(ctx: DomainContext): Promise<RetentionPolicy> {
  return policyView(await policyRow(ctx))
}

/**
 * Saves the policy (audited admin.retention.changed with what it was and what it is now). A save
 * against an older revision of the policy is refused (409 KR_EDIT_CONFLICT with the policy now).
 */
export async function putRetentionPolicy(ctx: DomainContext, { expectedRevision, ...input }: RetentionPolicyInput, meta: Meta): Promise<RetentionPolicy> {
  const saved = await policyRow(ctx, { lock: true })
  const refuseSince = (now: PolicyRow | undefined, expected: number | undefined) =>
    refuseStaleWrite(ctx, { revision: now?.revision ?? 0, updatedBy: now?.updatedBy ?? null, what: 'retention policy' }, expected, async () => policyView(now))
  await refuseSince(saved, expectedRevision)
  const before = policyView(saved)
  const [row] = await ctx.tx
    .insert(retentionPolicies)
    .values({ tenantId: ctx.actor.tenantId, ...input, updatedBy: ctx.actor.userId, revision: 1, createdAt: ctx.now, updatedAt: ctx.now })
    .onConflictDoUpdate({
      target: retentionPolicies.tenantId,
      set: { ...input, updatedBy: ctx.actor.userId, revision: sql`${retentionPolicies.revision} + 1`, updatedAt: ctx.now },
      // A first save by someone else between the read above and this write: this one is the stale one.
      setWhere: eq(retentionPolicies.revision, saved?.revision ?? 0),
    })
    .returning()
  if (!row) {
    await refuseSince(await policyRow(ctx, { lock: true }), saved?.revision ?? 0)
    throw new Error('retention policy not stored')
  }
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action: 'admin.retention.changed',
    targetType: 'RetentionPolicy',
    targetId: ctx.actor.tenantId,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data: {
      from: { enabled: before.enabled, archiveAfterDays: before.archiveAfterDays, purgeAfterDays: before.purgeAfterDays },
      to: input,
    },
    at: ctx.now,
  })
  return policyView(row)
}

type Cutoffs = { archiveBefore: Date; purgeBefore: Date }

function cutoffsOf(policy: { archiveAfterDays: number; purgeAfterDays: number }, now: Date): Cutoffs {
  return { archiveBefore: new Date(now.getTime() - policy.archiveAfterDays * DAY_MS), purgeBefore: new Date(now.getTime() - policy.purgeAfterDays * DAY_MS) }
}

const live = (tenantId: string) => and(eq(reportItems.tenantId, tenantId), isNull(reportItems.deletedAt))
/** Closed, live, not archived, closed at or before the cutoff. */
const archivable = (tenantId: string, before: Date) =>
  and(live(tenantId), eq(reportItems.status, 'closed'), isNull(reportItems.archivedAt), isNotNull(reportItems.closedAt), lte(reportItems.closedAt, before))
/** Archived, still closed, closed at or before the purge cutoff. */
const purgeable = (tenantId: string, before: Date) =>
  and(live(tenantId), eq(reportItems.status, 'closed'), isNotNull(reportItems.archivedAt), isNotNull(reportItems.closedAt), lte(reportItems.closedAt, before))
/** Archived reports archived at or before the cutoff with no live item left (deleted items go with them). */
const purgeableReport = (tenantId: string, before: Date) =>
  and(
    eq(reports.tenantId, tenantId),
    eq(reports.status, 'archived'),
    isNotNull(reports.archivedAt),
    lte(reports.archivedAt, before),
    sql`not exists (select 1 from ${reportItems} ri where ri.tenant_id = ${reports.tenantId} and ri.report_id = ${reports.id} and ri.deleted_at is null)`,
  )

const count = sql<number>`count(*)`.mapWith(Number)
/** The earliest of a timestamp column, as epoch milliseconds (null for no rows). */
const earliest = (column: typeof reportItems.closedAt | typeof reports.archivedAt) =>
  sql<number | null>`(extract(epoch from min(${column})) * 1000)::float8`.mapWith((v) => (v === null ? null : Number(v)))

/**
 * Spec §3 "Retention health": live items not archived (active), archived items, rows purged so
 * far, what is due for archiving or purging now, and when the next one falls due (a moment after
 * now; null when nothing is waiting). With the policy off nothing is due.
 */
export async function retentionHealth(ctx: DomainContext): Promise<RetentionHealth & { enabled: boolean }> {
  const tenantId = ctx.actor.tenantId
  const row = await policyRow(ctx)
  const policy = policyView(row)
  const [items] = await ctx.tx
    .select({
      active: sql<number>`count(*) filter (where ${reportItems.archivedAt} is null)`.mapWith(Number),
      archived: sql<number>`count(*) filter (where ${reportItems.archivedAt} is not null)`.mapWith(Number),
    })
    .from(reportItems)
    .where(live(tenantId))
  const health = { activeCount: items?.active ?? 0, archivedCount: items?.archived ?? 0, purgedCount: row?.purgedCount ?? 0, dueCount: 0, nextDueAtUtc: null as string | null }
  if (!policy.enabled) return { ...health, enabled: false }

  const { archiveBefore, purgeBefore } = cutoffsOf(policy, ctx.now)
  const [toArchive] = await ctx.tx.select({ n: count }).from(reportItems).where(archivable(tenantId, archiveBefore))
  const [toPurge] = await ctx.tx.select({ n: count }).from(reportItems).where(purgeable(tenantId, purgeBefore))
  const [reportsToPurge] = await ctx.tx.select({ n: count }).from(reports).where(purgeableReport(tenantId, purgeBefore))

  // The next to fall due: the earliest of each kind still waiting, plus its age.
  const [nextArchive] = await ctx.tx
    .select({ at: earliest(reportItems.closedAt) })
    .from(reportItems)
    .where(and(live(tenantId), eq(reportItems.status, 'closed'), isNull(reportItems.archivedAt), gt(reportItems.closedAt, archiveBefore)))
  const [nextPurge] = await ctx.tx
    .select({ at: earliest(reportItems.closedAt) })
    .from(reportItems)
    .where(and(live(tenantId), eq(reportItems.status, 'closed'), isNotNull(reportItems.closedAt), gt(reportItems.closedAt, purgeBefore)))
  const [nextReport] = await ctx.tx
    .select({ at: earliest(reports.archivedAt) })
    .from(reports)
    .where(
      and(
        eq(reports.tenantId, tenantId),
        eq(reports.status, 'archived'),
        gt(reports.archivedAt, purgeBefore),
        sql`not exists (select 1 from ${reportItems} ri where ri.tenant_id = ${reports.tenantId} and ri.report_id = ${reports.id} and ri.deleted_at is null)`,
      ),
    )
  const candidates = [
    nextArchive?.at != null ? nextArchive.at + policy.archiveAfterDays * DAY_MS : undefined,
    nextPurge?.at != null ? nextPurge.at + policy.purgeAfterDays * DAY_MS : undefined,
    nextReport?.at != null ? nextReport.at + policy.purgeAfterDays * DAY_MS : undefined,
  ].filter((at): at is number => at !== undefined)
  return {
    ...health,
    enabled: true,
    dueCount: (toArchive?.n ?? 0) + (toPurge?.n ?? 0) + (reportsToPurge?.n ?? 0),
    nextDueAtUtc: candidates.length > 0 ? new Date(Math.min(...candidates)).toISOString() : null,
  }
}

export type RetentionRun = { tenantId: string; archived: number; purgedItems: number; purgedReports: number }

/**
 * One pass of the daily job over every organisation with an enabled policy, at `now`. Each
 * organisation is worked in its own transaction, claimed with a transaction-scoped advisory lock:
 * a second instance running the pass at the same moment skips the organisations the first holds.
 * Purging runs before archiving, so an item archived by this pass is purged no sooner than the next.
 */
export async function runRetentionPass(db: Database, now: Date): Promise<RetentionRun[]> {
  const runs: RetentionRun[] = []
  for (const tenant of await db.select({ id: tenants.id }).from(tenants).orderBy(asc(tenants.id))) {
    const run = await withTenant(db, tenant.id, (tx) => runForTenant({ tx, actor: { tenantId: tenant.id, userId: '', roleKey: 'read-only' }, now }))
    if (run) runs.push(run)
  }
  return runs
}

async function runForTenant(ctx: DomainContext): Promise<RetentionRun | undefined> {
  const tenantId = ctx.actor.tenantId
  // Claimed first, so the policy read next is the one a pass that just finished wrote (its last run).
  const claimed = rowsOf<{ ok: boolean }>(await ctx.tx.execute(sql`select pg_try_advisory_xact_lock(hashtextextended(${`retention:${tenantId}`}, 0)) as ok`))[0]
  if (!claimed?.ok) return undefined
  const [policy] = await ctx.tx.select().from(retentionPolicies).where(eq(retentionPolicies.tenantId, tenantId)).limit(1)
  if (!policy?.enabled) return undefined
  if (policy.lastRunAt && ctx.now.getTime() - policy.lastRunAt.getTime() < RETENTION_SPACING_MS) return undefined
  const { archiveBefore, purgeBefore } = cutoffsOf(policy, ctx.now)

  // Purge archived items past the purge age: their photos, responses and activity go with them (cascade).
  let purgedItems = 0
  const touchedReports = new Set<string>()
  for (;;) {
    const doomed = await ctx.tx
      .select({ id: reportItems.id, reportId: reportItems.reportId })
      .from(reportItems)
      .where(purgeable(tenantId, purgeBefore))
      .orderBy(asc(reportItems.closedAt), asc(reportItems.id))
      .limit(BATCH)
    if (doomed.length === 0) break
    await ctx.tx.delete(reportItems).where(
      and(
        eq(reportItems.tenantId, tenantId),
        inArray(
          reportItems.id,
          doomed.map((d) => d.id),
        ),
      ),
    )
    for (const item of doomed) {
      await recordChange(ctx, 'ReportItem', item.id, 'Deleted')
      touchedReports.add(item.reportId)
    }
    purgedItems += doomed.length
    if (doomed.length < BATCH) break
  }

  // Archived reports past the purge age with no live item left.
  const doomedReports = await ctx.tx.select({ id: reports.id }).from(reports).where(purgeableReport(tenantId, purgeBefore))
  if (doomedReports.length > 0) {
    const ids = doomedReports.map((r) => r.id)
    await ctx.tx.delete(reports).where(and(eq(reports.tenantId, tenantId), inArray(reports.id, ids)))
    for (const id of ids) {
      await recordChange(ctx, 'Report', id, 'Deleted')
      touchedReports.delete(id)
    }
  }
  // A report that lost items has new item counts: sync clients read it again.
  for (const reportId of touchedReports) {
    const revision = await recordChange(ctx, 'Report', reportId, 'Updated')
    await ctx.tx
      .update(reports)
      .set({ revision })
      .where(and(eq(reports.tenantId, tenantId), eq(reports.id, reportId)))
  }

  // Archive closed items past the archive age. Nothing a client shows changes, so no change entry.
  const archived = await ctx.tx.update(reportItems).set({ archivedAt: ctx.now }).where(archivable(tenantId, archiveBefore)).returning({ id: reportItems.id })

  const purged = purgedItems + doomedReports.length
  await ctx.tx
    .update(retentionPolicies)
    .set({ lastRunAt: ctx.now, purgedCount: sql`${retentionPolicies.purgedCount} + ${purged}` })
    .where(eq(retentionPolicies.tenantId, tenantId))
  await recordAuditIn(ctx.tx, {
    tenantId,
    action: 'admin.retention.ran',
    targetType: 'RetentionPolicy',
    targetId: tenantId,
    data: { archived: archived.length, purgedItems, purgedReports: doomedReports.length, archiveAfterDays: policy.archiveAfterDays, purgeAfterDays: policy.purgeAfterDays },
    at: ctx.now,
  })
  return { tenantId, archived: archived.length, purgedItems, purgedReports: doomedReports.length }
}
