import type * as SignalRModule from '@microsoft/signalr'
import type { HubConnection } from '@microsoft/signalr'
import type { LogLineBatch } from '~/lib/admin/logs'
import { NOTIFICATIONS_CHANGED_EVENT, type NotificationsChanged } from '~/lib/notifications'
import { track } from '~/lib/telemetry'
import { type EntityChanged, HUB_EVENTS, HUB_METHODS, type JoinedRoom, LOG_LINE_EVENT, type PresenceChanged, type RoomMessage } from '~/lib/realtime/events'
import { hubRefusal } from './hub-error'
import { endReasonOf, nextRetryDelay } from './reconnect'
import { initialRealtimeState, type RealtimeEvent, realtimeReducer, type RealtimeState, retriesOnItsOwn, retriesOnReturn } from './status'

type SignalR = typeof SignalRModule

/** What a component in a room hears. */
export type RoomHandlers = {
  /** JoinRoom answered: history and members now (again after every reconnect). */
  joined(joined: JoinedRoom): void
  /** JoinRoom was refused: the hub's sentence, or undefined when the connection failed. */
  refused(reason: string | undefined): void
  message(message: RoomMessage): void
  presence(presence: PresenceChanged): void
}

export type RealtimeClientOptions = {
  url: string
  /** The library, fetched only when the connection starts (never in the first paint's scripts). */
  loadSignalR: () => Promise<SignalR>
  reconnectDelaysMs?: readonly number[]
  /** How often a given-up connection tries again by itself. */
  retryEveryMs: number
  /** The browser's window ('online') and document ('visibilitychange'); absent in Node tests. */
  window?: Pick<Window, 'addEventListener' | 'removeEventListener'>
  document?: Pick<Document, 'addEventListener' | 'removeEventListener' | 'visibilityState'>
  hasWebSocket: boolean
  /** Options the library needs outside a browser (cookies in Node tests); the browser needs none. */
  connectionOptions?: { headers?: Record<string, string> }
}

/**
 * The tab's one connection to the hub (spec §7 "Realtime"). It keeps the status of spec §4, fans
 * the hub's events out to the screens, and keeps the rooms the screens are in across reconnects
 * (every reconnect is a new connection on the server, so the rooms are joined again).
 */
export class RealtimeClient {
  private state: RealtimeState = initialRealtimeState
  private readonly listeners = new Set<() => void>()
  private readonly entityListeners = new Set<(change: EntityChanged) => void>()
  private readonly logListeners = new Set<(batch: LogLineBatch) => void>()
  private readonly notificationListeners = new Set<(changed: NotificationsChanged) => void>()
  private readonly connectedListeners = new Set<() => void>()
  private readonly rooms = new Map<string, Set<RoomHandlers>>()
  private connection: HubConnection | undefined
  private running = false
  /** Counts starts and stops, so a connect begun before a stop cannot report into the next start. */
  private generation = 0
  private connectingNow: Promise<void> | undefined
  private retryTimer: ReturnType<typeof setInterval> | undefined
  /**
   * Why the latest reconnect attempt failed. When the policy gives up, the library closes without
   * an error, so this is what tells a 401 (signed out) from a lost network.
   */
  private lastRetryReason: Error | undefined

  constructor(private readonly options: RealtimeClientOptions) {}

  // ---- status, for useSyncExternalStore ----

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  getSnapshot = (): RealtimeState => this.state

  // ---- lifetime ----

  /** Starts the connection (idempotent). The signed-in shell calls it once the page is idle. */
  start(): void {
    if (this.running) return
    if (!this.options.hasWebSocket) {
      this.dispatch({ type: 'unsupported' })
      return
    }
    this.running = true
    this.generation += 1
    this.watchForReturn()
    void this.connect()
  }

