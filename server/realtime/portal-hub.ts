import { createHmac } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { and, desc, eq, inArray, isNull } from 'drizzle-orm'
import { z } from 'zod'
import type { Config } from '#server/config'
import type { Database } from '#server/db/client'
import { onCommittedChanges, type CommittedChange } from '#server/db/committed-changes'
import { memberships, sessions, users } from '#server/db/schema'
import { roomMessages } from '#server/db/schema-realtime'
import { projects, reportItems, reports } from '#server/db/schema-reporting'
import { withTenant } from '#server/db/tenancy'
import { findSession } from '#server/domain/auth/sessions'
import { unreadOf } from '#server/domain/notifications/notifications'
import { cookieName } from '#server/http/cookies'
import type { LogRing } from '#server/domain/observability/log-ring'
import type { Logger } from '#server/http/logger'
import { NOTIFICATIONS_CHANGED_EVENT, type NotificationsChanged } from '~/lib/notifications'
import { textProblem } from '~/lib/schemas/text'
import {
  GLOBAL_GROUP,
  HUB_EVENTS,
  HUB_METHODS,
  REALTIME_HUB_PATH,
  LOG_LINE_EVENT,
  LOGS_ROOM,
  ROOM_HISTORY_LIMIT,
  ROOM_KINDS,
  ROOM_MESSAGE_MAX_LENGTH,
  tenantGroup,
  userGroup,
  type EntityChanged,
  type JoinedRoom,
  type PersonRef,
  type PresenceChanged,
  type RoomKind,
  type RoomMessage,
} from '~/lib/realtime/events'
import { createHub, type Hub, type HubTimings } from './hub'
import { createLogFeed } from './log-feed'
import { HubError, type Backplane, type ConnectionInfo, type PresenceEntry, type PresenceStore, type Principal } from './types'
import { UUID_SOURCE } from '~/lib/schemas/uuid'

/**
 * The portal's hub (DESIGN.md "Realtime", docs/realtime.md): who may connect (the session cookie,
 * or the session token as a bearer for non-browser clients), the tenant groups every connection
 * joins, rooms for a project, a report or an item of the caller's own tenant, the discussion in a
 * room, presence, EntityChanged from committed changes, and connections closed within seconds of
 * their session ending. The protocol itself is `hub.ts`.
 */
export type PortalHubOptions = {
  config: Config
  db: Database
  logger: Logger
  now: () => Date
  backplane: Backplane
  presence: PresenceStore
  timings?: Partial<HubTimings>
  /** How often live connections' sessions are checked (sign-out, expiry, deactivation). */
  sessionCheckMs?: number
  /** How often this instance refreshes its presence entries and sweeps a crashed instance's. */
  presenceRefreshMs?: number
  /** The logger's ring: administrators may follow their organisation's lines (the `logs` room). */
  logRing?: LogRing | undefined
}

export type PortalHub = {
  hub: Hub
  /** Closes every connection with allowReconnect (a restart or a deploy), stops the timers. */
  drain(): Promise<void>
}

/** Messages a connection may send in a burst, and how many it earns back per second. */
const FLOOD_BURST = 5
const FLOOD_REFILL_PER_SECOND = 1
const ROOM_PATTERN = new RegExp(`^(${ROOM_KINDS.join('|')}):(${UUID_SOURCE})$`)

/** The hub group of a client's room: the tenant is part of it, so two tenants never share one. */
const roomGroup = (tenantId: string, room: string) => `room:${tenantId}:${room}`

