import { DrizzleQueryError } from 'drizzle-orm/errors'
import pino from 'pino'
import type { LogRing } from '#server/domain/observability/log-ring'

export type Logger = pino.Logger

export type LoggerOptions = {
  /** The in-memory ring every line also goes to (the admin logs tail, docs/observability.md "Logs"). */
  ring?: LogRing | undefined
  /** LOG_FILE: every line is also appended to this file. */
  file?: string | undefined
}

/**
 * Keys whose values never reach a log destination, at any depth: passwords (smtpPassword,
 * newPassword, SMTP's `pass`), secrets (an OIDC client secret, a TOTP secret), tokens (session,
 * CSRF, reset, push), API and private keys, cookies and Authorization headers, one-time codes.
 */
const SECRET_KEY = /(pass|password|passphrase|secret|token|api[-_]?key|access[-_]?key|private[-_]?key|authorization|cookie|credentials?|otp|totp|mfa[-_]?code|recovery[-_]?codes?)$/i
/** A one-time code (TOTP: 6 digits; 8 at most) under a key such as `code`. */
const CODE_KEY = /code$/i
const ONE_TIME_CODE = /^\s*\d{3}\s?\d{3}(\d{2})?\s*$/
/** The password of a URL (smtp://user:password@host, postgres://…), anywhere in a written line. */
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^\s:/@"\\]+:)[^\s@"\\/]+@/gi
export const REDACTED = '[redacted]'

/** Top-level and one-level paths, redacted by pino itself; `scrubSecrets` covers any depth. */
const REDACT_PATHS = [
  'password',
  '*.password',
  'smtpPassword',
  '*.smtpPassword',
  'clientSecret',
  '*.clientSecret',
  'secret',
  '*.secret',
  'token',
  '*.token',
  'code',
  'headers.cookie',
  'headers.authorization',
  'headers["set-cookie"]',
  '*.headers.cookie',
  '*.headers.authorization',
  '*.headers["set-cookie"]',
  'auth.pass',
  '*.auth.pass',
]

/**
 * Structured JSON logs; each request logs with its correlation id. Errors are serialized by
 * `serializeError`, so the values a failed query was run with (e-mail addresses, typed text)
 * never reach the logs. Secrets are removed before a line is written, so no destination — the
 * standard output, the ring, the log file — ever sees them.
 */
export function createLogger(level: pino.LevelWithSilent, destination?: pino.DestinationStream, options: LoggerOptions = {}): Logger {
  const extra: pino.StreamEntry[] = []
  if (options.ring) extra.push({ level: 'trace', stream: options.ring })
  if (options.file) extra.push({ level: 'trace', stream: pino.destination({ dest: options.file, append: true, mkdir: true, sync: true }) })
  const stream =
    extra.length === 0 ? destination : pino.multistream([{ level: 'trace', stream: destination ?? pino.destination(1) }, ...extra], { dedupe: false })
  return pino(
    {
      level,
      base: { service: 'site-portal' },
      redact: { paths: REDACT_PATHS, censor: redactValue },
      serializers: { err: serializeError },
      formatters: { log: (object) => scrubSecrets(object, 0) as Record<string, unknown> },
      hooks: { streamWrite: (line) => line.replace(URL_PASSWORD, `$1${REDACTED}@`) },
    },
    stream,
  )
}

/** pino's censor: `code` only when it is a one-time code, every other listed path always. */
function redactValue(value: unknown, path: string[]): unknown {
  if (path.at(-1) === 'code') return typeof value === 'string' && ONE_TIME_CODE.test(value) ? REDACTED : value
  return REDACTED
}

/**
 * A copy of a logged object without secret values, at any depth (plain objects and arrays; an
 * Error goes to `serializeError`, other instances as they are). The caller's object is untouched.
 */
export function scrubSecrets(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null || depth > 8) return value
  if (Array.isArray(value)) return value.map((item) => scrubSecrets(item, depth + 1))
  const prototype = Object.getPrototypeOf(value) as unknown
  if (prototype !== Object.prototype && prototype !== null) return value
  const copy: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) {
    if (SECRET_KEY.test(key)) copy[key] = REDACTED
    else if (CODE_KEY.test(key) && typeof inner === 'string' && ONE_TIME_CODE.test(inner)) copy[key] = REDACTED
    else copy[key] = scrubSecrets(inner, depth + 1)
  }
  return copy
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
