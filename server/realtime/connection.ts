import { performance } from 'node:perf_hooks'
import { type Logger } from '#server/http/logger'
import { errorText, formatMessage, type InvocationMessage, isSequenced, MessageType, parseClientMessage, parseHandshake, RECORD_SEPARATOR, splitMessages } from './protocol'
import { type ConnectionInfo, HubError, type HubMethod, type Principal } from './types'

/** Text a paused connection may hold: a socket read or two (the WebSocket's frames are at most 4 × maxMessageBytes + 1 KiB). */
const HELD_BYTES_MAX = 1024 * 1024

/** One way of carrying frames to a client (WebSocket, SSE, long polling). */
export type Transport = {
  readonly kind: 'WebSockets' | 'ServerSentEvents' | 'LongPolling'
  /** Text ending exactly on a record separator (one or more frames). */
  send(text: string): void
  /** Bytes written but not yet taken by the client (backpressure). */
  bufferedBytes(): number
  /** Ends the transport; `abort` drops it without a graceful close (slow consumer). */
  close(abort?: boolean): void
  /**
   * Stops and restarts reading from the client (back-pressure, as ASP.NET Core SignalR stops
   * reading the pipe of a client whose invocations pile up). Only a transport that reads a stream
   * it can pause has them (WebSockets); the others' clients are closed past the bound instead.
   */
  pauseReading?(): void
  resumeReading?(): void
}

export type ConnectionSettings = {
  keepAliveMs: number
  clientTimeoutMs: number
  handshakeTimeoutMs: number
  statefulGraceMs: number
  maxMessageBytes: number
  maxBufferedBytes: number
  /**
   * Invocations waiting behind the running one. At it, a WebSocket stops being read until the
   * queue is down to half; the messages of frames already read still queue, up to twice the bound,
   * and a client past that (or on a transport that cannot pause) is closed.
   */
  maxQueuedInvocations: number
}

/** What the hub gives each connection. */
export type ConnectionHost = {
  settings: ConnectionSettings
  logger: Logger
  findMethod(target: string): HubMethod<readonly unknown[]> | undefined
  /** Handshake done: run the connected hook (its failure closes the connection). */
  opened(connection: HubConnection): Promise<void>
  /** Gone for good: leave groups, forget it, run the disconnected hook. Called once. */
  ended(connection: HubConnection): void
}

/** The client acknowledges about every second; so do we (MessageBuffer.ts). */
const ACK_INTERVAL_MS = 1000

type State = 'handshake' | 'open' | 'detached' | 'ended'
type Sent = { sequenceId: number; frame: string; bytes: number }

/**
 * One hub connection, whatever carries it: handshake, dispatch (one invocation at a time, in
 * order), keep-alive and client timeout, Close, and stateful reconnect's numbering, acks and
 * replay buffer (notes §2 and the client's MessageBuffer.ts, which this mirrors).
 */
export class HubConnection implements ConnectionInfo {
  readonly groups = new Set<string>()
  private state: State = 'handshake'
  private transport: Transport | undefined
  /** Handshake version 2: stateful reconnect is on. */
  private stateful = false
  private inbox = ''
  private invocations: Promise<void> = Promise.resolve()
  private running = 0
  private queued = 0
  /** The transport was asked to stop reading (the queue is full). */
  private readingPaused = false
  /** Text read before the pause took effect (the rest of a frame, frames of the same read), handled on resume. */
  private held = ''
  private lastSent = performance.now()
  private lastReceived = performance.now()
  private keepAliveTimer: NodeJS.Timeout | undefined
  private timeoutTimer: NodeJS.Timeout | undefined
  private handshakeTimer: NodeJS.Timeout | undefined
  private graceTimer: NodeJS.Timeout | undefined
  private ackTimer: NodeJS.Timeout | undefined
  // Stateful reconnect: what we sent and the client has not acknowledged, and what we received.
  private sentSequenceId = 0
  private unacknowledged: Sent[] = []
  private unacknowledgedBytes = 0
  private nextReceivingSequenceId = 1
  private latestReceivedSequenceId = 0
  /** Settles when the connected hook has run; undefined until the handshake. */
  connected: Promise<void> | undefined

  constructor(
    readonly id: string,
    readonly principal: Principal,
    /** Stateful reconnect was negotiated (the token says so). */
    readonly statefulNegotiated: boolean,
    private readonly host: ConnectionHost,
  ) {}

  get isOpen(): boolean {
    return this.state === 'open'
  }

