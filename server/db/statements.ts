/**
 * SQL statements this process has sent, of both drivers (BEGIN and COMMIT included): GET /metrics
 * reports it as db_statements_total, and bench/screen-cost.bench.ts divides it by the answers of a
 * screen. A plain number: it is counted on every statement, so it must cost nothing.
 */
let sent = 0

export function countStatements(n = 1): void {
  sent += n
}

export function statementsSent(): number {
  return sent
}
