import pino from 'pino'

export type Logger = pino.Logger

/** Structured JSON logs; each request logs with its correlation id. */
export function createLogger(level: pino.LevelWithSilent): Logger {
  return pino({
    level,
    base: { service: 'site-portal' },
    redact: { paths: ['password', '*.password', 'headers.cookie', 'headers.authorization'], remove: true },
  })
}
