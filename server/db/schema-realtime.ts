import { sql } from 'drizzle-orm'
import { index, pgPolicy, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { appUser, currentTenant, tenantRef, users } from './schema'

/**
 * Realtime (issue 9): the discussion messages of hub rooms, so a room shows its recent history
 * when joined. Append-only for the application role, like an item's activity.
 */
export const roomMessages = pgTable(
  'room_messages',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull().defaultRandom(),
    /** The room as clients name it: `item:<uuid>`, `report:<uuid>`, `project:<uuid>`. */
    room: text('room').notNull(),
    senderUserId: uuid('sender_user_id').references(() => users.id, { onDelete: 'set null' }),
    text: text('text').notNull(),
    sentAt: timestamp('sent_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    index('room_messages_room_idx').on(t.tenantId, t.room, t.sentAt),
    pgPolicy('room_messages_read', { as: 'permissive', for: 'select', to: appUser, using: sql`tenant_id = ${currentTenant}` }),
    pgPolicy('room_messages_append', { as: 'permissive', for: 'insert', to: appUser, withCheck: sql`tenant_id = ${currentTenant}` }),
  ],
).enableRLS()

/** Tenant-owned tables of this module; start-up checks each forces row-level security. */
export const realtimeTenantTables = ['room_messages'] as const
