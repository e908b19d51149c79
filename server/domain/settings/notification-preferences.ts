import { and, eq } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { notificationPreferences } from '#server/db/schema-settings'
import { recordAuditIn } from '#server/domain/audit'
import { recordChange } from '#server/domain/tenancy/change-log'
import type { DomainContext } from '#server/domain/tenancy/context'
import { DEFAULT_NOTIFICATION_PREFERENCES, type NotificationPreferences } from '~/lib/settings/notifications'

/**
 * Which events mail a member, per organisation (spec §3 "Notification preferences";
 * docs/settings-appearance-notifications.md). Without a row the defaults apply: every event mails,
 * no daily digest.
 */

/** The events a member can choose to be mailed about (/settings/notifications). */
export type NotificationEvent = 'assigned' | 'response' | 'closeRequested' | 'reviewTask' | 'transmittal'

export type PreferencesMeta = { ip?: string | undefined; correlationId?: string | undefined }

const columns = {
  assigned: notificationPreferences.assigned,
  response: notificationPreferences.response,
  closeRequested: notificationPreferences.closeRequested,
  reviewTask: notificationPreferences.reviewTask,
  transmittal: notificationPreferences.transmittal,
  digest: notificationPreferences.digest,
}

type Row = { [K in keyof typeof columns]: K extends 'digest' ? string : boolean }

function toPreferences(row: Row | undefined): NotificationPreferences {
  if (!row) return { ...DEFAULT_NOTIFICATION_PREFERENCES }
  return { ...row, digest: row.digest === 'daily' ? 'daily' : 'off' }
}

async function readRow(db: Pick<Database, 'select'>, tenantId: string, userId: string): Promise<Row | undefined> {
  const [row] = await db
    .select(columns)
    .from(notificationPreferences)
    .where(and(eq(notificationPreferences.tenantId, tenantId), eq(notificationPreferences.userId, userId)))
    .limit(1)
  return row
}

/** GET /api/user/notification-preferences/: the member's own, in their current organisation. */
export async function getPreferences(ctx: DomainContext): Promise<NotificationPreferences> {
  return toPreferences(await readRow(ctx.tx, ctx.actor.tenantId, ctx.actor.userId))
}

/** PUT /api/user/notification-preferences/: replaces them all; audited with before and after. */
export async function putPreferences(ctx: DomainContext, input: NotificationPreferences, meta: PreferencesMeta = {}): Promise<NotificationPreferences> {
  const existing = await readRow(ctx.tx, ctx.actor.tenantId, ctx.actor.userId)
  const before = toPreferences(existing)
  await ctx.tx
    .insert(notificationPreferences)
    .values({ tenantId: ctx.actor.tenantId, userId: ctx.actor.userId, ...input, updatedAt: ctx.now })
    .onConflictDoUpdate({ target: [notificationPreferences.tenantId, notificationPreferences.userId], set: { ...input, updatedAt: ctx.now } })
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action: 'settings.notifications.changed',
    targetType: 'user',
    targetId: ctx.actor.userId,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data: { from: before, to: input },
    at: ctx.now,
  })
  await recordChange(ctx, 'UserSettings', ctx.actor.userId, 'Updated')
  return { ...input }
}

/**
 * Whether this member wants mail for this event (their notification preferences; on by default).
 * Callers that mail members about these events ask it first. Pass the tenant transaction the mail
 * is queued in (row-level security shows this tenant's rows only).
 */
export async function wantsMail(db: Database, tenantId: string, userId: string, event: NotificationEvent): Promise<boolean> {
  const row = await readRow(db, tenantId, userId)
  return toPreferences(row)[event]
}
