import { closeSync, existsSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import type { PoolConfig } from 'pg'
import { parseAsDrizzleOnce } from './pglite-parsers'
import { prepareStatements } from './pglite-statements'
import { takeTurns } from './turns'
import { countStatements } from './statements'

/**
 * drizzle without a schema: the code builds every query with the query builder and never uses the
 * relational queries (`db.query.…`), which a schema would give. With one, drizzle built a query
 * helper for each of our 87 tables at the start of every transaction.
 */
export type Database = PgDatabase<PgQueryResultHKT>
export type Tx = Parameters<Parameters<Database['transaction']>[0]>[0]

export type DatabaseHandle = {
  db: Database
  driver: 'pglite' | 'postgres'
  /** PostgreSQL's connection pool as it stands (GET /metrics); undefined on PGlite, which has one connection in process. */
  poolStats?: (() => PoolStats) | undefined
  close(): Promise<void>
}

export type PoolStats = { total: number; idle: number; waiting: number; max: number }

export type OpenOptions = {
  dataDir: string
  databaseUrl?: string | undefined
  migrationsFolder: string
  /** Load the PGlite data folder from a dump (tests start from a migrated template). */
  loadDataDir?: Blob | undefined
  /** An idle PostgreSQL connection failed (server restart, connection killed): told, not thrown. */
  onIdleError?: ((error: Error) => void) | undefined
  /**
   * Builds a PGlite folder that does not exist yet (initdb) somewhere else, while this process
   * holds the lock: the production server runs it in a short-lived child process, because the
   * WebAssembly memory PGlite grows during initdb is never given back (server/db/first-start.ts).
   */
  initialise?: ((pgliteDir: string) => Promise<void>) | undefined
  /**
   * PGlite in memory instead of in `dataDir` (tests: a database that lives as long as its test
   * file; every page read and write stays in WebAssembly memory instead of a file system call).
   */
  inMemory?: boolean | undefined
}

/**
 * The pool's bounds, so a database that stops answering fails calls instead of holding them: the
 * API answers them 503 (server/db/outage.ts) and the pool opens new connections by itself once the
 * database is back (docs/operations.md "Database outage"). No call of ours runs one statement for
 * long: uploads stream outside any statement (a lease, not a lock, guards a session), packaging
 * and the jobs work in short transactions and batches.
 */
const POOL_LIMITS = {
  max: 10,
  /** A new connection, or a free one when all ten are busy, within 10 s. */
  connectionTimeoutMillis: 10_000,
  /** PostgreSQL cancels a statement (lock waits included) after 30 s. */
  statement_timeout: 30_000,
  /** No answer at all (a network that drops packets silently): the client gives up after 40 s. */
  query_timeout: 40_000,
  /** TCP keep-alive on every connection, so a peer that vanished is noticed while idle too. */
  keepAlive: true,
} satisfies PoolConfig

/** node-postgres and drizzle's driver for it, loaded only with DATABASE_URL: a server on PGlite (the default) never needs them (~130 ms of CPU at each start). */
async function nodePostgres() {
  const [{ default: pg }, { drizzle: drizzlePg }] = await Promise.all([import('pg'), import('drizzle-orm/node-postgres')])
  return { pg, drizzlePg }
}

/**
 * Migrations run on a connection of their own without the pool's statement timeout: building an
 * index on a large table may take longer than any request should.
 */
async function migrateOnOwnConnection(databaseUrl: string, migrationsFolder: string): Promise<void> {
  const { pg, drizzlePg } = await nodePostgres()
  const { migrate: migratePg } = await import('drizzle-orm/node-postgres/migrator')
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: POOL_LIMITS.connectionTimeoutMillis })
  await client.connect()
  try {
    await migratePg(drizzlePg({ client }), { migrationsFolder })
  } finally {
    await client.end()
  }
}

