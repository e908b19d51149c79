import type { IncomingMessage } from 'node:http'
import type { z } from 'zod'

/**
 * The seams of the realtime hub (DESIGN.md "Realtime", docs/realtime.md). The protocol core
 * (`hub.ts` and the transports) knows nothing of tenants or rooms; the portal's hub
 * (`portal-hub.ts`) gives it an authenticator, methods and connection hooks; the backplane and the
 * presence store carry what must be shared between instances.
 */

/** Who a connection belongs to: taken from the verified session, never from client arguments. */
export type Principal = {
  userId: string
  tenantId: string
  /** The session row's id, so a session that ends can close its connections. */
  sessionId: string
  displayName: string
}

/** A finished hub message: the JSON text followed by the record separator (0x1E). */
export type Frame = string

/** What a hub method and a hook see of the connection that called. */
export type ConnectionInfo = {
  /** The public connection id (the one negotiate returned). */
  readonly id: string
  readonly principal: Principal
  /** Groups this connection is in on this instance. */
  readonly groups: ReadonlySet<string>
}

/**
 * A hub method. `args` validates the argument list (a z.tuple): a wrong count or type answers
 * .NET's "Failed to invoke 'X' due to an error on the server.". `run` may throw HubError for a
 * refusal the caller should read; any other throw answers .NET's generic text and is logged.
 */
export type HubMethod<A extends readonly unknown[] = readonly unknown[]> = {
  args: z.ZodType<A>
  run: (connection: ConnectionInfo, ...args: A) => Promise<unknown>
}

/** A deliberate, user-facing refusal (.NET's HubException): its message reaches the client. */
export class HubError extends Error {
  override name = 'HubError'
}

/** Finds the principal of an HTTP request (negotiate, or a transport request without a token). */
export type Authenticate = (request: IncomingMessage) => Promise<Principal | undefined>

/**
 * Carries frames to the other instances. The hub delivers to its own connections itself and
 * publishes once; every other instance that has local members of the group delivers to them.
 * In-memory (one instance): publishing reaches nobody else. Redis: pub/sub.
 */
export interface Backplane {
  /** Send `frame` to the group's members on the other instances, except the listed connection ids. */
  publish(group: string, frame: Frame, exclude?: readonly string[]): Promise<void>
  /** The hub has a local member of `group` (reference counting is the hub's job: called once per group). */
  subscribe(group: string): Promise<void>
  /** The hub's last local member of `group` left. */
  unsubscribe(group: string): Promise<void>
  /** Frames from other instances, for the hub to deliver to its local members. */
  onFrame(handler: (group: string, frame: Frame, exclude: readonly string[]) => void): void
  /** Control messages to every instance, this one included (e.g. "close the connections of session S"). */
  broadcast(message: BackplaneControl): Promise<void>
  onControl(handler: (message: BackplaneControl) => void): void
  /**
   * Claims a connection id for its first connection, on every instance: true the first time, false
   * ever after until `ttlMs` (the token's remaining life) has passed. A connection token works once.
   */
  claimConnection(connectionId: string, ttlMs: number): Promise<boolean>
  close(): Promise<void>
}

export type BackplaneControl = { kind: 'session-ended'; sessionId: string } | { kind: 'user-ended'; userId: string }

/** One person in a room, as PresenceChanged reports them. */
export type PresenceMember = { userId: string; displayName: string; connections: number }

/**
 * Who is in which room, across instances. Entries carry the instance that holds the connection
 * and expire unless that instance refreshes them, so a crashed instance's connections fall away.
 */
export interface PresenceStore {
  /** Adds the connection and answers the room's members now. */
  join(room: string, entry: PresenceEntry): Promise<PresenceMember[]>
  /** Removes the connection and answers the room's members now. */
  leave(room: string, connectionId: string): Promise<PresenceMember[]>
  list(room: string): Promise<PresenceMember[]>
  /** Keeps this instance's entries alive (called every few seconds with everything it holds). */
  refresh(entries: readonly { room: string; entry: PresenceEntry }[]): Promise<void>
  /**
   * Removes expired entries (a crashed instance's) from these rooms and answers the rooms whose
   * members changed by it, with their members now, so the caller can announce them.
   */
  sweep(rooms: readonly string[]): Promise<{ room: string; members: PresenceMember[] }[]>
  close(): Promise<void>
}

export type PresenceEntry = { connectionId: string; userId: string; displayName: string }