export function createPortalHub(options: PortalHubOptions): PortalHub {
  const { config, db, now, backplane, presence } = options
  const logger = options.logger.child({ component: 'realtime' })
  const publicOrigin = new URL(config.publicUrl).origin
  /** Connection id → the rooms (client names) it joined here, for presence on leave and drop. */
  const roomsOf = new Map<string, Set<string>>()
  const flood = new Map<string, { tokens: number; at: number }>()
  // Administration › Logs followed live (log-feed.ts): not a record's room, so no presence or history.
  const logFeed = options.logRing
    ? createLogFeed({ ring: options.logRing, db, send: (connectionId, batch) => hub.sendToConnection(connectionId, LOG_LINE_EVENT, [batch]) })
    : undefined

  const authenticate = async (request: IncomingMessage): Promise<Principal | undefined> => {
    const token = sessionTokenOf(request, config)
    if (!token) return undefined
    const session = await findSession(db, token, now())
    if (!session || session.requiresMfa || session.userStatus !== 'active') return undefined
    const [member] = await withTenant(db, session.tenantId, (tx) =>
      tx
        .select({ status: memberships.status, displayName: users.displayName })
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.userId))
        .where(and(eq(memberships.tenantId, session.tenantId), eq(memberships.userId, session.userId)))
        .limit(1),
    )
    if (!member || member.status !== 'active') return undefined
    return { userId: session.userId, tenantId: session.tenantId, sessionId: session.id, displayName: member.displayName }
  }

  const isAllowedOrigin = (origin: string | undefined, request: IncomingMessage) => {
    // Non-browser clients send no Origin; a browser always does on a WebSocket upgrade, and a
    // page of another site must never ride the visitor's cookie into the hub.
    if (origin === undefined) return true
    if (origin === publicOrigin) return true
    const host = request.headers.host
    if (!host) return false
    try {
      return new URL(origin).host === host
    } catch {
      return false
    }
  }

  // One announcement at a time per room, each with who is there when it is sent: two joins at once
  // could otherwise deliver their lists out of order and leave the older one on screen.
  const presenceAnnouncing = new Map<string, Promise<void>>()
  const announcePresence = (group: string, room: string): Promise<void> => {
    const next = (presenceAnnouncing.get(group) ?? Promise.resolve()).then(async () => {
      const payload: PresenceChanged = { room, members: await presence.list(group) }
      await hub.sendToGroup(group, HUB_EVENTS.presenceChanged, [payload])
    })
    const settled = next.catch(() => undefined)
    presenceAnnouncing.set(group, settled)
    void settled.then(() => {
      if (presenceAnnouncing.get(group) === settled) presenceAnnouncing.delete(group)
    })
    return next
  }

  const entryOf = (connection: ConnectionInfo): PresenceEntry => ({
    connectionId: connection.id,
    userId: connection.principal.userId,
    displayName: connection.principal.displayName,
  })

  const leaveRoom = async (connection: ConnectionInfo, room: string) => {
    const rooms = roomsOf.get(connection.id)
    if (!rooms?.delete(room)) return
    const group = roomGroup(connection.principal.tenantId, room)
    await hub.removeFromGroup(connection.id, group)
    await presence.leave(group, connection.id)
    await announcePresence(group, room)
  }

  const methods = {
    [HUB_METHODS.joinRoom]: {
      args: z.tuple([z.string()]),
      run: async (connection: ConnectionInfo, room: string): Promise<JoinedRoom> => {
        if (room === LOGS_ROOM && logFeed) return logFeed.follow(connection)
        const parsed = ROOM_PATTERN.exec(room)
        if (!parsed || !(await mayRead(db, connection.principal, parsed[1] as RoomKind, parsed[2] as string))) {
          throw new HubError('You cannot join this room: it does not exist or you do not have access to it.')
        }
        const group = roomGroup(connection.principal.tenantId, room)
        let rooms = roomsOf.get(connection.id)
        if (!rooms) roomsOf.set(connection.id, (rooms = new Set()))
        rooms.add(room)
        await hub.addToGroup(connection.id, group)
        await presence.join(group, entryOf(connection))
        const messages = await history(db, connection.principal.tenantId, room)
        const members = await presence.list(group)
        // Announced after this answer is written (the answer goes out as soon as run returns, a
        // timer fires later): two people joining at once (both pages coming back after a restart)
        // could otherwise see the other's announcement arrive before their own older answer, and
        // keep "Only you here". The last list each person receives is read after the last join.
        setImmediate(() => {
          void announcePresence(group, room).catch((error: unknown) => logger.warn({ err: error }, 'presence announcement failed'))
        })
        return { room, history: messages, members }
      },
    },
    [HUB_METHODS.leaveRoom]: {
      args: z.tuple([z.string()]),
      run: async (connection: ConnectionInfo, room: string): Promise<null> => {
        if (room === LOGS_ROOM) logFeed?.unfollow(connection.id)
        await leaveRoom(connection, room)
        return null
      },
    },
    [HUB_METHODS.sendMessage]: {
      args: z.tuple([z.string(), z.string()]),
      run: async (connection: ConnectionInfo, room: string, text: string): Promise<RoomMessage> => {
        if (!roomsOf.get(connection.id)?.has(room)) throw new HubError('Join the room before sending a message to it.')
        const trimmed = text.trim()
        if (trimmed === '') throw new HubError('A message cannot be blank.')
        if (trimmed.length > ROOM_MESSAGE_MAX_LENGTH) throw new HubError(`A message can be at most ${ROOM_MESSAGE_MAX_LENGTH} characters.`)
        const broken = textProblem(trimmed)
        if (broken) throw new HubError(broken)
        if (!takeFloodToken(flood, connection.id, Date.now())) {
          throw new HubError('You are sending messages too quickly. Wait a moment, then send again.')
        }
        const message = await storeMessage(db, connection.principal, room, trimmed, now())
        await hub.sendToGroup(roomGroup(connection.principal.tenantId, room), HUB_EVENTS.receiveMessage, [message])
        return message
      },
    },
  }

  const hub = createHub({
    path: REALTIME_HUB_PATH,
    secret: createHmac('sha256', config.sessionSecret).update('realtime connection token').digest('base64url'),
    authenticate,
    isAllowedOrigin,
    methods,
    backplane,
    logger,
    ...(options.timings && { timings: options.timings }),
    onConnected: async (connection) => {
      await hub.addToGroup(connection.id, GLOBAL_GROUP)
      await hub.addToGroup(connection.id, tenantGroup(connection.principal.tenantId))
      await hub.addToGroup(connection.id, userGroup(connection.principal.tenantId, connection.principal.userId))
    },
    onDisconnected: async (connection) => {
      flood.delete(connection.id)
      logFeed?.unfollow(connection.id)
      for (const room of [...(roomsOf.get(connection.id) ?? [])]) {
        await leaveRoom(connection, room).catch((error: unknown) => logger.warn({ err: error }, 'presence on disconnect failed'))
      }
      roomsOf.delete(connection.id)
    },
  })

  // EntityChanged: committed changes, in commit order, to the tenant's group on every instance.
  let announcing = Promise.resolve()
  const names = new NameCache(db)
  const stopListening = onCommittedChanges(db, (changes) => {
    announcing = announcing
      .then(async () => {
        const broadcast = changes.filter((change) => change.audienceUserId === undefined)
        const refs = await names.lookup(broadcast.map((change) => change.actorUserId))
        for (const change of broadcast) {
          await hub.sendToGroup(tenantGroup(change.tenantId), HUB_EVENTS.entityChanged, [entityChanged(change, refs)])
        }
        // A change of one person's own (their export job): told to that person's connections only.
        for (const change of changes) {
          if (change.audienceUserId !== undefined && change.entity !== 'Notification') {
            await hub.sendToGroup(userGroup(change.tenantId, change.audienceUserId), HUB_EVENTS.entityChanged, [entityChanged(change, new Map())])
          }
        }
        // In-app notifications: each person concerned hears their unread count now, once per commit.
        const people = new Map<string, { tenantId: string; userId: string }>()
        for (const change of changes) {
          if (change.audienceUserId !== undefined && change.entity === 'Notification') people.set(`${change.tenantId}:${change.audienceUserId}`, { tenantId: change.tenantId, userId: change.audienceUserId })
        }
        for (const { tenantId, userId } of people.values()) {
          const payload: NotificationsChanged = { unread: await withTenant(db, tenantId, (tx) => unreadOf(tx, tenantId, userId)) }
          await hub.sendToGroup(userGroup(tenantId, userId), NOTIFICATIONS_CHANGED_EVENT, [payload])
        }
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'EntityChanged could not be announced'))
  })

  // Sign-out, expiry, deactivation, a membership ended: the connection closes within seconds.
  const sessionCheck = setInterval(() => {
    void closeEndedSessions(db, hub, now()).catch((error: unknown) => logger.warn({ err: error }, 'session check failed'))
  }, options.sessionCheckMs ?? 5_000)
  sessionCheck.unref()

  // Presence survives only while its instance refreshes it: a crashed instance's people fall away.
  const presenceRefresh = setInterval(() => {
    void refreshPresence().catch((error: unknown) => logger.warn({ err: error }, 'presence refresh failed'))
  }, options.presenceRefreshMs ?? 10_000)
  presenceRefresh.unref()

  const refreshPresence = async () => {
    const entries: { room: string; entry: PresenceEntry }[] = []
    const groups = new Map<string, string>()
    for (const connection of hub.connections()) {
      for (const room of roomsOf.get(connection.id) ?? []) {
        const group = roomGroup(connection.principal.tenantId, room)
        groups.set(group, room)
        entries.push({ room: group, entry: entryOf(connection) })
      }
    }
    await presence.refresh(entries)
    for (const changed of await presence.sweep([...groups.keys()])) {
      await announcePresence(changed.room, groups.get(changed.room) ?? changed.room)
    }
  }

  let draining: Promise<void> | undefined
  return {
    hub,
    drain() {
      draining ??= (async () => {
        clearInterval(sessionCheck)
        clearInterval(presenceRefresh)
        stopListening()
        logFeed?.stop()
        await announcing
        await hub.shutdown()
      })()
      return draining
    },
  }
}

