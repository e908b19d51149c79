/** Structured log lines from the web app, in the same JSON shape as the backend's (pino). */
type Level = 'info' | 'warn' | 'error'
const LEVELS: Record<Level, number> = { info: 30, warn: 40, error: 50 }

export function log(level: Level, msg: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ level: LEVELS[level], time: Date.now(), service: 'site-portal-web', ...fields, msg })
  process.stdout.write(`${line}\n`)
}