  /** Stops for good (signed out, shell gone). Rooms stay registered for a later start. */
  async stop(): Promise<void> {
    if (!this.running) return
    this.running = false
    this.generation += 1
    this.connectingNow = undefined
    this.unwatchForReturn()
    const connection = this.connection
    // A later start builds a new connection: this one's late events are ignored (see build()).
    this.connection = undefined
    this.dispatch({ type: 'stopped' })
    await connection?.stop()
  }

  /** Tries again now if the connection has given up (the user came back, the network is back). */
  retry(reason: 'timer' | 'return'): void {
    if (!this.running || this.connectingNow) return
    if (reason === 'timer' ? retriesOnItsOwn(this.state) : retriesOnReturn(this.state)) void this.connect()
  }

  // ---- events and rooms ----

  onEntityChanged(listener: (change: EntityChanged) => void): () => void {
    this.entityListeners.add(listener)
    return () => this.entityListeners.delete(listener)
  }

  /** Administration › Logs followed live: the `LogLine` batches of the `logs` room (join it with joinRoom). */
  onLogLines(listener: (batch: LogLineBatch) => void): () => void {
    this.logListeners.add(listener)
    return () => this.logListeners.delete(listener)
  }

  /** The signed-in person's unread count, whenever one of their notifications arrives or is read (the bell). */
  onNotificationsChanged(listener: (changed: NotificationsChanged) => void): () => void {
    this.notificationListeners.add(listener)
    return () => this.notificationListeners.delete(listener)
  }

  /**
   * Every time the connection is up, the first time and after each reconnect: what the hub sent
   * while it was down is lost, so a screen that follows a figure reads it again here (the bell).
   */
  onConnected(listener: () => void): () => void {
    this.connectedListeners.add(listener)
    return () => this.connectedListeners.delete(listener)
  }

  /** Joins `room` now or as soon as connected, and again after every reconnect; the returned function leaves. */
  joinRoom(room: string, handlers: RoomHandlers): () => void {
    let inRoom = this.rooms.get(room)
    if (!inRoom) {
      inRoom = new Set()
      this.rooms.set(room, inRoom)
    }
    inRoom.add(handlers)
    if (this.state.status === 'connected') void this.join(room, [handlers])
    return () => {
      const current = this.rooms.get(room)
      current?.delete(handlers)
      if (current?.size !== 0) return
      this.rooms.delete(room)
      if (this.state.status === 'connected') this.connection?.invoke(HUB_METHODS.leaveRoom, room).catch(() => undefined)
    }
  }

  /** SendMessage: resolves with the stored message; rejects with the hub's error (see hubRefusal). */
  async sendMessage(room: string, text: string): Promise<RoomMessage> {
    if (!this.connection || this.state.status !== 'connected') throw new Error('Not connected')
    return this.connection.invoke<RoomMessage>(HUB_METHODS.sendMessage, room, text)
  }

  // ---- internals ----

  private dispatch(event: RealtimeEvent): void {
    const next = realtimeReducer(this.state, event)
    if (next === this.state) return
    if (next.status !== this.state.status) track('web.realtime.state', { status: next.status, after: this.state.status, reconnect: next.hadConnection })
    this.state = next
    for (const listener of this.listeners) listener()
  }

  private connect(): Promise<void> {
    if (this.connectingNow) return this.connectingNow
    const connecting = this.connectOnce(this.generation).finally(() => {
      if (this.connectingNow === connecting) this.connectingNow = undefined
    })
    this.connectingNow = connecting
    return connecting
  }

  private async connectOnce(generation: number): Promise<void> {
    const stale = () => generation !== this.generation
    this.dispatch({ type: 'connecting' })
    try {
      let connection = this.connection
      if (!connection) {
        const built = await this.build()
        if (stale()) return
        connection = this.connection ??= built
      }
      await connection.start()
      if (stale() || connection !== this.connection) {
        await connection.stop()
        return
      }
      this.dispatch({ type: 'connected' })
      this.joinAll()
      this.announceConnected()
    } catch (error) {
      if (!stale()) this.dispatch({ type: 'ended', reason: endReasonOf(error) })
    }
  }