  get isEnded(): boolean {
    return this.state === 'ended'
  }

  get transportKind(): Transport['kind'] | undefined {
    return this.transport?.kind
  }

  /** A new WebSocket for this id may take over: stateful reconnect is on and the connection is not gone. */
  get canResume(): boolean {
    return this.stateful && (this.state === 'open' || this.state === 'detached')
  }

  attach(transport: Transport): void {
    this.transport = transport
    const { handshakeTimeoutMs } = this.host.settings
    this.handshakeTimer = setTimeout(() => {
      this.host.logger.debug({ connectionId: this.id }, 'realtime: handshake timeout')
      this.abort()
    }, handshakeTimeoutMs)
    this.armTimeout()
  }

  /**
   * Stateful reconnect: the client's new socket replaces the old one. We send our Sequence and
   * replay what it has not acknowledged; the client sends its own Sequence first, then replays.
   */
  resume(transport: Transport): void {
    const previous = this.transport
    this.transport = transport
    if (previous && previous !== transport) previous.close(true)
    if (this.readingPaused) transport.pauseReading?.()
    clearTimeout(this.graceTimer)
    this.graceTimer = undefined
    this.inbox = ''
    this.state = 'open'
    const first = this.unacknowledged[0]?.sequenceId ?? this.sentSequenceId + 1
    this.write(formatMessage({ type: MessageType.Sequence, sequenceId: first }))
    if (this.unacknowledged.length > 0) this.write(this.unacknowledged.map((sent) => sent.frame).join(''))
    this.lastReceived = performance.now()
    this.armTimeout()
  }

  /** Text from the transport (binary frames arrive here decoded as UTF-8, as .NET reads them). */
  receive(text: string): void {
    if (this.state === 'ended' || this.state === 'detached') return
    this.lastReceived = performance.now()
    if (this.readingPaused) {
      // Only what the transport had read before it paused arrives here: about one socket read.
      this.held += text
      if (Buffer.byteLength(this.held) > HELD_BYTES_MAX) this.close({ error: errorText.tooManyInvocations })
      return
    }
    const { messages, rest } = splitMessages(this.inbox + text)
    this.inbox = rest
    for (const [index, message] of messages.entries()) {
      if (this.isEnded) return
      if (this.readingPaused) {
        this.held = messages.slice(index).map((held) => held + RECORD_SEPARATOR).join('') + this.inbox
        this.inbox = ''
        return
      }
      if (Buffer.byteLength(message) > this.host.settings.maxMessageBytes) return this.protocolError('message too large')
      if (this.state === 'handshake') this.handshake(message)
      else this.dispatch(message)
    }
    if (!this.isEnded && Buffer.byteLength(this.inbox) > this.host.settings.maxMessageBytes) this.protocolError('message too large')
  }

  /** The transport is gone (socket closed, SSE response ended). */
  transportClosed(transport: Transport): void {
    if (transport !== this.transport || this.state === 'ended') return
    this.transport = undefined
    if (this.state === 'open' && this.stateful) return this.detach()
    this.end()
  }

  /** A message to the client; numbered and kept until acknowledged when stateful reconnect is on. */
  send(message: { type: number } & Record<string, unknown>): void {
    this.sendFrame(formatMessage(message), isSequenced(message.type))
  }

  /** A finished frame (group sends are serialised once for every member). */
  sendFrame(frame: string, sequenced = true): void {
    if (this.state !== 'open' && this.state !== 'detached') return
    if (sequenced && this.stateful) {
      const sent = { sequenceId: ++this.sentSequenceId, frame, bytes: Buffer.byteLength(frame) }
      this.unacknowledged.push(sent)
      this.unacknowledgedBytes += sent.bytes
      if (this.unacknowledgedBytes > this.host.settings.maxBufferedBytes) {
        this.host.logger.warn({ connectionId: this.id }, 'realtime: stateful reconnect buffer full, ending the connection')
        return this.abort()
      }
    }
    if (this.state === 'open') this.write(frame)
  }

  /** Close message, then the transport ends; the connection is gone for good. */
  close(options: { error?: string; allowReconnect?: boolean }): void {
    if (this.state === 'ended') return
    // Before the handshake reply nothing else may be sent; while detached there is nobody to tell.
    if (this.state === 'open') {
      const message: Record<string, unknown> = { type: MessageType.Close }
      if (options.error !== undefined) message.error = options.error
      if (options.allowReconnect) message.allowReconnect = true
      this.write(formatMessage(message))
    }
    this.abort()
  }

