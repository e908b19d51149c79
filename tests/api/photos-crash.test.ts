import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { PGlite } from '@electric-sql/pglite'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { openDatabase, type Database } from '#server/db/client'
import { photos, uploadSessions } from '#server/db/schema-photos'
import { withTenant } from '#server/db/tenancy'
import { STRAY_AGE_MS } from '#server/domain/photos/sweep'
import { createLogger } from '#server/http/logger'
import { sweepStrayPhotos } from '#server/jobs/upload-purge'
import { type BlobStore } from '#server/storage/blob-store'
import { blobStoreFor } from '#server/storage/blob-stores'
import { Bucket } from '#server/storage/s3-bucket'
import { S3BlobStore } from '#server/storage/s3-blob-store'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { createUpload, pngImage, putChunk, uploadPhoto } from '#tests/helpers/photos'
import { createItem, createOrg, json } from '#tests/helpers/reporting-b'

/**
 * A crash between moving the upload into place and inserting the photo row: a child process runs
 * complete with SP_TEST_CRASH_AT=photo-complete:after-move and is SIGKILLed there; then the sweep
 * (as at the next start) must leave no file without a row and no session stuck in `completing`.
 * On PGlite, which one process owns, the child works on a copy of the data folder (database dump
 * and blobs) and the test reopens that copy after the kill; on PostgreSQL the child shares the
 * database and the data folder. With S3 the child shares the bucket either way.
 *
 * The clock starts at the real time: the sweep compares the rows' times with the blobs' modification
 * times, which S3 sets itself (the file store's are set to the test clock below). The sweeps run at
 * least ten minutes past the hour after it, far more than the test can take.
 */

let t: TestBackend
const scratch: string[] = []

beforeAll(async () => {
  t = await createTestBackend()
})

afterAll(async () => {
  await t?.close()
  for (const dir of scratch) await rm(dir, { recursive: true, force: true })
})

function runChild(env: Record<string, string>): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
  return new Promise((resolve, reject) => {
    // `node --import tsx`, not the tsx command: that one runs the script in a process of its own, and the kill must be of this one.
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/api/fixtures/photo-complete-child.ts'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    child.on('error', reject)
    child.on('exit', (code, signal) => resolve({ code, signal, output }))
  })
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.join(d.parentPath, d.name))
}

async function keysUnder(store: BlobStore, prefix: string): Promise<string[]> {
  return (await store.list(prefix)).map((e) => e.key).sort()
}

/** As the file store's files were written at the test clock's now (the test's one clock for rows and files). */
function dateFilesAtNow(dataDir: string): void {
  if (t.config.blobs.store !== 'file') return
  for (const file of filesUnder(path.join(dataDir, 'blobs'))) utimesSync(file, t.now(), t.now())
}

const LATER_MS = STRAY_AGE_MS + 10 * 60_000

