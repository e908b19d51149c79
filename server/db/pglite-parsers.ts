import { types, type PGlite, type Transaction } from '@electric-sql/pglite'

/**
 * The types drizzle-orm's PGlite driver reads as PostgreSQL's own text (it makes its own Dates and
 * intervals): timestamp, timestamptz, interval, date, and the arrays of numeric, timestamp,
 * timestamptz, interval and date (drizzle-orm/pglite/session.js, 0.45).
 */
const AS_TEXT = [types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE, 1231, 1115, 1185, 1187, 1182]

type QueryOptions = Parameters<PGlite['query']>[2]
type Query = (sql: string, params?: unknown[], options?: QueryOptions) => Promise<unknown>

/**
 * drizzle passes those nine parsers with every query, and PGlite (0.5) then copies its whole table
 * of some 320 parsers into a new object to add them: a third of a primary-key select's time
 * (bench/pglite-queries.bench.ts; docs/performance.md "PGlite's parsers"). Here the client's own table
 * reads those types as text once, and a query's options lose drizzle's copy of the same nine, so
 * PGlite uses its table as it is. A query given any other parser keeps its options.
 */
export function parseAsDrizzleOnce(client: PGlite): void {
  const identity = (value: string) => value
  for (const type of AS_TEXT) client.parsers[type] = identity
  const transaction = client.transaction.bind(client)
  client.query = withoutDrizzleParsersIn(client.query.bind(client)) as PGlite['query']
  client.transaction = (<T>(callback: (tx: Transaction) => Promise<T>) =>
    transaction((tx) => {
      tx.query = withoutDrizzleParsersIn(tx.query.bind(tx)) as Transaction['query']
      return callback(tx)
    })) as PGlite['transaction']
}

/** The client's or a transaction's `query`, given its options without drizzle's parsers. */
function withoutDrizzleParsersIn(query: Query): Query {
  return (sql, params, options) => query(sql, params, withoutDrizzleParsers(options))
}

function withoutDrizzleParsers(options: QueryOptions): QueryOptions {
  const parsers = options?.parsers
  if (!parsers) return options
  const keys = Object.keys(parsers)
  if (keys.length !== AS_TEXT.length || !AS_TEXT.every((type) => type in parsers)) return options
  const { parsers: _drizzles, ...rest } = options
  return rest
}
