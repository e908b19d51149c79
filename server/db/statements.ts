/**
 * SQL statements this process has sent, of both drivers (BEGIN and COMMIT included): GET /metrics
 * reports it as db_statements_total, and bench/screen-cost.bench.ts divides it by the answers of a
 * screen. A plain number: it is counted on every statement, so it must cost nothing.
 *
 * DB_STATEMENT_LOG=1 also writes each statement's text to stderr (finding what a screen sends:
 * `npm run bench -- screen-cost --log`); off, it costs one comparison.
 */
let sent = 0
const log = process.env.DB_STATEMENT_LOG === '1'

export function countStatements(n = 1, text?: string): void {
  sent += n
  if (log) process.stderr.write(`[sql] ${(text ?? '?').replace(/\s+/g, ' ').slice(0, 400)}\n`)
}

export function statementsSent(): number {
  return sent
}
