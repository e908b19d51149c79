import { DrizzleQueryError } from 'drizzle-orm/errors'
import pino from 'pino'

export type Logger = pino.Logger

/**
 * Structured JSON logs; each request logs with its correlation id. Errors are serialized by
 * `serializeError`, so the values a failed query was run with (e-mail addresses, typed text)
 * never reach the logs.
 */
export function createLogger(level: pino.LevelWithSilent, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'site-portal' },
      redact: { paths: ['password', '*.password', 'headers.cookie', 'headers.authorization'], remove: true },
      serializers: { err: serializeError },
    },
    destination,
  )
}

type SerializedError = { type: string; message: string; stack?: string; code?: string; cause?: unknown }

/**
 * An error as type, message, stack, code and cause — and nothing else: a failed query's message
 * names its SQL but not its parameters, and driver fields that echo values (a PostgreSQL error's
 * `detail`, "Key (email)=(…) already exists") are left out.
 */
export function serializeError(error: unknown, depth = 0): unknown {
  if (!(error instanceof Error)) return error
  const message = error instanceof DrizzleQueryError ? `Failed query: ${error.query}` : error.message
  const code = (error as { code?: unknown }).code
  const serialized: SerializedError = { type: error.constructor.name, message }
  if (error.stack) serialized.stack = error.stack.replace(error.message, message)
  if (typeof code === 'string') serialized.code = code
  if (error.cause !== undefined && depth < 5) serialized.cause = serializeError(error.cause, depth + 1)
  return serialized
}
