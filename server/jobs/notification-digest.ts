import { and, asc, eq, isNull, lt, or, sql } from 'drizzle-orm'
import type { Database, Tx } from '#server/db/client'
import { memberships, tenants, users } from '#server/db/schema'
import { projects, reportItems } from '#server/db/schema-reporting'
import { notificationPreferences } from '#server/db/schema-settings'
import { withTenant } from '#server/db/tenancy'
import { effectiveGeneralConfig } from '#server/domain/config/effective'
import { enqueueMail } from '#server/domain/mail'
import { todayUtc } from '#server/domain/reporting/item-view'
import { publicBase, type MailLinks } from '#server/domain/reporting/item-mail'
import type { Logger } from '#server/http/logger'
import { startPeriodic, type PeriodicJob } from './periodic'

/** The local hour (the organisation's time zone, Configuration › General) from which the day's digest is due. */
export const DIGEST_HOUR = 6
/** At most this many items are listed in one digest; the counts cover all of them. */
export const DIGEST_ITEMS_MAX = 50

const STATUS_LABELS: Record<string, string> = { open: 'Open', close_requested: 'Close requested' }

/**
 * The daily digest (docs/settings-appearance-notifications.md "Daily digest"): once a day, from
 * DIGEST_HOUR in the organisation's time zone, each active member who chose `digest: daily` gets
 * one `digest` mail listing their open assigned items, overdue first; a member with none gets
 * nothing. The claim is a conditional UPDATE … RETURNING of `last_digest_at` in the transaction
 * that queues the mail: a second instance running the same pass waits for the first's row lock,
 * then finds the member already served today and skips them; a failed mail rolls its claim back.
 * Answers how many digests were queued.
 */
export async function sendDigests(db: Database, now: Date, links: MailLinks): Promise<number> {
  let sent = 0
  for (const tenant of await db.select({ id: tenants.id }).from(tenants)) {
    const general = await effectiveGeneralConfig(db, tenant.id)
    const slot = dailySlot(now, general.values.defaultTimeZone, DIGEST_HOUR)
    if (now < slot) continue
    const due = await withTenant(db, tenant.id, (tx) =>
      tx
        .select({ userId: notificationPreferences.userId })
        .from(notificationPreferences)
        .where(
          and(
            eq(notificationPreferences.tenantId, tenant.id),
            eq(notificationPreferences.digest, 'daily'),
            or(isNull(notificationPreferences.lastDigestAt), lt(notificationPreferences.lastDigestAt, slot)),
          ),
        ),
    )
    for (const { userId } of due) {
      if (await withTenant(db, tenant.id, (tx) => digestOne(tx, tenant.id, userId, now, slot, links))) sent += 1
    }
  }
  return sent
}

/** Claims one member's digest of today and queues it; false when another pass had it, or nothing is open. */
async function digestOne(tx: Tx, tenantId: string, userId: string, now: Date, slot: Date, links: MailLinks): Promise<boolean> {
  const claimed = await tx
    .update(notificationPreferences)
    .set({ lastDigestAt: now })
    .where(
      and(
        eq(notificationPreferences.tenantId, tenantId),
        eq(notificationPreferences.userId, userId),
        eq(notificationPreferences.digest, 'daily'),
        or(isNull(notificationPreferences.lastDigestAt), lt(notificationPreferences.lastDigestAt, slot)),
      ),
    )
    .returning({ userId: notificationPreferences.userId })
  if (claimed.length === 0) return false

  const [member] = await tx
    .select({ email: users.email, displayName: users.displayName })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId), eq(memberships.status, 'active'), eq(users.status, 'active')))
    .limit(1)
  if (!member) return false

  const today = todayUtc(now)
  const open = and(eq(reportItems.tenantId, tenantId), eq(reportItems.assigneeUserId, userId), sql`${reportItems.status} <> 'closed'`, isNull(reportItems.deletedAt))
  const [counts] = await tx
    .select({ open: sql<number>`count(*)::int`, overdue: sql<number>`count(*) filter (where ${reportItems.dueDate} < ${today}::date)::int` })
    .from(reportItems)
    .where(open)
  const openCount = Number(counts?.open ?? 0)
  if (openCount === 0) return false

  const rows = await tx
    .select({ id: reportItems.id, title: reportItems.title, status: reportItems.status, dueDate: reportItems.dueDate, projectTitle: projects.title })
    .from(reportItems)
    .innerJoin(projects, and(eq(projects.tenantId, reportItems.tenantId), eq(projects.id, reportItems.projectId)))
    .where(open)
    // Overdue first (oldest due date first), then the rest by due date, undated last.
    .orderBy(sql`case when ${reportItems.dueDate} < ${today}::date then 0 else 1 end`, sql`${reportItems.dueDate} asc nulls last`, asc(reportItems.createdAt))
    .limit(DIGEST_ITEMS_MAX)
  const base = await publicBase(tx as unknown as Database, tenantId, links)
  await enqueueMail(tx as unknown as Database, {
    tenantId,
    to: member.email,
    template: 'digest',
    variables: {
      recipientName: member.displayName,
      itemsUrl: `${base}/items?assignee=me`,
      openAssignedCount: openCount,
      overdueCount: Number(counts?.overdue ?? 0),
      items: rows.map((row) => ({
        title: row.title,
        url: `${base}/items/${row.id}`,
        projectName: row.projectTitle || 'Untitled Project',
        dueDate: row.dueDate ?? '',
        status: row.dueDate !== null && row.dueDate < today ? 'Overdue' : (STATUS_LABELS[row.status] ?? row.status),
      })),
    },
  })
  return true
}

/**
 * The instant of today's `hour`:00 in `timeZone` (UTC when the zone is unknown). The zone's offset
 * is read at `now`; on a day the clocks change the slot may move by that hour.
 */
export function dailySlot(now: Date, timeZone: string, hour: number): Date {
  let parts: Record<string, number>
  try {
    const format = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      hourCycle: 'h23',
    })
    parts = Object.fromEntries(format.formatToParts(now).flatMap((p) => (p.type === 'literal' ? [] : [[p.type, Number(p.value)]])))
  } catch {
    return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), hour))
  }
  const { year = 1970, month = 1, day = 1, hour: h = 0, minute = 0, second = 0 } = parts
  const offset = Date.UTC(year, month - 1, day, h, minute, second) - Math.floor(now.getTime() / 1000) * 1000
  return new Date(Date.UTC(year, month - 1, day, hour) - offset)
}

/** Runs the digest every `intervalMs` (15 minutes by default), one pass at a time, until stopped. */
export function startNotificationDigest(options: { db: Database; logger: Logger; links: MailLinks; intervalMs?: number }): PeriodicJob {
  const { db, logger, links, intervalMs = 15 * 60_000 } = options
  return startPeriodic({
    name: 'notification digest',
    lease: { db },
    intervalMs,
    logger,
    pass: async () => {
      const sent = await sendDigests(db, new Date(), links)
      if (sent > 0) logger.info({ sent }, 'daily digests queued')
    },
  })
}