/**
 * The session token of a hub request: the session cookie (browsers, same origin), else a bearer
 * token in the Authorization header (Node and mobile clients), else `access_token` in the query
 * (what the official client sends from a browser when an accessTokenFactory is set).
 */
function sessionTokenOf(request: IncomingMessage, config: Config): string | undefined {
  const authorization = request.headers.authorization
  if (authorization?.toLowerCase().startsWith('bearer ')) return authorization.slice(7).trim() || undefined
  const fromCookie = readCookieHeader(request.headers.cookie, cookieName(config, 'session'))
  if (fromCookie) return fromCookie
  const url = new URL(request.url ?? '/', 'http://hub.invalid')
  return url.searchParams.get('access_token') ?? undefined
}

function readCookieHeader(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined
  for (const part of header.split(';')) {
    const index = part.indexOf('=')
    if (index > 0 && part.slice(0, index).trim() === name) {
      try {
        return decodeURIComponent(part.slice(index + 1).trim())
      } catch {
        return undefined
      }
    }
  }
  return undefined
}

/** Whether the principal may read the room's record: it exists in their own tenant (row-level security) and is not deleted. */
async function mayRead(db: Database, principal: Principal, kind: RoomKind, id: string): Promise<boolean> {
  return withTenant(db, principal.tenantId, async (tx) => {
    const [member] = await tx
      .select({ status: memberships.status })
      .from(memberships)
      .where(and(eq(memberships.tenantId, principal.tenantId), eq(memberships.userId, principal.userId)))
      .limit(1)
    if (member?.status !== 'active') return false
    switch (kind) {
      case 'project':
        return (await tx.select({ id: projects.id }).from(projects).where(eq(projects.id, id)).limit(1)).length === 1
      case 'report':
        return (await tx.select({ id: reports.id }).from(reports).where(eq(reports.id, id)).limit(1)).length === 1
      case 'item':
        return (await tx.select({ id: reportItems.id }).from(reportItems).where(and(eq(reportItems.id, id), isNull(reportItems.deletedAt))).limit(1)).length === 1
    }
  })
}