  private async build(): Promise<HubConnection> {
    const signalR = await this.options.loadSignalR()
    const delays = this.options.reconnectDelaysMs
    const connection = new signalR.HubConnectionBuilder()
      .withUrl(this.options.url, this.options.connectionOptions ?? {})
      .withAutomaticReconnect({
        nextRetryDelayInMilliseconds: (context) => {
          this.lastRetryReason = context.retryReason
          return nextRetryDelay(context, delays)
        },
      })
      // The library logs every failed attempt as an error; the status says it all.
      .configureLogging(signalR.LogLevel.None)
      .build()
    // Only the current connection speaks: a stopped one may still report its close.
    const current = () => this.running && connection === this.connection
    // Handlers must not return a value (the library would answer it as a client result).
    connection.on(HUB_EVENTS.entityChanged, (change: EntityChanged) => {
      if (current()) for (const listener of this.entityListeners) listener(change)
    })
    connection.on(HUB_EVENTS.receiveMessage, (message: RoomMessage) => {
      if (current()) for (const handlers of this.rooms.get(message.room) ?? []) handlers.message(message)
    })
    connection.on(HUB_EVENTS.presenceChanged, (presence: PresenceChanged) => {
      if (current()) for (const handlers of this.rooms.get(presence.room) ?? []) handlers.presence(presence)
    })
    connection.on(NOTIFICATIONS_CHANGED_EVENT, (changed: NotificationsChanged) => {
      if (current()) for (const listener of this.notificationListeners) listener(changed)
    })
    connection.on(LOG_LINE_EVENT, (batch: LogLineBatch) => {
      if (current()) for (const listener of this.logListeners) listener(batch)
    })
    connection.onreconnecting(() => {
      if (current()) this.dispatch({ type: 'reconnecting' })
    })
    connection.onreconnected(() => {
      if (!current()) return
      this.lastRetryReason = undefined
      this.dispatch({ type: 'connected' })
      this.joinAll()
      this.announceConnected()
    })
    connection.onclose((error) => {
      if (current()) this.dispatch({ type: 'ended', reason: endReasonOf(error ?? this.lastRetryReason) })
      this.lastRetryReason = undefined
    })
    return connection
  }

  private announceConnected(): void {
    for (const listener of this.connectedListeners) listener()
  }

  private joinAll(): void {
    for (const [room, handlers] of this.rooms) void this.join(room, [...handlers])
  }

  private async join(room: string, handlers: RoomHandlers[]): Promise<void> {
    const connection = this.connection
    if (!connection) return
    try {
      const joined = await connection.invoke<JoinedRoom>(HUB_METHODS.joinRoom, room)
      const still = handlers.filter((h) => this.rooms.get(room)?.has(h))
      // Everyone left while the join was on its way: leave again, so presence stays true.
      if (!this.rooms.has(room)) connection.invoke(HUB_METHODS.leaveRoom, room).catch(() => undefined)
      for (const h of still) h.joined(joined)
    } catch (error) {
      for (const h of handlers) h.refused(hubRefusal(error))
    }
  }

  private readonly onOnline = () => this.retry('return')
  private readonly onVisibility = () => {
    if (this.options.document?.visibilityState === 'visible') this.retry('return')
  }

  private watchForReturn(): void {
    this.options.window?.addEventListener('online', this.onOnline)
    this.options.document?.addEventListener('visibilitychange', this.onVisibility)
    this.retryTimer = setInterval(() => this.retry('timer'), this.options.retryEveryMs)
  }

  private unwatchForReturn(): void {
    this.options.window?.removeEventListener('online', this.onOnline)
    this.options.document?.removeEventListener('visibilitychange', this.onVisibility)
    if (this.retryTimer !== undefined) clearInterval(this.retryTimer)
    this.retryTimer = undefined
  }
}
