import { z } from 'zod'
import { NOTIFICATION_KINDS } from '~/lib/notifications'

/** The calls of in-app notifications (docs/settings-appearance-notifications.md "In-app notifications"). */

/** GET /api/notifications?after=&limit=: keyset paging, newest first. */
export const NotificationListQuery = z.object({
  after: z.string().max(200, 'The paging cursor is not valid.').optional(),
  limit: z.coerce
    .number({ error: 'limit must be a whole number from 1 to 100.' })
    .int('limit must be a whole number from 1 to 100.')
    .min(1, 'limit must be a whole number from 1 to 100.')
    .max(100, 'limit must be a whole number from 1 to 100.')
    .default(25),
})

export const NotificationSchema = z.object({
  id: z.uuid(),
  kind: z.enum(NOTIFICATION_KINDS),
  title: z.string(),
  /** A path of this portal: the screen the notification is about. */
  link: z.string().startsWith('/'),
  createdAt: z.iso.datetime(),
  readAt: z.iso.datetime().nullable(),
}).meta({ id: 'Notification' })
export type Notification = z.infer<typeof NotificationSchema>

export const NotificationPageSchema = z.object({ items: z.array(NotificationSchema), nextCursor: z.string().nullable(), unread: z.number().int().min(0) })
export type NotificationPage = z.infer<typeof NotificationPageSchema>

export const UnreadCountSchema = z.object({ unread: z.number().int().min(0) })
export const MarkedAllSchema = z.object({ marked: z.number().int().min(0), unread: z.number().int().min(0) })
export const MarkedOneSchema = z.object({ notification: NotificationSchema, unread: z.number().int().min(0) })
