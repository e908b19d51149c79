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
import { blobStoreFor } from '#server/storage/blob-store'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { createUpload, pngImage, putChunk, uploadPhoto } from '#tests/helpers/photos'
import { createItem, createOrg, json } from '#tests/helpers/reporting-b'

/**
 * A crash between moving the upload into place and inserting the photo row: a child process runs
 * complete with SP_TEST_CRASH_AT=photo-complete:after-move and is SIGKILLed there; then the sweep
 * (as at the next start) must leave no file without a row and no session stuck in `completing`.
 * On PGlite, which one process owns, the child works on a copy of the data folder (database dump
 * and blobs) and the test reopens that copy after the kill; on PostgreSQL the child shares the
 * database and the data folder.
 */

let t: TestBackend
const scratch: string[] = []

beforeAll(async () => {
  t = await createTestBackend({ now: '2025-03-10T08:00:00.000Z' })
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
  if (t.driver === 'postgres') {
    childEnv.CHILD_DATA_DIR = dataDir
    childEnv.CHILD_DATABASE_URL = t.config.databaseUrl ?? ''
  } else {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-crash-'))
    scratch.push(dataDir)
    const dump = await (t.db as unknown as { $client: PGlite }).$client.dumpDataDir('none')
    cpSync(path.join(t.config.dataDir, 'blobs'), path.join(dataDir, 'blobs'), { recursive: true })
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
    const tenantDir = path.join(dataDir, 'blobs', 'objects', org.tenant.id, 'photos')
    const keptFiles = filesUnder(path.join(tenantDir, kept.id))
    expect(keptFiles.length).toBe(3)
    // The crash left the original moved into place, no row, and the session claimed.
    const stray = filesUnder(tenantDir).filter((f) => !f.includes(kept.id))
    expect(stray.map((f) => path.basename(f).split('.')[0])).toEqual(['original'])
    const rowsOf = () =>
      withTenant(db, org.tenant.id, async (tx) => ({
        session: (await tx.select({ state: uploadSessions.state, failureReason: uploadSessions.failureReason }).from(uploadSessions).where(and(eq(uploadSessions.tenantId, org.tenant.id), eq(uploadSessions.id, session.id))))[0],
        photoIds: (await tx.select({ id: photos.id }).from(photos).where(and(eq(photos.tenantId, org.tenant.id), eq(photos.itemId, item.id)))).map((p) => p.id),
      }))
    expect(await rowsOf()).toEqual({ session: { state: 'completing', failureReason: null }, photoIds: [kept.id] })

    // One clock for rows and files: the files are dated at the test clock's now, as if the crash were then.
    for (const file of [...filesUnder(tenantDir), ...filesUnder(path.join(dataDir, 'blobs', 'staging'))]) utimesSync(file, t.now(), t.now())
    const store = blobStoreFor({ dataDir })
    const logger = createLogger('silent')
    // Within the hour, a complete may still be under way: nothing is touched.
    const soon = await sweepStrayPhotos(db, store, logger, () => new Date(t.now().getTime() + 60_000))
    expect(soon).toMatchObject({ interruptedSessions: 0, strayBlobs: 0 })
    expect(filesUnder(tenantDir).filter((f) => !f.includes(kept.id)).length).toBe(1)

    // An hour on (at the next start, or the next pass of the timer).
    const later = () => new Date(t.now().getTime() + STRAY_AGE_MS + 60_000)
    const swept = await sweepStrayPhotos(db, store, logger, later)
    expect(swept).toMatchObject({ interruptedSessions: 1, strayBlobs: 1 })
    expect(filesUnder(tenantDir).filter((f) => !f.includes(kept.id))).toEqual([])
    expect(filesUnder(path.join(tenantDir, kept.id))).toEqual(keptFiles)
    expect(filesUnder(path.join(dataDir, 'blobs', 'staging', org.tenant.id)).filter((f) => f.includes(session.id))).toEqual([])
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
  const blobs = path.join(t.config.dataDir, 'blobs')
  const staging = path.join(blobs, 'staging', org.tenant.id)
  const leftovers = [path.join(staging, `edit-${crypto.randomUUID()}`), path.join(staging, `upload-${crypto.randomUUID()}`), path.join(blobs, 'tmp', `${crypto.randomUUID()}.part`)]
  mkdirSync(path.join(blobs, 'tmp'), { recursive: true })
  for (const file of leftovers) writeFileSync(file, 'left behind')
  const files = [path.join(staging, `upload-${open.id}`), ...leftovers]
  for (const file of files) utimesSync(file, t.now(), t.now())
  const later = () => new Date(t.now().getTime() + STRAY_AGE_MS + 60_000)
  const swept = await sweepStrayPhotos(t.db, blobStoreFor(t.config), createLogger('silent'), later)
  expect(swept.strayStaged).toBeGreaterThanOrEqual(3)
  expect(files.map((f) => existsSync(f))).toEqual([true, false, false, false])
  // The open upload goes on where it was.
  await json(await putChunk(org.writer, open.id, 20, image.subarray(20)))
  expect((await json<{ id: string }>(await org.writer.post(`/api/uploads/${open.id}/complete`), 201)).id).toBeDefined()
})