async function history(db: Database, tenantId: string, room: string): Promise<RoomMessage[]> {
  const rows = await withTenant(db, tenantId, (tx) =>
    tx
      .select({
        id: roomMessages.id,
        text: roomMessages.text,
        sentAt: roomMessages.sentAt,
        senderUserId: roomMessages.senderUserId,
        senderName: users.displayName,
      })
      .from(roomMessages)
      .leftJoin(users, eq(users.id, roomMessages.senderUserId))
      .where(eq(roomMessages.room, room))
      .orderBy(desc(roomMessages.sentAt), desc(roomMessages.id))
      .limit(ROOM_HISTORY_LIMIT),
  )
  return rows.reverse().map((row) => ({
    id: row.id,
    room,
    text: row.text,
    sentAt: row.sentAt.toISOString(),
    sender: { userId: row.senderUserId ?? '', displayName: row.senderName ?? 'Former user' },
  }))
}

async function storeMessage(db: Database, principal: Principal, room: string, text: string, at: Date): Promise<RoomMessage> {
  const [row] = await withTenant(db, principal.tenantId, (tx) =>
    tx
      .insert(roomMessages)
      .values({ tenantId: principal.tenantId, room, senderUserId: principal.userId, text, sentAt: at })
      .returning({ id: roomMessages.id, sentAt: roomMessages.sentAt }),
  )
  if (!row) throw new Error('room message not stored')
  return { id: row.id, room, text, sentAt: row.sentAt.toISOString(), sender: { userId: principal.userId, displayName: principal.displayName } }
}

