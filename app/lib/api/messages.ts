import type { ErrorKind } from './types'

/** Spec §8 "Messages", word for word. */
export const MESSAGES = {
  serverError: 'The server encountered an error. Please retry or contact support if it continues.',
  unauthorized: 'Session expired or unauthorized. Please sign in again.',
  forbidden: 'You do not have permission to perform this action.',
  notFound: 'The requested resource was not found.',
  requestFailed: 'Request failed. Review details and retry.',
  timeout: 'The request timed out. Please try again.',
  parsing: 'Received an invalid response from the server.',
  network: 'Network request failed. Check your connection and retry.',
  defaultTitle: 'Unexpected error',
  generic: 'Something went wrong. Please try again.',
  serviceUnavailable: 'The service is temporarily unavailable. Please try again soon.',
} as const

/** The catalogue text for an error kind. */
export function messageFor(error: { kind: ErrorKind }): string {
  const { kind } = error
  if (kind === 'TIMEOUT_ERROR') return MESSAGES.timeout
  if (kind === 'PARSING_ERROR') return MESSAGES.parsing
  if (kind === 'FETCH_ERROR') return MESSAGES.network
  if (kind >= 500) return MESSAGES.serverError
  if (kind === 401) return MESSAGES.unauthorized
  if (kind === 403) return MESSAGES.forbidden
  if (kind === 404) return MESSAGES.notFound
  return MESSAGES.requestFailed
}

/** The text a screen shows: like messageFor, with the softer variant for 5xx. */
export function screenMessageFor(error: { kind: ErrorKind }): string {
  if (typeof error.kind === 'number' && error.kind >= 500) return MESSAGES.serviceUnavailable
  return messageFor(error)
}
