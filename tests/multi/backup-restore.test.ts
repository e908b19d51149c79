import { spawn } from 'node:child_process'
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, freePort, migrationsFolder, requireBuild, rootDir, startInstance, type TestDatabase } from './instances'
import { openDatabase, type Database } from '#server/db/client'
import { initialiseInChildProcess } from '#server/db/first-start'
import { csrfBinding, mintCsrfToken } from '#server/http/csrf'
import { createLogger } from '#server/http/logger'
import type { Photo } from '#server/domain/photos/photos'
import type { UploadSession } from '#server/domain/uploads/engine'
import { createMember, createSessionFor } from '#tests/helpers/auth'
import type { TestBackend } from '#tests/helpers/backend'
import { pngImage } from '#tests/helpers/photos'
import { COOKIES, HEADERS } from '~/lib/constants'
import type { Item, Page } from '~/lib/reporting/types'

/**
 * docs/operations.md "Backups", end to end with the built server (`build/node/index.js`) and the
 * scripts as ops run them: data made through the API, `npm run backup`, `npm run restore` into a
 * new data folder (embedded) or a new database (PostgreSQL), a server started on the copy, and
 * every project, item and photo found again with the same bytes.
 */
const secret = randomBytes(32).toString('base64url')

type Instance = { baseUrl: string; stop(): Promise<void> }
type Caller = { token: string; sessionId: string }
type Made = { projectId: string; reportId: string; items: Array<{ id: string; title: string }>; photos: Array<{ id: string; itemId: string; original: string; thumbnail: string }> }

let scratch: string
const running = new Set<Instance>()
const databases: TestDatabase[] = []

beforeAll(async () => {
  requireBuild()
  scratch = await mkdtemp(path.join(os.tmpdir(), 'sp-backup-'))
})

afterAll(async () => {
  for (const instance of running) await instance.stop()
  for (const database of databases) await database.drop()
  if (scratch) await rm(scratch, { recursive: true, force: true })
}, 60_000)

describe('backup and restore', () => {
  it('embedded: refused while the server runs; stopped, backed up and restored into a new folder, everything is there', async () => {
    const dataDir = path.join(scratch, 'embedded')
    const archive = path.join(scratch, 'embedded.tar.gz')
    // The server holds the folder's lock: the member and session are made before it starts, as
    // the server would build the folder (initdb in a child process).
    const handle = await openDatabase({
      dataDir,
      migrationsFolder,
      initialise: initialiseInChildProcess({ entry: path.join(rootDir, 'build/node/initialise-data-folder.js'), dataDir, migrationsFolder, seed: false, blobs: { store: 'file' }, logger: createLogger('silent') }),
    })
    const who = await person(handle.db).finally(() => handle.close())

    const first = await startServer({ DATA_DIR: dataDir })
    const made = await populate(first, who)
    const refused = await script('backup.mjs', ['--out', archive], { DATA_DIR: dataDir })
    expect(refused.code).toBe(1)
    expect(refused.output).toMatch(/Stop it first/)
    await first.stop()

    expect(await script('backup.mjs', ['--out', archive], { DATA_DIR: dataDir })).toMatchObject({ code: 0 })
    const restoredDir = path.join(scratch, 'embedded-restored')
    const restored = await script('restore.mjs', ['--from', archive], { DATA_DIR: restoredDir })
    expect(restored, restored.output).toMatchObject({ code: 0 })

    await expectAllThere(await startServer({ DATA_DIR: restoredDir }), who, made)
    // initdb of a new PGlite folder and two server starts: longer than the project’s default on a busy machine.
  }, 120_000)

  it('PostgreSQL: pg_dump and the files while the server runs, restored into a new database and folder, everything is there', async () => {
    const source = await createDatabase()
    const dataDir = path.join(scratch, 'pg')
    const first = await startServer({ DATA_DIR: dataDir, DATABASE_URL: source })
    const handle = await openDatabase({ dataDir: path.join(scratch, 'pg-test'), databaseUrl: source, migrationsFolder })
    const who = await person(handle.db).finally(() => handle.close())
    const made = await populate(first, who)

    const archive = path.join(scratch, 'pg.tar.gz')
    const backup = await script('backup.mjs', ['--out', archive], { DATA_DIR: dataDir, DATABASE_URL: source })
    expect(backup, backup.output).toMatchObject({ code: 0 })
    await first.stop()

    const target = await createDatabase()
    const restoredDir = path.join(scratch, 'pg-restored')
    const restored = await script('restore.mjs', ['--from', archive], { DATA_DIR: restoredDir, DATABASE_URL: target })
    expect(restored, restored.output).toMatchObject({ code: 0 })
    // Into a database that is not empty any more: refused.
    const again = await script('restore.mjs', ['--from', archive], { DATA_DIR: path.join(scratch, 'pg-again'), DATABASE_URL: target })
    expect(again.output).toMatch(/Restore into an empty database/)

    await expectAllThere(await startServer({ DATA_DIR: restoredDir, DATABASE_URL: target }), who, made)
  })
})