export async function openDatabase(options: OpenOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const { pg, drizzlePg } = await nodePostgres()
    await migrateOnOwnConnection(options.databaseUrl, options.migrationsFolder)
    const pool = new pg.Pool({ connectionString: options.databaseUrl, ...POOL_LIMITS })
    // Without a listener, an idle client's error (the server restarting, a connection killed by an
    // administrator) is an unhandled 'error' event and ends the process; the pool replaces it anyway.
    pool.on('error', (error) => options.onIdleError?.(error))
    // A client checked out for a transaction has no listener of the pool's: its connection dropping
    // would be an unhandled 'error' event that ends the process. The transaction's next statement
    // fails with the same error (answered 503) and the pool discards the client when it comes back.
    pool.on('connect', (client) => client.on('error', () => {}))
    const db = drizzlePg({ client: pool }) as unknown as Database
    return {
      db,
      driver: 'postgres',
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: POOL_LIMITS.max }),
      close: () => pool.end(),
    }
  }

  if (options.inMemory) {
    const { client, db } = await openPglite('memory://', options.migrationsFolder, options.loadDataDir)
    return { db, driver: 'pglite', close: () => client.close() }
  }

  const dir = path.join(options.dataDir, 'pglite')
  // PGlite creates only the last folder of the path.
  mkdirSync(options.dataDir, { recursive: true })
  const releaseLock = lockDataFolder(options.dataDir)
  try {
    if (options.initialise && !options.loadDataDir && !existsSync(path.join(dir, 'PG_VERSION'))) await options.initialise(dir)
    const { client, db } = await openPglite(dir, options.migrationsFolder, options.loadDataDir)
    return {
      db,
      driver: 'pglite',
      async close() {
        await client.close()
        releaseLock()
      },
    }
  } catch (error) {
    releaseLock()
    throw error
  }
}

/**
 * Opens (or, when empty, creates) a PGlite folder and applies the migrations. No lock: callers hold
 * the data folder's lock, or run under the lock of the process that started them.
 */
export async function openPglite(dir: string, migrationsFolder: string, loadDataDir?: Blob): Promise<{ client: PGlite; db: Database }> {
  // pg_trgm: document search finds partial numbers (migration 0015 creates the extension).
  const client = await PGlite.create({ dataDir: dir, loadDataDir, extensions: { pg_trgm } })
  prepareStatements(client)
  parseAsDrizzleOnce(client)
  takeTurns(client)
  countTransactionEnds(client)
  try {
    await migratePglite(drizzlePglite({ client }), { migrationsFolder })
  } catch (error) {
    await client.close()
    throw error
  }
  return { client, db: drizzlePglite({ client }) as unknown as Database }
}

/**
 * PGlite runs a transaction's BEGIN and COMMIT (or ROLLBACK) itself, outside drizzle's queries,
 * which server/http/tracing.ts counts: two statements each, so db_statements_total means the same
 * on both drivers (node-postgres sends BEGIN and COMMIT as drizzle queries).
 */
function countTransactionEnds(client: PGlite): void {
  const transaction = client.transaction.bind(client)
  client.transaction = ((callback: Parameters<PGlite['transaction']>[0]) => {
    countStatements(2, "BEGIN … COMMIT (PGlite transaction)")
    return transaction(callback)
  }) as PGlite['transaction']
}

export class DataFolderLockedError extends Error {}

export const LOCK_FILE = 'pglite.lock'

/** The pid in the data folder's lock file, if any. */
export function lockHolder(dataDir: string): number | undefined {
  try {
    return Number(readFileSync(path.join(dataDir, LOCK_FILE), 'utf8')) || undefined
  } catch {
    return undefined
  }
}

/**
 * Nothing locks a PGlite data folder: two processes on one folder lose writes. Take an exclusive
 * lock file holding our pid; a lock left by a process that no longer runs is taken over.
 */
function lockDataFolder(dataDir: string): () => void {
  const file = path.join(dataDir, LOCK_FILE)
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx')
      writeSync(fd, String(process.pid))
      closeSync(fd)
      return () => {
        try {
          unlinkSync(file)
        } catch {
          // already gone
        }
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const pid = Number(readFileSync(file, 'utf8'))
      if (pid && pid !== process.pid && isRunning(pid)) {
        throw new DataFolderLockedError(
          `The data folder ${dataDir} is in use by another process (pid ${pid}). ` +
            'Stop it first, or set DATA_DIR to another folder.',
        )
      }
      unlinkSync(file)
    }
  }
  throw new DataFolderLockedError(`Could not lock the data folder ${dataDir}.`)
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
