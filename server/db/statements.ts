/**
 * SQL statements this process has sent, of both drivers (BEGIN and COMMIT included): GET /metrics
 * reports it as db_statements_total, and bench/screen-cost.bench.ts divides it by the answers of a
 * screen. A plain number: it is counted on every statement, so it must cost nothing.
 *
 * With DB_STATEMENT_LOG (config.metrics.statementLog) each statement's text goes to stderr as well
 * (finding what a screen sends: `npm run bench -- screen-cost --log`); off, it costs one comparison.
 */
let sent = 0
let log = false

export function logStatements(on: boolean): void {
  log = on
}

export function countStatements(n = 1, text?: string): void {
  sent += n
  if (log) process.stderr.write(`[sql] ${(text ?? '?').replace(/\s+/g, ' ').slice(0, 400)}\n`)
}

export function statementsSent(): number {
  return sent
}