/** A project, a report, three items, three photos (uploaded in two chunks each), through the API. */
async function populate(instance: Instance, who: Caller): Promise<Made> {
  const project = await call<{ id: string }>(instance, who, 'POST', '/api/projects', { title: `Tower ${randomUUID().slice(0, 6)}` })
  const report = await call<{ id: string }>(instance, who, 'POST', '/api/reports', { projectId: project.id, title: 'Walkround' })
  const items: Made['items'] = []
  for (const title of ['Loose handrail', 'Cracked tile', 'Missing sign']) {
    const item = await call<{ id: string }>(instance, who, 'POST', `/api/reports/${report.id}/items`, { title })
    items.push({ id: item.id, title })
  }
  const photos: Made['photos'] = []
  for (const [index, item] of [items[0], items[0], items[1]].entries()) {
    if (!item) throw new Error('no item')
    const bytes = pngImage(40, 30, index + 1)
    const upload = await call<UploadSession>(instance, who, 'POST', `/api/items/${item.id}/uploads`, { fileName: `site-${index}.png`, size: bytes.length, contentType: 'image/png' })
    const half = Math.floor(bytes.length / 2)
    await call(instance, who, 'PUT', `/api/uploads/${upload.id}/chunk?offset=0`, bytes.subarray(0, half))
    await call(instance, who, 'PUT', `/api/uploads/${upload.id}/chunk?offset=${half}`, bytes.subarray(half))
    const photo = await call<Photo>(instance, who, 'POST', `/api/uploads/${upload.id}/complete`)
    photos.push({ id: photo.id, itemId: item.id, original: sha256(bytes), thumbnail: sha256(await download(instance, who, photo.thumbnailUrl)) })
  }
  return { projectId: project.id, reportId: report.id, items, photos }
}

/** The restored server shows the same project, items and photos; originals and thumbnails have the same bytes. */
async function expectAllThere(instance: Instance, who: Caller, made: Made): Promise<void> {
  const projects = await call<{ items: Array<{ id: string }> }>(instance, who, 'GET', '/api/projects')
  expect(projects.items.map((p) => p.id)).toContain(made.projectId)
  const items = await call<Page<Item>>(instance, who, 'GET', `/api/reports/${made.reportId}/items`)
  expect(items.items.map((item) => ({ id: item.id, title: item.title })).sort(byId)).toEqual([...made.items].sort(byId))
  const found: Made['photos'] = []
  for (const item of made.items) {
    const photos = await call<{ items: Photo[] }>(instance, who, 'GET', `/api/items/${item.id}/photos`)
    for (const photo of photos.items) {
      const original = sha256(await download(instance, who, photo.originalUrl))
      found.push({ id: photo.id, itemId: item.id, original, thumbnail: sha256(await download(instance, who, photo.thumbnailUrl)) })
    }
  }
  expect(found.sort(byId)).toEqual([...made.photos].sort(byId))
}

const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id)

async function person(db: Database): Promise<Caller> {
  const member = await createMember(db, { roleKey: 'admin' })
  // The helpers want a TestBackend; they only use its database and clock.
  const session = await createSessionFor({ db, now: () => new Date() } as unknown as TestBackend, member)
  return { token: session.token, sessionId: session.id }
}

/** A signed-in call with the session cookie and its CSRF token: JSON in and out, or bytes in. */
async function call<T>(instance: Instance, who: Caller, method: string, pathname: string, body?: unknown): Promise<T> {
  const csrf = mintCsrfToken(secret, csrfBinding(who.sessionId))
  const bytes = body instanceof Uint8Array
  const response = await fetch(`${instance.baseUrl}${pathname}`, {
    method,
    headers: {
      accept: 'application/json',
      'content-type': bytes ? 'application/octet-stream' : 'application/json',
      cookie: `sp_session=${who.token}; ${COOKIES.csrf}=${csrf}`,
      [HEADERS.csrf]: csrf,
      origin: instance.baseUrl,
    },
    ...(body !== undefined && { body: bytes ? (body as BodyInit) : JSON.stringify(body) }),
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${pathname} → ${response.status}: ${text}`)
  return JSON.parse(text) as T
}

async function download(instance: Instance, who: Caller, url: string | null): Promise<Uint8Array> {
  if (!url) throw new Error('no file URL')
  const response = await fetch(new URL(url, instance.baseUrl), { headers: { cookie: `sp_session=${who.token}` } })
  if (!response.ok) throw new Error(`GET ${url} → ${response.status}`)
  return new Uint8Array(await response.arrayBuffer())
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

/** The built server on `env` (tests/multi/instances.ts), stopped at the end of the file if the test did not; a stop must exit 0. */
async function startServer(env: Record<string, string>): Promise<Instance> {
  const port = await freePort()
  const started = await startInstance('backup', { SESSION_SECRET: secret, PUBLIC_URL: `http://127.0.0.1:${port}`, SEED: 'false', ...env }, port)
  const instance: Instance = {
    baseUrl: started.baseUrl,
    async stop() {
      if (!running.delete(instance)) return
      const code = await started.stop()
      if (code !== 0) throw new Error(`the server did not stop cleanly (${code}):\n${started.output()}`)
    },
  }
  running.add(instance)
  return instance
}

/** Runs scripts/<name> as `npm run backup|restore` does, with only the given environment. */
function script(name: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(rootDir, 'scripts', name), ...args], { cwd: rootDir, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, output }))
  })
}

async function createDatabase(): Promise<string> {
  const database = await createTestDatabase('sp_backup_')
  databases.push(database)
  return database.url
}
