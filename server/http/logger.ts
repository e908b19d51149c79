import pino from 'pino'

export type Logger = pino.Logger

/**
 * Structured JSON logs; each request logs with its correlation id. Errors are serialized without
 * the values a query was run with: a failed query's message and `params` would otherwise put user
 * data (e-mail addresses, typed text) into the logs.
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

const PARAMS_LINE = /\nparams: [\s\S]*$/

type SerializedError = { message?: unknown; stack?: unknown; cause?: unknown; [key: string]: unknown }

/** pino's error serializer, minus query parameters and the values a database error echoes back. */
export function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return error
  return scrub(pino.stdSerializers.err(error) as unknown as SerializedError)
}

function scrub(serialized: SerializedError): SerializedError {
  const { params: _params, detail: _detail, parameters: _parameters, ...rest } = serialized
  const clean: SerializedError = { ...rest }
  if (typeof clean.message === 'string') clean.message = clean.message.replace(PARAMS_LINE, '')
  if (typeof clean.stack === 'string') clean.stack = clean.stack.replace(PARAMS_LINE, '')
  if (clean.cause && typeof clean.cause === 'object') clean.cause = scrub(clean.cause as SerializedError)
  return clean
}
