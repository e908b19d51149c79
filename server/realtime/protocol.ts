/**
 * The JSON hub protocol of ASP.NET Core SignalR (notes/signalr-protocol.md §2): record-separator
 * framing, validation of what clients send and .NET's texts for what goes wrong. Property names
 * are case-sensitive; unknown properties and unknown message types are ignored, as .NET does.
 */

export const RECORD_SEPARATOR = '\u001e'

export const MessageType = {
  Invocation: 1,
  StreamItem: 2,
  Completion: 3,
  StreamInvocation: 4,
  CancelInvocation: 5,
  Ping: 6,
  Close: 7,
  Ack: 8,
  Sequence: 9,
} as const

/** .NET's texts (DefaultHubDispatcher.cs, HubConnectionContext.cs, HubConnectionHandler.cs). */
export const errorText = {
  unknownMethod: (target: string) => `Unknown hub method '${target}'`,
  badArguments: (target: string) => `Failed to invoke '${target}' due to an error on the server.`,
  unexpected: (target: string) => `An unexpected error occurred invoking '${target}' on the server.`,
  hubException: (target: string, message: string) => `An unexpected error occurred invoking '${target}' on the server. HubException: ${message}`,
  streamingInvocation: (target: string) => `The client attempted to invoke the non-streaming '${target}' method with a streaming invocation.`,
  protocolNotSupported: (protocol: string) => `The protocol '${protocol}' is not supported.`,
  versionNotSupported: (protocol: string, version: number) => `The server does not support version ${version} of the '${protocol}' protocol.`,
  connectionClosed: 'Connection closed with an error.',
  handshakeInvalid: 'Handshake was canceled.',
  tooManyInvocations: 'Connection closed with an error: too many invocations are waiting.',
} as const

export type InvocationMessage = { type: 1; invocationId?: string; target: string; arguments: unknown[]; streamIds?: string[] }
export type StreamInvocationMessage = { type: 4; invocationId: string; target: string; arguments: unknown[] }
export type ClientMessage =
  | InvocationMessage
  | { type: 2; invocationId: string }
  | { type: 3; invocationId: string }
  | StreamInvocationMessage
  | { type: 5; invocationId: string }
  | { type: 6 }
  | { type: 7; error?: string; allowReconnect?: boolean }
  | { type: 8; sequenceId: number }
  | { type: 9; sequenceId: number }
  /** A type this protocol version does not know: ignored. */
  | { type: 'unknown' }

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string }

/** Splits received text into complete messages; `rest` is an incomplete message to keep for the next chunk. */
export function splitMessages(text: string): { messages: string[]; rest: string } {
  const parts = text.split(RECORD_SEPARATOR)
  const rest = parts.pop() ?? ''
  return { messages: parts, rest }
}

/** One finished message: its JSON and the separator. */
export function formatMessage(message: object): string {
  return JSON.stringify(message) + RECORD_SEPARATOR
}

/** Messages counted by stateful reconnect's sequence ids (HubProtocol.md "Stateful Reconnect"). */
export function isSequenced(type: number): boolean {
  return type >= MessageType.Invocation && type <= MessageType.CancelInvocation
}

function parseObject(text: string): Record<string, unknown> | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  return value as Record<string, unknown>
}

export function parseHandshake(text: string): Parsed<{ protocol: string; version: number }> {
  const value = parseObject(text)
  if (!value) return { ok: false, reason: 'invalid JSON' }
  const { protocol, version } = value
  if (typeof protocol !== 'string') return { ok: false, reason: "Missing required property 'protocol'." }
  if (typeof version !== 'number' || !Number.isInteger(version)) return { ok: false, reason: "Missing required property 'version'." }
  return { ok: true, value: { protocol, version } }
}

const isString = (value: unknown): value is string => typeof value === 'string'
const isOptional = (value: unknown, check: (value: unknown) => boolean) => value === undefined || check(value)

/** A message from a client, checked as strictly as .NET's JsonHubProtocol; a failure is a protocol error. */
export function parseClientMessage(text: string): Parsed<ClientMessage> {
  const value = parseObject(text)
  if (!value) return { ok: false, reason: 'invalid JSON' }
  const { type, invocationId } = value
  if (typeof type !== 'number' || !Number.isInteger(type)) return { ok: false, reason: "Missing required property 'type'." }
  const fail = (property: string): Parsed<ClientMessage> => ({ ok: false, reason: `Missing or invalid property '${property}'.` })
  switch (type) {
    case MessageType.Invocation: {
      if (!isOptional(invocationId, isString)) return fail('invocationId')
      if (!isString(value.target)) return fail('target')
      if (!Array.isArray(value.arguments)) return fail('arguments')
      const streamIds = value.streamIds
      if (!isOptional(streamIds, (ids) => Array.isArray(ids) && ids.every(isString))) return fail('streamIds')
      return {
        ok: true,
        value: {
          type,
          invocationId: invocationId as string | undefined,
          target: value.target,
          arguments: value.arguments,
          streamIds: streamIds as string[] | undefined,
        },
      }
    }
    case MessageType.StreamInvocation:
      if (!isString(invocationId)) return fail('invocationId')
      if (!isString(value.target)) return fail('target')
      if (!Array.isArray(value.arguments)) return fail('arguments')
      return { ok: true, value: { type, invocationId, target: value.target, arguments: value.arguments } }
    case MessageType.StreamItem:
      if (!isString(invocationId)) return fail('invocationId')
      if (!('item' in value)) return fail('item')
      return { ok: true, value: { type, invocationId } }
    case MessageType.Completion:
      if (!isString(invocationId)) return fail('invocationId')
      if ('result' in value && 'error' in value) return { ok: false, reason: 'The message has both a result and an error.' }
      if (!isOptional(value.error, isString)) return fail('error')
      return { ok: true, value: { type, invocationId } }
    case MessageType.CancelInvocation:
      if (!isString(invocationId)) return fail('invocationId')
      return { ok: true, value: { type, invocationId } }
    case MessageType.Ping:
      return { ok: true, value: { type } }
    case MessageType.Close:
      if (!isOptional(value.error, isString)) return fail('error')
      if (!isOptional(value.allowReconnect, (v) => typeof v === 'boolean')) return fail('allowReconnect')
      return { ok: true, value: { type, error: value.error as string | undefined, allowReconnect: value.allowReconnect as boolean | undefined } }
    case MessageType.Ack:
    case MessageType.Sequence:
      if (typeof value.sequenceId !== 'number' || !Number.isSafeInteger(value.sequenceId)) return fail('sequenceId')
      return { ok: true, value: { type, sequenceId: value.sequenceId } }
    default:
      return { ok: true, value: { type: 'unknown' } }
  }
}
