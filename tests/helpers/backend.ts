import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { inject } from 'vitest'
import { createBackend, type Backend } from '#server/api/app'
import { loadConfig, type Config } from '#server/config'
import { openDatabase, type Database, type DatabaseHandle } from '#server/db/client'
import { assertRowLevelSecurity } from '#server/db/tenancy'
import { createLogger } from '#server/http/logger'
import { PASSWORD_HASH_COST } from '#server/domain/auth/passwords'
import { onSchemaIncident, settleSchemaIncidents, type SchemaCall, type SchemaMismatch } from '#server/domain/observability/schema-incidents'
import { databaseOf } from '#tests/setup/api-global'
import { openFileDatabase } from './pglite-reuse'

/** The address the backend sees for test requests (TEST-NET-3, RFC 5737). */
export const TEST_REMOTE_ADDRESS = '203.0.113.7'
export const TEST_ORIGIN = 'http://portal.test'
/** Fixed so cookies and CSRF tokens signed in one test read the same in the next. */
export const TEST_SESSION_SECRET = 'test-session-secret-0123456789abcdefghijklmnopqr'

const migrationsFolder = fileURLToPath(new URL('../../server/db/migrations', import.meta.url))

/**
 * The backend's clock: frozen, so nothing depends on how long a test takes. `now()` reads it;
 * `set` and `advance` move it (expiry, throttling windows); `reset` returns to where it started.
 */
export type TestClock = {
  (): Date
  set(at: Date | string | number): void
  advance(ms: number): void
  reset(): void
}

export type TestRequestInit = RequestInit & {
  /** The caller's address as the transport would report it; TEST_REMOTE_ADDRESS unless given. */
  remoteAddress?: string
}

export type TestBackend = {
  db: Database
  driver: DatabaseHandle['driver']
  backend: Backend
  config: Config
  now: TestClock
  /** Sends a request for `path` (relative to http://portal.test) straight to the backend. */
  fetch(path: string, init?: TestRequestInit): Promise<Response>
  /** The responses so far that did not match their call's declared schema (every response is checked). */
  schemaIncidents(): ReadonlyArray<SchemaCall & SchemaMismatch>
  /**
   * Closes the database and removes it (folder or PostgreSQL database). Safe to call twice. Fails
   * (so the test file fails) when any response did not match its declared schema, unless the
   * backend was made with `allowSchemaIncidents`: every API test is also a contract test.
   */
  close(): Promise<void>
}

export type TestBackendOptions = {
  /** Where the clock starts; the wall-clock time at creation by default. */
  now?: Date | string | number
  /** Extra environment for loadConfig, e.g. { TRUST_PROXY: 'true' }. */
  env?: Record<string, string>
  /** For tests that break a response on purpose: close() does not fail on schema incidents. */
  allowSchemaIncidents?: boolean
}

/**
 * A real backend on a fresh, migrated database of its own: PGlite loaded from the template that
 * tests/setup/api-global.ts built, or a new PostgreSQL database when TEST_DATABASE_URL is set.
 * Create one per test file (beforeAll) and close it in afterAll; tests make their own tenants and
 * users, so they run in any order.
 */
