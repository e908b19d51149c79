import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import type { TestProject } from 'vitest/node'
import { openDatabase, openPglite } from '#server/db/client'
import { startS3 } from '#tests/helpers/s3'

/**
 * globalSetup of the api project, run once per `vitest run` in the main process.
 *
 * PGlite (default): a new data folder costs seconds of initdb, so the migrated database is built
 * once here and dumped to a file; every test file loads that dump into its own folder
 * (tests/helpers/backend.ts).
 * PostgreSQL (TEST_DATABASE_URL): every test file creates its own database as a copy of one that is
 * migrated once here (CREATE DATABASE … TEMPLATE: about 0.1 s against a second of migrations, and
 * about 0.6 CPU-s of the two cores, per file). Migrating here first also keeps parallel workers
 * from racing to create the cluster-wide role app_user, which the first migration creates.
 * TEST_BLOB_STORE=s3: one S3-compatible server (s3rver) for the run; every backend then stores its
 * blobs there, under a key prefix of its own (tests/helpers/backend.ts).
 */
declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of the dumped, migrated PGlite data folder ('' on PostgreSQL). */
    pgliteTemplate: string
    /** Prefix of this run's PostgreSQL test databases, so teardown can drop strays of this run only. */
    testDatabasePrefix: string
    /** The migrated PostgreSQL database each test file's database is copied from ('' on PGlite). */
    testDatabaseTemplate: string
    /** The portal's environment for this run's S3 server (BLOB_STORE=s3, S3_*, AWS_*); empty with the file store. */
    s3Env: Record<string, string>
  }
}

const migrationsFolder = fileURLToPath(new URL('../../server/db/migrations', import.meta.url))

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stopS3 = await setupBlobStore(project)
  try {
    const databaseUrl = process.env.TEST_DATABASE_URL
    const teardown = databaseUrl ? await setupPostgres(project, databaseUrl) : await setupPglite(project)
    return async () => {
      try {
        await teardown()
      } finally {
        await stopS3()
      }
    }
  } catch (error) {
    await stopS3()
    throw error
  }
}

async function setupBlobStore(project: TestProject): Promise<() => Promise<void>> {
  const store = process.env.TEST_BLOB_STORE ?? 'file'
  if (store === 'file') {
    project.provide('s3Env', {})
    return async () => {}
  }
  if (store !== 's3') throw new Error(`TEST_BLOB_STORE must be file or s3, not ${store}`)
  const s3 = await startS3()
  console.info(`[api] blobs in s3rver at ${s3.endpoint}, bucket ${s3.bucket}: one key prefix per backend`)
  project.provide('s3Env', s3.env)
  return () => s3.stop()
}

async function setupPglite(project: TestProject): Promise<() => Promise<void>> {
  const started = performance.now()
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sp-pglite-template-'))
  const file = `${dir}.tar`
  try {
    // The server's own opening (extensions such as pg_trgm, then the migrations).
    const { client } = await openPglite(path.join(dir, 'pglite'), migrationsFolder)
    try {
      // Uncompressed: loading it is faster than gunzipping, and the file is gone after the run.
      const dump = await client.dumpDataDir('none')
      await writeFile(file, Buffer.from(await dump.arrayBuffer()))
    } finally {
      await client.close()
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
  console.info(`[api] migrated PGlite template built in ${Math.round(performance.now() - started)} ms: ${file}`)
  project.provide('pgliteTemplate', file)
  project.provide('testDatabasePrefix', '')
  project.provide('testDatabaseTemplate', '')
  return async () => {
    await rm(file, { force: true })
  }
}

async function setupPostgres(project: TestProject, databaseUrl: string): Promise<() => Promise<void>> {
  const prefix = `sp_t_${randomBytes(3).toString('hex')}_`
  const admin = new pg.Client({ connectionString: databaseUrl })
  try {
    await admin.connect()
  } catch (error) {
    throw new Error(`TEST_DATABASE_URL is set but PostgreSQL does not answer at ${redact(databaseUrl)}: ${String(error)}`, { cause: error })
  }
  // The template: migrated once, then copied by each test file. No one may be connected to it while
  // it is copied, so its pool is closed here; the run's teardown drops it with the rest (its prefix).
  const template = `${prefix}template`
  try {
    await admin.query(`create database "${template}"`)
    const handle = await openDatabase({ dataDir: os.tmpdir(), databaseUrl: databaseOf(databaseUrl, template), migrationsFolder })
    await handle.close()
  } catch (error) {
    await admin.query(`drop database if exists "${template}" with (force)`)
    throw error
  } finally {
    await admin.end()
  }
  console.info(`[api] PostgreSQL at ${redact(databaseUrl)}: one database per test file, named ${prefix}…, copied from ${template}`)
  project.provide('pgliteTemplate', '')
  project.provide('testDatabasePrefix', prefix)
  project.provide('testDatabaseTemplate', template)

  // Test files drop their own database; this catches the ones a crashed worker left behind.
  return async () => {
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    try {
      const { rows } = await client.query<{ datname: string }>(`select datname from pg_database where starts_with(datname, $1)`, [prefix])
      for (const { datname } of rows) await client.query(`drop database if exists "${datname}" with (force)`)
    } finally {
      await client.end()
    }
  }
}

/** The same server and credentials, another database. */
export function databaseOf(serverUrl: string, name: string): string {
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return url.toString()
}

function redact(databaseUrl: string): string {
  const url = new URL(databaseUrl)
  if (url.password) url.password = '***'
  return url.toString()
}