  private write(text: string): void {
    const transport = this.transport
    if (!transport) return
    transport.send(text)
    this.lastSent = performance.now()
    this.armKeepAlive()
    if (transport.bufferedBytes() > this.host.settings.maxBufferedBytes) {
      this.host.logger.warn({ connectionId: this.id, transport: transport.kind }, 'realtime: slow consumer dropped')
      transport.close(true)
      this.transport = undefined
      this.end()
    }
  }

  /** The client ended it (long polling's DELETE): no Close message, nothing to resume. */
  stop(): void {
    this.abort()
  }

  /** Ends the transport and the connection without a Close message. */
  private abort(): void {
    const transport = this.transport
    this.transport = undefined
    transport?.close()
    this.end()
  }

  private protocolError(reason: string): void {
    this.host.logger.debug({ connectionId: this.id, reason }, 'realtime: protocol error')
    this.close({ error: errorText.connectionClosed })
  }

  private end(): void {
    if (this.state === 'ended') return
    this.state = 'ended'
    for (const timer of [this.keepAliveTimer, this.timeoutTimer, this.handshakeTimer, this.graceTimer, this.ackTimer]) clearTimeout(timer)
    this.unacknowledged = []
    this.unacknowledgedBytes = 0
    this.host.ended(this)
  }

  private detach(): void {
    this.state = 'detached'
    clearTimeout(this.keepAliveTimer)
    clearTimeout(this.timeoutTimer)
    clearTimeout(this.ackTimer)
    this.keepAliveTimer = undefined
    this.timeoutTimer = undefined
    this.ackTimer = undefined
    this.graceTimer = setTimeout(() => this.end(), this.host.settings.statefulGraceMs)
  }

  private handshake(text: string): void {
    clearTimeout(this.handshakeTimer)
    const parsed = parseHandshake(text)
    const fail = (error: string) => {
      this.write(formatMessage({ error }))
      this.abort()
    }
    if (!parsed.ok) return fail(errorText.handshakeInvalid)
    const { protocol, version } = parsed.value
    if (protocol !== 'json') return fail(errorText.protocolNotSupported(protocol))
    const maxVersion = this.statefulNegotiated ? 2 : 1
    if (version < 1 || version > maxVersion) return fail(errorText.versionNotSupported(protocol, version))
    this.stateful = version === 2
    this.state = 'open'
    this.write(formatMessage({}))
    const connected = this.host.opened(this)
    this.connected = connected
    this.enqueue(() => connected)
  }

  private dispatch(text: string): void {
    const parsed = parseClientMessage(text)
    if (!parsed.ok) return this.protocolError(parsed.reason)
    const message = parsed.value
    if (message.type === 'unknown') return
    if (this.stateful && isSequenced(message.type) && !this.isNew()) return
    switch (message.type) {
      case MessageType.Invocation:
        return this.invocation(message)
      case MessageType.StreamInvocation:
        return this.complete(message.invocationId, { error: errorText.streamingInvocation(message.target) })
      case MessageType.Close:
        // The client stops: nothing to resume, whatever the protocol version.
        return this.abort()
      case MessageType.Ack:
        return this.acknowledged(message.sequenceId)
      case MessageType.Sequence:
        if (!this.stateful) return
        if (message.sequenceId > this.latestReceivedSequenceId + 1) return this.protocolError('sequence ahead of what was received')
        this.nextReceivingSequenceId = message.sequenceId
        return
      // Ping counts as received; client StreamItem, Completion and CancelInvocation have nothing to act on.
      default:
        return
    }
  }

  /** Stateful reconnect: false for a numbered message the client re-sends that we already processed. */
  private isNew(): boolean {
    const current = this.nextReceivingSequenceId++
    if (current <= this.latestReceivedSequenceId) return false
    this.latestReceivedSequenceId = current
    this.ackTimer ??= setTimeout(() => {
      this.ackTimer = undefined
      if (this.state === 'open') this.write(formatMessage({ type: MessageType.Ack, sequenceId: this.latestReceivedSequenceId }))
    }, ACK_INTERVAL_MS)
    return true
  }

  private acknowledged(sequenceId: number): void {
    let count = 0
    for (const sent of this.unacknowledged) {
      if (sent.sequenceId > sequenceId) break
      this.unacknowledgedBytes -= sent.bytes
      count++
    }
    if (count > 0) this.unacknowledged = this.unacknowledged.slice(count)
  }