export async function createTestBackend(options: TestBackendOptions = {}): Promise<TestBackend> {
  const started = performance.now()
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-api-'))
  const cleanups: Array<() => Promise<void>> = [() => rm(dataDir, { recursive: true, force: true })]
  const cleanUp = async () => {
    // Incidents still being stored write to the database: let them finish first.
    await settleSchemaIncidents()
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  }
  const incidents: Array<SchemaCall & SchemaMismatch> = []
  cleanups.push(async () => {
    stopListening()
  })
  const stopListening = onSchemaIncident((call, mismatch) => incidents.push({ ...call, ...mismatch }))

  try {
    const serverUrl = process.env.TEST_DATABASE_URL
    let databaseUrl: string | undefined
    let handle: DatabaseHandle
    let reused = false
    if (serverUrl) {
      const name = `${inject('testDatabasePrefix') || 'sp_t_'}${randomBytes(6).toString('hex')}`
      // A copy of the run's migrated template (tests/setup/api-global.ts); the migrations below then find nothing to do.
      const template = inject('testDatabaseTemplate')
      await adminQuery(serverUrl, template ? `create database "${name}" template "${template}"` : `create database "${name}"`)
      cleanups.push(() => adminQuery(serverUrl, `drop database if exists "${name}" with (force)`))
      databaseUrl = databaseOf(serverUrl, name)
      handle = await openDatabase({ dataDir, databaseUrl, migrationsFolder })
    } else {
      const template = inject('pgliteTemplate')
      if (!template) throw new Error('No PGlite template: run API tests through `vitest --project api` (tests/setup/api-global.ts).')
      // A database an earlier file of this worker emptied, or the template loaded anew (pglite-reuse.ts).
      const database = await openFileDatabase(migrationsFolder, async () => new Blob([await readFile(template)]))
      handle = { db: database.db, driver: 'pglite', close: () => database.close() }
      reused = database.reused
    }
    cleanups.push(() => handle.close())
    await assertRowLevelSecurity(handle.db)

    const config = loadConfig({
      ...s3Environment(),
      NODE_ENV: 'test',
      SESSION_SECRET: TEST_SESSION_SECRET,
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'silent',
      PUBLIC_URL: TEST_ORIGIN,
      SEED: 'false',
      // Every JSON answer is checked against its call's declared schema (schema incidents).
      SCHEMA_CHECK_SAMPLE: '1',
      // The lowest hash cost: the suite signs in hundreds of times (server/domain/auth/passwords.ts).
      PASSWORD_HASH_COST: String(PASSWORD_HASH_COST.min),
      ...options.env,
    })
    const now = createClock(options.now ?? Date.now())
    const backend = createBackend({ config, db: handle.db, logger: createLogger(config.logLevel), now })

    const what = handle.driver === 'postgres' ? 'fresh PostgreSQL database' : reused ? "an earlier file's PGlite, emptied" : 'PGlite loaded from the template'
    console.info(`[api] ${what} ready in ${Math.round(performance.now() - started)} ms`)

    return {
      db: handle.db,
      driver: handle.driver,
      backend,
      config,
      now,
      fetch(requestPath, init = {}) {
        const { remoteAddress = TEST_REMOTE_ADDRESS, ...requestInit } = init
        const request = new Request(new URL(requestPath, TEST_ORIGIN), requestInit)
        return backend.fetch(request, { remoteAddress })
      },
      schemaIncidents: () => incidents,
      async close() {
        await cleanUp()
        if (incidents.length === 0 || options.allowSchemaIncidents) return
        const lines = incidents.map((i) => `  ${i.method} ${i.path} ${i.status}: ${i.field || '(body)'} expected ${i.expected}, got ${i.got} (correlation id ${i.correlationId})`)
        incidents.length = 0
        throw new Error(`${lines.length} response field(s) did not match the declared schema (schema incidents):\n${lines.join('\n')}`)
      },
    }
  } catch (error) {
    await cleanUp()
    throw error
  }
}

/**
 * With TEST_BLOB_STORE=s3, the run's S3 server (tests/setup/api-global.ts) under a fresh key
 * prefix, so no backend sees another's objects. The SDK takes its credentials from the process's
 * environment (the standard chain), so they go there too.
 */
function s3Environment(): Record<string, string> {
  const env = inject('s3Env')
  if (!env.BLOB_STORE) return {}
  for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'] as const) process.env[name] = env[name]
  return { ...env, S3_KEY_PREFIX: `t-${randomBytes(6).toString('hex')}` }
}

function createClock(start: Date | string | number): TestClock {
  const origin = new Date(start).getTime()
  if (Number.isNaN(origin)) throw new Error(`createTestBackend: not a date: ${String(start)}`)
  let current = origin
  return Object.assign(() => new Date(current), {
    set(at: Date | string | number) {
      const next = new Date(at).getTime()
      if (Number.isNaN(next)) throw new Error(`TestClock.set: not a date: ${String(at)}`)
      current = next
    },
    advance(ms: number) {
      current += ms
    },
    reset() {
      current = origin
    },
  })
}

async function adminQuery(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}
