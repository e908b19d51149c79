import { and, eq } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { notificationPreferences } from '#server/db/schema-settings'
import { recordAuditIn } from '#server/domain/audit'
import { recordChange } from '#server/domain/tenancy/change-log'
import type { DomainContext } from '#server/domain/tenancy/context'
import { DEFAULT_NOTIFICATION_PREFERENCES, type InAppEvent, type NotificationPreferences } from '~/lib/settings/notifications'

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
  inAppAssigned: notificationPreferences.inAppAssigned,
  inAppCloseRequested: notificationPreferences.inAppCloseRequested,
  inAppReviewTask: notificationPreferences.inAppReviewTask,
  inAppTransmittal: notificationPreferences.inAppTransmittal,
  inAppSuperseded: notificationPreferences.inAppSuperseded,
}

type Row = { [K in keyof typeof columns]: K extends 'digest' ? string : boolean }

/** The in-app choices as their columns. */
function inAppColumns(inApp: NotificationPreferences['inApp']) {
  return {
    inAppAssigned: inApp.assigned,
    inAppCloseRequested: inApp.closeRequested,
    inAppReviewTask: inApp.reviewTask,
    inAppTransmittal: inApp.transmittal,
    inAppSuperseded: inApp.superseded,
  }
}

function toPreferences(row: Row | undefined): NotificationPreferences {
  if (!row) return { ...DEFAULT_NOTIFICATION_PREFERENCES, inApp: { ...DEFAULT_NOTIFICATION_PREFERENCES.inApp } }
  return {
    assigned: row.assigned,
    response: row.response,
    closeRequested: row.closeRequested,
    reviewTask: row.reviewTask,
    transmittal: row.transmittal,
    digest: row.digest === 'daily' ? 'daily' : 'off',
    inApp: {
      assigned: row.inAppAssigned,
      closeRequested: row.inAppCloseRequested,
      reviewTask: row.inAppReviewTask,
      transmittal: row.inAppTransmittal,
      superseded: row.inAppSuperseded,
    },
  }
}

/** PUT's body: `inApp` may be left out, and then the saved in-app choices stay. */
export type PreferencesInput = Omit<NotificationPreferences, 'inApp'> & { inApp?: NotificationPreferences['inApp'] | undefined }

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
export async function putPreferences(ctx: DomainContext, input: PreferencesInput, meta: PreferencesMeta = {}): Promise<NotificationPreferences> {
  const existing = await readRow(ctx.tx, ctx.actor.tenantId, ctx.actor.userId)
  const before = toPreferences(existing)
  const after: NotificationPreferences = { ...input, inApp: { ...(input.inApp ?? before.inApp) } }
  const { inApp, ...mail } = after
  const set = { ...mail, ...inAppColumns(inApp), updatedAt: ctx.now }
  await ctx.tx
    .insert(notificationPreferences)
    .values({ tenantId: ctx.actor.tenantId, userId: ctx.actor.userId, ...set })
    .onConflictDoUpdate({ target: [notificationPreferences.tenantId, notificationPreferences.userId], set })
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action: 'settings.notifications.changed',
    targetType: 'user',
    targetId: ctx.actor.userId,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data: { from: before, to: after },
    at: ctx.now,
  })
  await recordChange(ctx, 'UserSettings', ctx.actor.userId, 'Updated')
  return after
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

/**
 * Whether this member wants this event shown in the app (the bell; on by default). Pass the tenant
 * transaction the notification is written in.
 */
export async function wantsInApp(db: Pick<Database, 'select'>, tenantId: string, userId: string, event: InAppEvent): Promise<boolean> {
  const row = await readRow(db, tenantId, userId)
  return toPreferences(row).inApp[event]
}
