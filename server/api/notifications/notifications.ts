import { Hono, type Context } from 'hono'
import type { BackendEnv } from '#server/http/env'
import { listNotifications, markAllRead, markRead, unreadCount } from '#server/domain/notifications/notifications'
import { asMember, type DomainContext } from '#server/domain/tenancy/context'
import { isUuid } from '~/lib/schemas/uuid'
import { operation } from '#server/http/contract'
import { Problem, problems } from '#server/http/problem'
import { requireSession } from '#server/http/session'
import { MarkedAllSchema, MarkedOneSchema, NotificationListQuery, NotificationPageSchema, UnreadCountSchema } from '~/lib/schemas/notifications'

/**
 * In-app notifications (issue 31; docs/settings-appearance-notifications.md "In-app notifications"):
 * the signed-in member's own, in their current organisation. Row-level security keeps other
 * organisations' rows out; the domain keeps other people's: either is 404.
 */

function asSessionMember<T>(c: Context<BackendEnv>, work: (ctx: DomainContext) => Promise<T>): Promise<T> {
  const session = requireSession(c)
  const { db, now } = c.get('deps')
  return asMember(db, session, now(), work)
}

const TAG = 'Notifications'

export const notificationRoutes = new Hono<BackendEnv>()
  .get(
    '/api/notifications',
    operation({
      summary: 'Your notifications, newest first (keyset paging), with the unread count',
      tag: TAG,
      access: 'session',
      query: NotificationListQuery,
      responses: { 200: { description: 'A page of notifications, the cursor of the next, and how many are unread.', schema: NotificationPageSchema }, 400: 'A bad cursor or limit.' },
    }),
    async (c) => {
      const query = c.req.valid('query')
      return c.json(await asSessionMember(c, (ctx) => listNotifications(ctx, query)))
    },
  )

  .get(
    '/api/notifications/unread-count',
    operation({
      summary: 'How many of your notifications are unread (the bell)',
      tag: TAG,
      access: 'session',
      responses: { 200: { description: 'The unread count.', schema: UnreadCountSchema } },
    }),
    async (c) => c.json({ unread: await asSessionMember(c, (ctx) => unreadCount(ctx)) }),
  )

  .post(
    '/api/notifications/read-all',
    operation({
      summary: 'Mark all your notifications read',
      tag: TAG,
      access: 'session',
      responses: { 200: { description: 'How many were marked, and the unread count now (0).', schema: MarkedAllSchema } },
    }),
    async (c) =>
      c.json(
        await asSessionMember(c, async (ctx) => {
          const { marked } = await markAllRead(ctx)
          return { marked, unread: await unreadCount(ctx) }
        }),
      ),
  )

  .post(
    '/api/notifications/:id/read',
    operation({
      summary: 'Mark one of your notifications read',
      tag: TAG,
      access: 'session',
      responses: {
        200: { description: 'The notification, and the unread count now.', schema: MarkedOneSchema },
        404: 'No such notification of yours in this organisation.',
      },
    }),
    async (c) => {
      const id = c.req.param('id')
      if (!isUuid(id)) throw new Problem(problems.notFound('No such notification.'))
      return c.json(
        await asSessionMember(c, async (ctx) => {
          const notification = await markRead(ctx, id)
          return { notification, unread: await unreadCount(ctx) }
        }),
      )
    },
  )
