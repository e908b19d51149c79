import type { ProblemInit } from '#server/http/problem'

/**
 * Telling "the database is gone" from "this call is wrong" (docs/operations.md "Database outage").
 * When PostgreSQL stops, restarts or drops off the network, the driver throws socket errors,
 * connection-class SQLSTATEs or plain messages without a code; drizzle wraps each in a
 * DrizzleQueryError whose `cause` is the driver's error. Those are answered 503 with Retry-After
 * (the pool reconnects by itself once the database answers again), everything else stays a 500.
 */

/** Socket and name-resolution failures of the connection to the database server. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND'])

/**
 * SQLSTATEs of a server going away or refusing work (PostgreSQL appendix A): admin_shutdown,
 * crash_shutdown, cannot_connect_now (starting or in recovery), too_many_connections, and
 * query_canceled, which here only the pool's statement_timeout causes (server/db/client.ts).
 */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300', '57014'])

/** node-postgres and pg-pool throw these without a code. */
const DRIVER_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^timeout expired/,
  /^Query read timeout/,
  /is not queryable/,
  /^Cannot use a pool after calling end/,
]

/** How long a client should wait before trying again (the Retry-After of the 503). */
export const DATABASE_RETRY_AFTER_SECONDS = 5

/**
 * True when the error (or one it wraps) says the PostgreSQL server of `databaseUrl` cannot be
 * reached or is going away.
 */
export function isDatabaseOutage(error: unknown, databaseUrl: string): boolean {
  const databasePort = portOf(databaseUrl)
  const seen = new Set<unknown>()
  const pending: unknown[] = [error]
  while (pending.length > 0) {
    const current = pending.pop()
    if (typeof current !== 'object' || current === null || seen.has(current)) continue
    seen.add(current)
    const { code, port, message, cause } = current as { code?: unknown; port?: unknown; message?: unknown; cause?: unknown }
    if (typeof code === 'string' && (SERVER_CODES.has(code) || code.startsWith('08'))) return true
    // A failed connect names the port it tried: another service's (S3, SMTP, an identity provider) is not the database.
    if (typeof code === 'string' && NETWORK_CODES.has(code) && (port === undefined || databasePort === undefined || port === databasePort)) return true
    if (typeof message === 'string' && DRIVER_MESSAGES.some((pattern) => pattern.test(message))) return true
    pending.push(cause)
    // A connect to a host with several addresses fails with each one (Node's AggregateError).
    if (current instanceof AggregateError) pending.push(...(current.errors as unknown[]))
  }
  return false
}

/** The port of a postgres:// URL; undefined for one URL can't read (several hosts, as libpq allows). */
function portOf(databaseUrl: string): number | undefined {
  try {
    return Number(new URL(databaseUrl).port) || 5432
  } catch {
    return undefined
  }
}

export function databaseUnavailable(): ProblemInit {
  return {
    status: 503,
    title: 'Service Unavailable',
    detail: 'The database is not reachable at the moment.',
    code: 'KR_DB_UNAVAILABLE',
    remediation: 'Try again in a few seconds. If it continues, tell the operator, with the correlation id.',
    retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
  }
}
