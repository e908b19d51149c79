/**
 * What travels over the realtime hub (spec §7 "Realtime"), shared by the server's hub and the
 * browser island. Method names and event names are the spec's; payloads are ours
 * (docs/realtime.md).
 */

export const REALTIME_HUB_PATH = '/hub/realtime'

/** Spec §4 "Realtime status". */
export const REALTIME_STATUSES = ['idle', 'disabled', 'connecting', 'connected', 'reconnecting', 'disconnected', 'error'] as const
export type RealtimeStatus = (typeof REALTIME_STATUSES)[number]

/** Client methods (spec §7). */
export const HUB_METHODS = { joinRoom: 'JoinRoom', leaveRoom: 'LeaveRoom', sendMessage: 'SendMessage' } as const
/** Server events (spec §7). */
export const HUB_EVENTS = { receiveMessage: 'ReceiveMessage', entityChanged: 'EntityChanged', presenceChanged: 'PresenceChanged' } as const

/**
 * The room an administrator's hub connection joins to follow its organisation's log lines, and the
 * event they arrive by (Administration › Logs). Here, not with the logs page's code, because the
 * realtime client on every screen names the event.
 */
export const LOGS_ROOM = 'logs'
export const LOG_LINE_EVENT = 'LogLine'

/** Every connection is in these two groups (spec §7). */
export const GLOBAL_GROUP = 'tenant:global'
export const tenantGroup = (tenantId: string) => `tenant:${tenantId}`
/** Every connection is also in its person's own group (in-app notifications, NotificationsChanged). */
export const userGroup = (tenantId: string, userId: string) => `user:${tenantId}:${userId}`

/**
 * Rooms a client may join: a record of its own tenant that it may read, named `<kind>:<uuid>`.
 * On the server each room is the group `room:<tenantId>:<kind>:<uuid>`, so two tenants' rooms
 * never share a group even if a name were guessed.
 */
export const ROOM_KINDS = ['project', 'report', 'item'] as const
export type RoomKind = (typeof ROOM_KINDS)[number]
export const roomName = (kind: RoomKind, id: string) => `${kind}:${id}`

/** The longest chat message (characters). */
export const ROOM_MESSAGE_MAX_LENGTH = 2000
/** How many recent messages JoinRoom answers with. */
export const ROOM_HISTORY_LIMIT = 50

export type PersonRef = { userId: string; displayName: string }

/** One person in a room (several tabs count as one person with several connections). */
export type PresenceMember = PersonRef & { connections: number }

/** ReceiveMessage's one argument; also SendMessage's result and JoinRoom's history entries. */
export type RoomMessage = { id: string; room: string; text: string; sentAt: string; sender: PersonRef }

/** PresenceChanged's one argument: everyone in the room now. */
export type PresenceChanged = { room: string; members: PresenceMember[] }

/** JoinRoom's result. */
export type JoinedRoom = { room: string; history: RoomMessage[]; members: PresenceMember[] }

/**
 * EntityChanged's one argument: one committed change from the tenant's change log (or, for the
 * admin entity types of spec §3, from their features as they arrive).
 */
export type EntityChanged = {
  entityType: string
  entityId: string
  changeType: 'Created' | 'Updated' | 'Deleted'
  revision: number
  changedAt: string
  /** Who made the change, when a person did. */
  changedBy: PersonRef | null
}