test('a process killed between moving the file and inserting the row leaves nothing orphaned once the sweep has run', { timeout: 90_000 }, async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const kept = await uploadPhoto(org.writer, item.id, pngImage(7, 7, 70), { fileName: 'kept.png' })
  const image = pngImage(9, 9, 71)
  const session = await createUpload(org.writer, item.id, image, { fileName: 'crash.png' })
  await json(await putChunk(org.writer, session.id, 0, image))

  // Where the child works, and where the test looks afterwards.
  let dataDir = t.config.dataDir
  let db: Database = t.db
  let close = async () => {}
  const childEnv: Record<string, string> = {
    SP_TEST_CRASH_AT: 'photo-complete:after-move',
    CHILD_TENANT_ID: org.tenant.id,
    CHILD_USER_ID: org.writer.member.user.id,
    CHILD_SESSION_ID: session.id,
    CHILD_NOW: t.now().toISOString(),
    LOG_LEVEL: 'silent',
  }
  childEnv.CHILD_BLOBS = JSON.stringify(t.config.blobs)
  if (t.driver === 'postgres') {
    childEnv.CHILD_DATA_DIR = dataDir
    childEnv.CHILD_DATABASE_URL = t.config.databaseUrl ?? ''
  } else {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-crash-'))
    scratch.push(dataDir)
    const dump = await (t.db as unknown as { $client: PGlite }).$client.dumpDataDir('none')
    if (t.config.blobs.store === 'file') cpSync(path.join(t.config.dataDir, 'blobs'), path.join(dataDir, 'blobs'), { recursive: true })
    const seeded = await openDatabase({ dataDir, migrationsFolder: path.resolve('server/db/migrations'), loadDataDir: dump })
    await seeded.close()
    childEnv.CHILD_DATA_DIR = dataDir
  }

  const child = await runChild(childEnv)
  expect(child.signal, child.output).toBe('SIGKILL')
  expect(child.output).not.toContain('done')

  if (t.driver !== 'postgres') {
    const reopened = await openDatabase({ dataDir, migrationsFolder: path.resolve('server/db/migrations') })
    db = reopened.db
    close = () => reopened.close()
  }
  try {
    const store = blobStoreFor({ dataDir, blobs: t.config.blobs })
    const photosOfTenant = `${org.tenant.id}/photos`
    const keptKeys = (await keysUnder(store, photosOfTenant)).filter((k) => k.includes(kept.id))
    expect(keptKeys.length).toBe(3)
    // The crash left the original moved into place, no row, and the session claimed.
    const stray = (await keysUnder(store, photosOfTenant)).filter((k) => !k.includes(kept.id))
    expect(stray.map((k) => k.split('/').at(-1)?.split('.')[0])).toEqual(['original'])
    const rowsOf = () =>
      withTenant(db, org.tenant.id, async (tx) => ({
        session: (await tx.select({ state: uploadSessions.state, failureReason: uploadSessions.failureReason }).from(uploadSessions).where(and(eq(uploadSessions.tenantId, org.tenant.id), eq(uploadSessions.id, session.id))))[0],
        photoIds: (await tx.select({ id: photos.id }).from(photos).where(and(eq(photos.tenantId, org.tenant.id), eq(photos.itemId, item.id)))).map((p) => p.id),
      }))
    expect(await rowsOf()).toEqual({ session: { state: 'completing', failureReason: null }, photoIds: [kept.id] })

    // One clock for rows and files: the blobs date from the test clock's now, as if the crash were then.
    dateFilesAtNow(dataDir)
    const logger = createLogger('silent')
    // Within the hour, a complete may still be under way: nothing is touched.
    const soon = await sweepStrayPhotos(db, store, logger, () => new Date(t.now().getTime() + 60_000))
    expect(soon).toMatchObject({ interruptedSessions: 0, strayBlobs: 0 })
    expect((await keysUnder(store, photosOfTenant)).filter((k) => !k.includes(kept.id)).length).toBe(1)

    // An hour on (at the next start, or the next pass of the timer).
    const later = () => new Date(t.now().getTime() + LATER_MS)
    const swept = await sweepStrayPhotos(db, store, logger, later)
    expect(swept).toMatchObject({ interruptedSessions: 1, strayBlobs: 1 })
    expect((await keysUnder(store, photosOfTenant)).filter((k) => !k.includes(kept.id))).toEqual([])
    expect((await keysUnder(store, photosOfTenant)).filter((k) => k.includes(kept.id))).toEqual(keptKeys)
    expect((await keysUnder(store, `staging/${org.tenant.id}`)).filter((k) => k.includes(session.id))).toEqual([])
    expect(await rowsOf()).toEqual({ session: { state: 'failed', failureReason: 'interrupted' }, photoIds: [kept.id] })
    // A second pass finds nothing more.
    expect(await sweepStrayPhotos(db, store, logger, later)).toMatchObject({ interruptedSessions: 0, strayBlobs: 0 })
  } finally {
    await close()
  }
})

test('the sweep keeps an open upload’s staged bytes however old, and deletes old staged leftovers and unfinished temporaries', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const image = pngImage(5, 5, 72)
  const open = await createUpload(org.writer, item.id, image)
  await json(await putChunk(org.writer, open.id, 0, image.subarray(0, 20)))
  const store = blobStoreFor(t.config)
  const staging = `staging/${org.tenant.id}`
  const leftovers = [`${staging}/edit-${crypto.randomUUID()}`, `${staging}/upload-${crypto.randomUUID()}`]
  for (const key of leftovers) await store.put(key, Buffer.from('left behind'))
  const temporary = await leaveTemporary(store)
  dateFilesAtNow(t.config.dataDir)
  const later = () => new Date(t.now().getTime() + LATER_MS)
  const swept = await sweepStrayPhotos(t.db, store, createLogger('silent'), later)
  expect(swept.strayStaged).toBeGreaterThanOrEqual(3)
  expect(await Promise.all([`${staging}/upload-${open.id}`, ...leftovers].map(async (key) => (await store.stat(key)) !== undefined))).toEqual([true, false, false])
  expect(await temporary.exists()).toBe(false)
  // The open upload goes on where it was.
  await json(await putChunk(org.writer, open.id, 20, image.subarray(20)))
  expect((await json<{ id: string }>(await org.writer.post(`/api/uploads/${open.id}/complete`), 201)).id).toBeDefined()
})

/**
 * What a crash leaves among the store's own temporaries: an unfinished put's file on disk; on S3,
 * a tail written by an append that died before it committed (s3-append.ts).
 */
async function leaveTemporary(store: BlobStore): Promise<{ exists(): Promise<boolean> }> {
  if (store instanceof S3BlobStore) {
    const bucket = new Bucket(store.client, store.config.bucket)
    const key = `${store.config.keyPrefix ? `${store.config.keyPrefix}/` : ''}.appends/staging/crashed/upload-${crypto.randomUUID()}/tail-${crypto.randomUUID()}`
    await bucket.putBytes(key, Buffer.from('left behind'))
    return { exists: async () => (await bucket.head(key)) !== undefined }
  }
  const tmp = path.join(t.config.dataDir, 'blobs', 'tmp')
  mkdirSync(tmp, { recursive: true })
  const file = path.join(tmp, `${crypto.randomUUID()}.part`)
  writeFileSync(file, 'left behind')
  return { exists: async () => existsSync(file) }
}