  private invocation(message: InvocationMessage): void {
    const { invocationId, target } = message
    if (message.streamIds && message.streamIds.length > 0) return this.complete(invocationId, { error: errorText.unexpected(target) })
    this.enqueue(() => this.invoke(message))
  }

  /** The queue has room again: what was held is read first, then the transport reads on. */
  private resumeReading(): void {
    this.readingPaused = false
    const held = this.held
    this.held = ''
    if (held) this.receive(held)
    if (!this.readingPaused && !this.isEnded) this.transport?.resumeReading?.()
  }

  /** Invocations waiting behind the running one (bounded: see ConnectionSettings.maxQueuedInvocations). */
  get queuedInvocations(): number {
    return this.queued
  }

  /** One invocation at a time, in order (.NET's default MaximumParallelInvocationsPerClient = 1). */
  private enqueue(work: () => Promise<void>): void {
    const max = this.host.settings.maxQueuedInvocations
    const pausable = this.transport?.pauseReading !== undefined
    // .NET stops reading from a client whose invocations pile up: so does a WebSocket here (and
    // receive() holds what was already read). A transport that cannot pause is closed instead.
    if (this.queued >= max && !pausable) {
      this.host.logger.warn({ connectionId: this.id, queued: this.queued }, 'hub connection closed: too many invocations waiting')
      return this.close({ error: errorText.tooManyInvocations })
    }
    this.queued++
    if (pausable && !this.readingPaused && this.queued >= max) {
      this.readingPaused = true
      this.transport?.pauseReading?.()
    }
    this.invocations = this.invocations.then(async () => {
      this.queued--
      if (this.readingPaused && this.queued <= Math.floor(max / 2)) this.resumeReading()
      if (this.state === 'ended') return
      this.running++
      try {
        await work()
      } catch {
        // The connected hook's failure is handled where it runs.
      } finally {
        this.running--
        this.lastReceived = performance.now()
      }
    })
  }

  private async invoke(message: InvocationMessage): Promise<void> {
    const { invocationId, target } = message
    const method = this.host.findMethod(target)
    if (!method) return this.complete(invocationId, { error: errorText.unknownMethod(target) })
    const args = method.args.safeParse(message.arguments)
    if (!args.success) return this.complete(invocationId, { error: errorText.badArguments(target) })
    try {
      const result = await method.run(this, ...args.data)
      this.complete(invocationId, { result })
    } catch (error) {
      if (error instanceof HubError) return this.complete(invocationId, { error: errorText.hubException(target, error.message) })
      this.host.logger.error({ err: error, connectionId: this.id, target }, 'realtime: hub method failed')
      this.complete(invocationId, { error: errorText.unexpected(target) })
    }
  }

  /** No invocation id: the client used send() and expects no answer. */
  private complete(invocationId: string | undefined, outcome: { result?: unknown; error?: string }): void {
    if (invocationId === undefined) return
    const message: Record<string, unknown> & { type: number } = { type: MessageType.Completion, invocationId }
    if (outcome.error !== undefined) message.error = outcome.error
    else if (outcome.result !== undefined) message.result = outcome.result
    this.send(message)
  }

  private armKeepAlive(): void {
    if (this.keepAliveTimer || this.state === 'ended') return
    const { keepAliveMs } = this.host.settings
    const wait = Math.max(0, keepAliveMs - (performance.now() - this.lastSent))
    this.keepAliveTimer = setTimeout(() => {
      this.keepAliveTimer = undefined
      if (this.state !== 'open') return
      if (performance.now() - this.lastSent >= keepAliveMs) this.write(formatMessage({ type: MessageType.Ping }))
      else this.armKeepAlive()
    }, wait)
  }

  /** The client timeout pauses while a method runs (.NET), and restarts when it returns. */
  private armTimeout(): void {
    clearTimeout(this.timeoutTimer)
    const { clientTimeoutMs } = this.host.settings
    const wait = Math.max(0, clientTimeoutMs - (performance.now() - this.lastReceived))
    this.timeoutTimer = setTimeout(() => {
      if (this.state !== 'open' && this.state !== 'handshake') return
      if (this.running === 0 && performance.now() - this.lastReceived >= clientTimeoutMs) {
        this.host.logger.debug({ connectionId: this.id }, 'realtime: client timeout')
        return this.close({ allowReconnect: true })
      }
      if (this.running > 0) this.lastReceived = performance.now()
      this.armTimeout()
    }, wait)
  }
}
