import { and, count, desc, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm'
import type { Tx } from '#server/db/client'
import { queueCommittedChange } from '#server/db/committed-changes'
import { memberships, users } from '#server/db/schema'
import { notifications } from '#server/db/schema-settings'
import { decodeCursor, pageOf } from '#server/domain/tenancy/paging'
import type { DomainContext } from '#server/domain/tenancy/context'
import { readOnceIn, unreadCountKey } from '#server/domain/tenancy/request-scope'
import { wantsInApp } from '#server/domain/settings/notification-preferences'
import { Problem, problems } from '#server/http/problem'
import { isPortalPath, PREFERENCE_OF_KIND, type NotificationKind } from '~/lib/notifications'

/**
 * In-app notifications (docs/settings-appearance-notifications.md "In-app notifications"): written
 * in the transaction of the event they tell about (rolled back with it), to the people the event
 * concerns whose preferences want it in the app, never to whoever did it. Each one written or read
 * is announced after COMMIT to that person's own connections (NotificationsChanged, docs/realtime.md).
 */

export type NewNotification = { kind: NotificationKind; title: string; link: string }

export type NotificationView = { id: string; kind: NotificationKind; title: string; link: string; createdAt: string; readAt: string | null }

/** The longest title kept (a document's number and title, a transmittal's subject). */
export const NOTIFICATION_TITLE_MAX = 300

const NOT_FOUND = 'No such notification.'

function announce(tx: Tx, tenantId: string, userId: string, at: Date, actorUserId: string | null): void {
  queueCommittedChange(tx, { tenantId, entity: 'Notification', entityId: userId, changeType: 'Updated', revision: 0, changedAt: at, actorUserId, audienceUserId: userId })
}

/**
 * Tells these people about one event, in the app: the active members among them, but not `actorUserId`
 * (who did it), each once, if their in-app choice for the kind is on. Answers who was told.
 */
export async function notify(
  tx: Tx,
  event: { tenantId: string; actorUserId: string | null; now: Date },
  userIds: readonly (string | null | undefined)[],
  notification: NewNotification,
): Promise<string[]> {
  if (!isPortalPath(notification.link)) throw new Error(`a notification links to a portal path, not ${notification.link}`)
  const wanted = [...new Set(userIds.filter((id): id is string => typeof id === 'string' && id !== event.actorUserId))]
  if (wanted.length === 0) return []
  const active = await tx
    .select({ id: memberships.userId })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.tenantId, event.tenantId), inArray(memberships.userId, wanted), eq(memberships.status, 'active'), eq(users.status, 'active')))
  const told: string[] = []
  const title = notification.title.length > NOTIFICATION_TITLE_MAX ? `${notification.title.slice(0, NOTIFICATION_TITLE_MAX - 1)}…` : notification.title
  for (const { id } of active) {
    if (!(await wantsInApp(tx, event.tenantId, id, PREFERENCE_OF_KIND[notification.kind]))) continue
    await tx.insert(notifications).values({ tenantId: event.tenantId, userId: id, kind: notification.kind, title, link: notification.link, createdAt: event.now })
    announce(tx, event.tenantId, id, event.now, event.actorUserId)
    told.push(id)
  }
  return told
}

/** The same from a domain call: the actor is whoever acted. */
export function notifyFrom(ctx: DomainContext, userIds: readonly (string | null | undefined)[], notification: NewNotification): Promise<string[]> {
  return notify(ctx.tx, { tenantId: ctx.actor.tenantId, actorUserId: ctx.actor.userId || null, now: ctx.now }, userIds, notification)
}

const own = (ctx: DomainContext) => and(eq(notifications.tenantId, ctx.actor.tenantId), eq(notifications.userId, ctx.actor.userId))

function view(row: typeof notifications.$inferSelect): NotificationView {
  return { id: row.id, kind: row.kind as NotificationKind, title: row.title, link: row.link, createdAt: row.createdAt.toISOString(), readAt: row.readAt?.toISOString() ?? null }
}

/** How many of my notifications are unread. */
export async function unreadCount(ctx: DomainContext): Promise<number> {
  // A page's shared reads read it as they began (server/domain/tenancy/context.ts).
  return readOnceIn(ctx.tx, unreadCountKey(ctx.actor.tenantId, ctx.actor.userId), async () => {
    const [row] = await ctx.tx.select({ n: count() }).from(notifications).where(and(own(ctx), isNull(notifications.readAt)))
    return Number(row?.n ?? 0)
  })
}

/** GET /api/notifications: mine, newest first, a page at a time (keyset), with the unread count. */
export async function listNotifications(ctx: DomainContext, query: { after?: string | undefined; limit: number }) {
  const cursor = decodeCursor(query.after)
  const rows = await ctx.tx
    .select()
    .from(notifications)
    .where(
      and(
        own(ctx),
        cursor ? or(lt(notifications.createdAt, cursor.createdAt), and(eq(notifications.createdAt, cursor.createdAt), lt(notifications.id, cursor.id))) : undefined,
      ),
    )
    .orderBy(desc(notifications.createdAt), desc(notifications.id))
    .limit(query.limit + 1)
  const page = pageOf(rows, query.limit)
  return { items: page.rows.map(view), nextCursor: page.nextCursor, unread: await unreadCount(ctx) }
}

/** POST /api/notifications/:id/read: one of mine; another person's or organisation's is not found. */
export async function markRead(ctx: DomainContext, id: string): Promise<NotificationView> {
  const [existing] = await ctx.tx
    .select()
    .from(notifications)
    .where(and(own(ctx), eq(notifications.id, id)))
    .limit(1)
    .for('update')
  if (!existing) throw new Problem(problems.notFound(NOT_FOUND))
  if (existing.readAt) return view(existing)
  const [row] = await ctx.tx
    .update(notifications)
    .set({ readAt: ctx.now })
    .where(and(own(ctx), eq(notifications.id, id)))
    .returning()
  announce(ctx.tx, ctx.actor.tenantId, ctx.actor.userId, ctx.now, ctx.actor.userId)
  return view(row ?? existing)
}

/** POST /api/notifications/read-all: every unread one of mine; answers how many were marked. */
export async function markAllRead(ctx: DomainContext): Promise<{ marked: number }> {
  const rows = await ctx.tx
    .update(notifications)
    .set({ readAt: ctx.now })
    .where(and(own(ctx), isNull(notifications.readAt)))
    .returning({ id: notifications.id })
  if (rows.length > 0) announce(ctx.tx, ctx.actor.tenantId, ctx.actor.userId, ctx.now, ctx.actor.userId)
  return { marked: rows.length }
}

/** The unread count of one person, for the hub after COMMIT (in that tenant's transaction). */
export async function unreadOf(tx: Tx, tenantId: string, userId: string): Promise<number> {
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(notifications)
    .where(and(eq(notifications.tenantId, tenantId), eq(notifications.userId, userId), isNull(notifications.readAt)))
  return Number(row?.n ?? 0)
}