/** A token bucket per connection: a burst of FLOOD_BURST, then FLOOD_REFILL_PER_SECOND. */
function takeFloodToken(buckets: Map<string, { tokens: number; at: number }>, connectionId: string, nowMs: number): boolean {
  const bucket = buckets.get(connectionId) ?? { tokens: FLOOD_BURST, at: nowMs }
  bucket.tokens = Math.min(FLOOD_BURST, bucket.tokens + ((nowMs - bucket.at) / 1000) * FLOOD_REFILL_PER_SECOND)
  bucket.at = nowMs
  buckets.set(connectionId, bucket)
  if (bucket.tokens < 1) return false
  bucket.tokens -= 1
  return true
}

function entityChanged(change: CommittedChange, refs: Map<string, PersonRef>): EntityChanged {
  return {
    entityType: change.entity,
    entityId: change.entityId,
    changeType: change.changeType,
    revision: change.revision,
    changedAt: change.changedAt.toISOString(),
    changedBy: change.actorUserId ? (refs.get(change.actorUserId) ?? null) : null,
  }
}

/** Display names of the people who change things, kept a minute so a burst of changes costs one query. */
class NameCache {
  private readonly entries = new Map<string, { ref: PersonRef; until: number }>()
  constructor(private readonly db: Database) {}

  async lookup(ids: (string | null)[]): Promise<Map<string, PersonRef>> {
    const found = new Map<string, PersonRef>()
    const missing: string[] = []
    const nowMs = Date.now()
    for (const id of new Set(ids)) {
      if (!id) continue
      const entry = this.entries.get(id)
      if (entry && entry.until > nowMs) found.set(id, entry.ref)
      else missing.push(id)
    }
    if (missing.length > 0) {
      const rows = await this.db.select({ userId: users.id, displayName: users.displayName }).from(users).where(inArray(users.id, missing))
      if (this.entries.size > 10_000) this.entries.clear()
      for (const row of rows) {
        this.entries.set(row.userId, { ref: row, until: nowMs + 60_000 })
        found.set(row.userId, row)
      }
    }
    return found
  }
}

/**
 * Closes the connections whose session has ended (signed out, expired, revoked) or whose person
 * may no longer be here (user deactivated, membership ended). One query per tenant with live
 * connections, not one per connection. The close allows a reconnect: a client whose person
 * signed in again (a fresh cookie) simply comes back; anyone else is refused at negotiate.
 */
async function closeEndedSessions(db: Database, hub: Hub, at: Date): Promise<void> {
  const byTenant = new Map<string, ConnectionInfo[]>()
  for (const connection of hub.connections()) {
    const list = byTenant.get(connection.principal.tenantId) ?? []
    list.push(connection)
    byTenant.set(connection.principal.tenantId, list)
  }
  for (const [tenantId, connections] of byTenant) {
    const sessionIds = [...new Set(connections.map((connection) => connection.principal.sessionId))]
    const live = new Set<string>()
    for (let start = 0; start < sessionIds.length; start += 1000) {
      const chunk = sessionIds.slice(start, start + 1000)
      const rows = await withTenant(db, tenantId, (tx) =>
        tx
          .select({ id: sessions.id, expiresAt: sessions.expiresAt })
          .from(sessions)
          .innerJoin(users, eq(users.id, sessions.userId))
          .innerJoin(memberships, and(eq(memberships.tenantId, sessions.tenantId), eq(memberships.userId, sessions.userId)))
          .where(and(inArray(sessions.id, chunk), isNull(sessions.revokedAt), eq(users.status, 'active'), eq(memberships.status, 'active'))),
      )
      for (const row of rows) if (row.expiresAt > at) live.add(row.id)
    }
    for (const connection of connections) {
      if (!live.has(connection.principal.sessionId)) hub.closeConnection(connection.id, { error: 'Your session has ended.', allowReconnect: true })
    }
  }
}
