// What bench/load.ts and bench/load-faults.ts share: the data they load the server with (tenants,
// sessions, photos), built server processes on free ports, and the PostgreSQL scratch databases.
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import sharp from 'sharp'
import type { Config } from '#server/config'
import { openDatabase, type Database, type DatabaseHandle } from '#server/db/client'
import { initialiseInChildProcess } from '#server/db/first-start'
import { sessions } from '#server/db/schema'
import { rowsOf, withTenant } from '#server/db/tenancy'
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '#server/domain/auth/sessions'
import { newToken } from '#server/domain/auth/tokens'
import { cookieName } from '#server/http/cookies'
import { csrfBinding, mintCsrfToken } from '#server/http/csrf'
import { createLogger } from '#server/http/logger'
import { freePort, sleep } from '#tests/multi/instances'
import { HEADERS } from '~/lib/constants'
import { BENCH_NODE_FLAGS, configFor, SESSION_SECRET, serverFile, type Running } from './built-server'
import { adminQuery, databaseOf, seed } from './items-workload'

export const rootDir = fileURLToPath(new URL('..', import.meta.url))
export const migrationsFolder = path.join(rootDir, 'server/db/migrations')
export const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379'

/** Organisations of the load, each with its own items, sessions and photos (writes spread as in a real deployment). */
const TENANTS = 4
const ITEMS_PER_TENANT = 2_000
const SESSIONS_PER_TENANT = 5
const PHOTOS_PER_TENANT = 5
/** The ids a request of the mix picks from, per organisation. */
const PICK = { projects: 10, reports: 20, items: 200 }

export type Session = { token: string; headers: Record<string, string> }
export type LoadTenant = {
  tenantId: string
  sessions: Session[]
  projectIds: string[]
  reportIds: string[]
  /** Open, not deleted: they take responses. */
  itemIds: string[]
  /** Versioned thumbnail URLs of the photos uploaded before the load. */
  thumbnails: string[]
}

/** The load's organisations, seeded straight into the database (bench/items-workload.ts). */
export async function seedTenants(db: Database, config: Config): Promise<LoadTenant[]> {
  const tenants: LoadTenant[] = []
  for (let n = 0; n < TENANTS; n++) {
    const seeded = await seed(db, ITEMS_PER_TENANT)
    const ids = await withTenant(db, seeded.tenantId, async (tx) => ({
      projects: rowsOf<{ id: string }>(await tx.execute(sql`select id from projects order by created_at limit ${PICK.projects}`)),
      reports: rowsOf<{ id: string }>(await tx.execute(sql`select id from reports order by created_at limit ${PICK.reports}`)),
      items: rowsOf<{ id: string }>(await tx.execute(sql`select id from report_items where status = 'open' and deleted_at is null order by created_at desc limit ${PICK.items}`)),
    }))
    const made: Session[] = []
    for (let s = 0; s < SESSIONS_PER_TENANT; s++) made.push(await sessionFor(db, config, seeded))
    tenants.push({ tenantId: seeded.tenantId, sessions: made, projectIds: ids.projects.map((r) => r.id), reportIds: ids.reports.map((r) => r.id), itemIds: ids.items.map((r) => r.id), thumbnails: [] })
  }
  return tenants
}

/** A session as sign-in makes it, with the cookie and CSRF header a browser sends (and the token a hub client needs). */
export async function sessionFor(db: Database, config: Config, who: { tenantId: string; userId: string }): Promise<Session> {
  const now = new Date()
  const { token, hash } = newToken()
  const [session] = await db
    .insert(sessions)
    .values({ tokenHash: hash, userId: who.userId, tenantId: who.tenantId, kind: 'user', issuedAt: now, lastSeenAt: now, expiresAt: new Date(now.getTime() + SESSION_IDLE_MS), maxExpiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS.user) })
    .returning({ id: sessions.id })
  if (!session) throw new Error('no session')
  const csrf = mintCsrfToken(config.sessionSecret, csrfBinding(session.id))
  return { token, headers: { cookie: `${cookieName(config, 'session')}=${token}; ${cookieName(config, 'csrf')}=${csrf}`, [HEADERS.csrf]: csrf } }
}

/** Photos uploaded through the API (so their thumbnails exist), one per item from the first on. */
export async function uploadPhotos(base: string, tenants: LoadTenant[]): Promise<void> {
  for (const tenant of tenants) {
    const session = tenant.sessions[0]
    if (!session) throw new Error('no session')
    for (let n = 0; n < PHOTOS_PER_TENANT; n++) {
      const itemId = tenant.itemIds[n]
      if (!itemId) throw new Error('not enough items')
      const bytes = await sharp({ create: { width: 1200, height: 900, channels: 3, background: { r: 40 * n, g: 120, b: 200 } } }).jpeg().toBuffer()
      const photo = await uploadFile(base, session, itemId, bytes, `load-${n}.jpg`, 'image/jpeg')
      if (!photo.thumbnailUrl) throw new Error('a photo without a thumbnail')
      tenant.thumbnails.push(photo.thumbnailUrl)
    }
  }
}

