import { fileURLToPath } from 'node:url'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createBackend } from '#server/api/app'
import { openDatabase, type DatabaseHandle } from '#server/db/client'
import { uploadSessions } from '#server/db/schema-photos'
import { withTenant } from '#server/db/tenancy'
import type { Photo } from '#server/domain/photos/photos'
import { LEASE_MS } from '#server/domain/uploads/chunks'
import { createLogger } from '#server/http/logger'
import { client, CSRF_COOKIE, expectProblem, SESSION_COOKIE, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, TEST_ORIGIN, TEST_REMOTE_ADDRESS, type TestBackend } from '#tests/helpers/backend'
import { createUpload, getUpload, heldStream, pngImage, putChunk, sha256Hex } from '#tests/helpers/photos'
import { createItem, createOrg, json } from '#tests/helpers/reporting-b'

/**
 * The one-writer-per-upload guard holds across instances: two backends on one database (on
 * PostgreSQL, two connection pools to one database, as two servers would have; on PGlite, which
 * one process owns, two backends on its one handle), sharing the data folder's blob store.
 */

let t: TestBackend
let second: TestBackend
let secondHandle: DatabaseHandle | undefined

beforeAll(async () => {
  t = await createTestBackend({ now: '2025-03-10T08:00:00.000Z' })
  let db = t.db
  if (t.config.databaseUrl) {
    secondHandle = await openDatabase({ dataDir: t.config.dataDir, databaseUrl: t.config.databaseUrl, migrationsFolder: fileURLToPath(new URL('../../server/db/migrations', import.meta.url)) })
    db = secondHandle.db
  }
  const backend = createBackend({ config: t.config, db, logger: createLogger('silent'), now: t.now })
  second = {
    ...t,
    db,
    backend,
    fetch(requestPath, init = {}) {
      const { remoteAddress = TEST_REMOTE_ADDRESS, ...requestInit } = init
      return backend.fetch(new Request(new URL(requestPath, TEST_ORIGIN), requestInit), { remoteAddress })
    },
  }
})

afterAll(async () => {
  await secondHandle?.close()
  await t?.close()
})

/** The same signed-in member, talking to the second instance. */
function onSecond(c: TestClient): TestClient {
  const other = client(second)
  other.jar.set(SESSION_COOKIE, c.jar.get(SESSION_COOKIE) ?? '')
  other.jar.set(CSRF_COOKIE, c.jar.get(CSRF_COOKIE) ?? '')
  return other
}

test('the two instances really are two: separate backends, and on PostgreSQL separate connection pools', () => {
  expect(second.backend).not.toBe(t.backend)
  if (t.driver === 'postgres') expect(second.db).not.toBe(t.db)
})

test('while one instance streams a chunk, the other refuses a chunk and complete for that upload (409 KR_UPLOAD_BUSY); after it, both work', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const writerB = onSecond(org.writer)
  const image = pngImage(16, 16, 61)
  const session = await createUpload(org.writer, item.id, image)
  const held = heldStream(image.subarray(0, 40), image.subarray(40, 80))
  const pending = putChunk(org.writer, session.id, 0, held.stream)
  // The chunk streams on instance A once it holds the lease (and no transaction is open: B can read).
  const leaseHeld = async () => {
    const [row] = await withTenant(t.db, org.tenant.id, (tx) => tx.select({ leaseToken: uploadSessions.leaseToken }).from(uploadSessions).where(eq(uploadSessions.id, session.id)))
    return row?.leaseToken != null
  }
  for (let i = 0; i < 200 && !(await leaseHeld()); i++) await new Promise((resolve) => setImmediate(resolve))
  expect(await leaseHeld()).toBe(true)
  // On disk the first bytes show at once; S3 keeps a chunk's bytes until it ends.
  const stored = t.config.blobs.store === 'file' ? 40 : 0
  for (let i = 0; i < 200 && (await getUpload(writerB, session.id)).offset !== stored; i++) await new Promise((resolve) => setImmediate(resolve))
  expect((await getUpload(writerB, session.id)).offset).toBe(stored)

  for (const offset of [0, 40]) {
    const refused = await expectProblem(await putChunk(writerB, session.id, offset, image.subarray(offset)), 409, 'KR_UPLOAD_BUSY')
    expect(refused.expectedOffset).toBe(stored)
  }
  await expectProblem(await writerB.post(`/api/uploads/${session.id}/complete`), 409, 'KR_UPLOAD_BUSY')

  held.release()
  expect((await json<{ offset: number }>(await pending)).offset).toBe(80)
  // Released: the other instance takes the next chunk and completes the upload.
  await json(await putChunk(writerB, session.id, 80, image.subarray(80)))
  const photo = await json<Photo>(await writerB.post(`/api/uploads/${session.id}/complete`), 201)
  expect(photo.sha256).toBe(sha256Hex(image))
  const [row] = await withTenant(t.db, org.tenant.id, (tx) => tx.select({ leaseToken: uploadSessions.leaseToken }).from(uploadSessions).where(eq(uploadSessions.id, session.id)))
  expect(row?.leaseToken).toBeNull()
})

test('a lease left by a writer that died holds until it expires, then the next chunk takes it over', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const writerB = onSecond(org.writer)
  const image = pngImage(6, 6, 62)
  const session = await createUpload(org.writer, item.id, image)
  await withTenant(t.db, org.tenant.id, (tx) =>
    tx
      .update(uploadSessions)
      .set({ leaseToken: crypto.randomUUID(), leaseExpiresAt: new Date(t.now().getTime() + LEASE_MS) })
      .where(and(eq(uploadSessions.tenantId, org.tenant.id), eq(uploadSessions.id, session.id))),
  )
  await expectProblem(await putChunk(writerB, session.id, 0, image), 409, 'KR_UPLOAD_BUSY')
  t.now.advance(LEASE_MS)
  await json(await putChunk(writerB, session.id, 0, image))
  expect((await getUpload(org.writer, session.id)).offset).toBe(image.length)
  t.now.reset()
})