/** One resumable upload in a single chunk, completed. */
export async function uploadFile(base: string, session: Session, itemId: string, bytes: Uint8Array, fileName: string, contentType: string): Promise<{ id: string; thumbnailUrl: string | null; originalUrl: string | null }> {
  const upload = await api<{ id: string }>(base, session, 'POST', `/api/items/${itemId}/uploads`, { json: { fileName, size: bytes.length, contentType } })
  await api(base, session, 'PUT', `/api/uploads/${upload.id}/chunk?offset=0`, { bytes })
  return api(base, session, 'POST', `/api/uploads/${upload.id}/complete`, { json: {} })
}

/** A signed-in call; JSON or bytes in, JSON out; anything but 2xx throws with the answer. */
export async function api<T>(base: string, session: Session, method: string, pathname: string, body: { json?: unknown; bytes?: Uint8Array } = {}): Promise<T> {
  const response = await fetch(`${base}${pathname}`, {
    method,
    headers: { ...session.headers, accept: 'application/json', 'content-type': body.bytes ? 'application/octet-stream' : 'application/json' },
    ...(body.json !== undefined && { body: JSON.stringify(body.json) }),
    ...(body.bytes && { body: body.bytes as BodyInit }),
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${pathname} → ${response.status}: ${text.slice(0, 500)}`)
  return JSON.parse(text) as T
}

/** A built server process on a free port (bench/built-server.ts starts one on a random port; two may meet). */
export type Instance = Running & { pid: number; kill(): void }

/** BENCH_SERVER_LOG=<folder>: each instance logs every request (info) to <folder>/server-<port>.log, to see where load waits. */
function serverLog(port: number): Record<string, string> {
  const folder = process.env.BENCH_SERVER_LOG
  return folder ? { LOG_LEVEL: 'info', LOG_FILE: path.join(folder, `server-${port}.log`) } : {}
}

export async function launch(env: Record<string, string>, nodeArgs: string[] = []): Promise<Instance> {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const child: ChildProcess = spawn(process.execPath, [...BENCH_NODE_FLAGS, ...nodeArgs, serverFile], {
    env: { PATH: process.env.PATH, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: base, SESSION_SECRET, SEED: 'false', LOG_LEVEL: 'warn', ...serverLog(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let log = ''
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-64_000)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    const timeout = setTimeout(() => child.kill('SIGKILL'), 30_000)
    await exited
    clearTimeout(timeout)
  }
  const instance: Instance = { base, child, pid: child.pid ?? 0, log: () => log, stop, kill: () => child.kill('SIGKILL') }
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) break
    if (await fetch(`${base}/api/health`).then((r) => r.ok, () => false)) return instance
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  await stop()
  throw new Error(`the server did not start:\n${log.slice(-4000)}`)
}

/** A PGlite data folder built as the server builds one (initdb in a child process), with the load's data in it. */
export async function embeddedData(dataDir: string): Promise<LoadTenant[]> {
  const handle = await openDatabase({
    dataDir,
    migrationsFolder,
    initialise: initialiseInChildProcess({ entry: path.join(rootDir, 'build/node/initialise-data-folder.js'), dataDir, migrationsFolder, seed: false, blobs: { store: 'file' }, logger: createLogger('silent') }),
  })
  try {
    return await seedTenants(handle.db, configFor({ DATA_DIR: dataDir }))
  } finally {
    await handle.close()
  }
}

export type Scratch = { url: string; handle: DatabaseHandle; tenants: LoadTenant[]; drop(): Promise<void> }

/** A new PostgreSQL database with the load's data; its handle stays open for counting rows afterwards. */
export async function postgresData(dataDir: string): Promise<Scratch> {
  const name = `sp_bench_load_${randomBytes(4).toString('hex')}`
  await adminQuery(POSTGRES_URL, `create database "${name}"`)
  const url = databaseOf(POSTGRES_URL, name)
  const handle = await openDatabase({ dataDir, databaseUrl: url, migrationsFolder })
  const tenants = await seedTenants(handle.db, configFor({ DATA_DIR: dataDir, DATABASE_URL: url }))
  return {
    url,
    handle,
    tenants,
    async drop() {
      await handle.close()
      await adminQuery(POSTGRES_URL, `drop database if exists "${name}" with (force)`)
    },
  }
}

export function scratchFolder(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'sp-bench-load-'))
}

export { sleep }

export function removeFolder(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true })
}


