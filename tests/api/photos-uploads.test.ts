import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { uploadSessions } from '#server/db/schema-photos'
import { withTenant } from '#server/db/tenancy'
import { createLogger } from '#server/http/logger'
import { purgeExpiredUploads } from '#server/jobs/upload-purge'
import type { Photo } from '#server/domain/photos/photos'
import type { UploadSession } from '#server/domain/uploads/engine'
import { blobStoreFor } from '#server/storage/blob-stores'
import { expectProblem } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { createUpload, cutStream, getUpload, heldStream, photosOf, pngImage, putChunk, setQuota, sha256Hex, uploadPhoto } from '#tests/helpers/photos'
import { createItem, createOrg, json } from '#tests/helpers/reporting-b'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2025-03-10T08:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

/** Whether the session's staged bytes are in the store (the data folder or the bucket). */
const staged = async (tenantId: string, sessionId: string) => (await blobStoreFor(t.config).stat(`staging/${tenantId}/upload-${sessionId}`)) !== undefined

async function leaseHeld(tenantId: string, sessionId: string): Promise<boolean> {
  const [row] = await withTenant(t.db, tenantId, (tx) => tx.select({ leaseToken: uploadSessions.leaseToken }).from(uploadSessions).where(eq(uploadSessions.id, sessionId)))
  return row?.leaseToken != null
}

test('a photo is uploaded in chunks and completed: 201 with the Photo; the session keeps who, item, size, state and times', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const image = pngImage(12, 9, 1)
  const session = await createUpload(org.writer, item.id, image, { fileName: 'north wall.png', checksum: sha256Hex(image) })
  expect(session).toMatchObject({ itemId: item.id, offset: 0, size: image.length, state: 'open', chunkSize: 8 * 1024 * 1024, expiresAtUtc: '2025-03-11T08:00:00.000Z' })

  const half = Math.floor(image.length / 2)
  const first = await putChunk(org.writer, session.id, 0, image.subarray(0, half))
  expect(first.headers.get('upload-offset')).toBe(String(half))
  expect((await json<UploadSession>(first)).offset).toBe(half)
  await json(await putChunk(org.writer, session.id, half, image.subarray(half)))

  const photo = await json<Photo>(await org.writer.post(`/api/uploads/${session.id}/complete`), 201)
  expect(photo).toMatchObject({ itemId: item.id, fileName: 'north wall.png', contentType: 'image/png', sizeBytes: image.length, sha256: sha256Hex(image), sortOrder: 0, caption: null, uploadedBy: { id: org.writer.member.user.id } })
  expect(photo.displayUrl).toMatch(new RegExp(`^/api/photos/${photo.id}/display\\?v=`))
  expect(await getUpload(org.writer, session.id)).toMatchObject({ state: 'completed', photoId: photo.id, offset: image.length, completedAtUtc: t.now().toISOString() })
  expect(await staged(org.tenant.id, session.id)).toBe(false)
  // A retry of complete after a lost response answers the same photo.
  expect((await json<Photo>(await org.writer.post(`/api/uploads/${session.id}/complete`), 200)).id).toBe(photo.id)
  expect((await photosOf(org.reader, item.id)).map((p) => p.id)).toEqual([photo.id])
})

test('a chunk at another offset than the stored one is refused with 409 and the expected offset', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const image = pngImage()
  const session = await createUpload(org.writer, item.id, image)
  const ahead = await expectProblem(await putChunk(org.writer, session.id, 10, image.subarray(10)), 409, 'KR_UPLOAD_OFFSET_MISMATCH')
  expect(ahead.expectedOffset).toBe(0)
  await json(await putChunk(org.writer, session.id, 0, image.subarray(0, 20)))
  const back = await expectProblem(await putChunk(org.writer, session.id, 0, image.subarray(0, 20)), 409, 'KR_UPLOAD_OFFSET_MISMATCH')
  expect(back.expectedOffset).toBe(20)
  expect((await getUpload(org.writer, session.id)).offset).toBe(20)
  await expectProblem(await putChunk(org.writer, session.id, -1, image), 400, 'KR_VALIDATION')
  await expectProblem(await putChunk(org.writer, session.id, 20, image.subarray(20), { 'content-type': 'image/png' }), 415, 'KR_UPLOAD_CHUNK_TYPE')
})

test('a connection cut in the middle of a chunk keeps what arrived: GET shows the real offset and the upload resumes there', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const image = pngImage(20, 20, 3)
  const session = await createUpload(org.writer, item.id, image)
  const cut = Math.floor(image.length / 3)
  const response = await putChunk(org.writer, session.id, 0, cutStream(image.subarray(0, cut)))
  expect(response.status).toBeGreaterThanOrEqual(400)
  const resumed = await getUpload(org.writer, session.id)
  expect(resumed).toMatchObject({ offset: cut, state: 'open' })
  await json(await putChunk(org.writer, session.id, resumed.offset, image.subarray(resumed.offset)))
  const photo = await json<Photo>(await org.writer.post(`/api/uploads/${session.id}/complete`), 201)
  expect(photo.sha256).toBe(sha256Hex(image))
})

test('complete refuses a checksum mismatch (422) and an unfinished upload (409 with the offset)', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const image = pngImage(5, 5, 9)
  const other = pngImage(5, 5, 10)
  const unfinished = await createUpload(org.writer, item.id, image)
  await json(await putChunk(org.writer, unfinished.id, 0, image.subarray(0, 10)))
  expect((await expectProblem(await org.writer.post(`/api/uploads/${unfinished.id}/complete`), 409, 'KR_UPLOAD_INCOMPLETE')).expectedOffset).toBe(10)

  const session = await createUpload(org.writer, item.id, image, { checksum: createHashBase64(other) })
  await json(await putChunk(org.writer, session.id, 0, image))
  await expectProblem(await org.writer.post(`/api/uploads/${session.id}/complete`), 422, 'KR_UPLOAD_CHECKSUM_MISMATCH')
  expect(await getUpload(org.writer, session.id)).toMatchObject({ state: 'failed', failureReason: 'checksum' })
  expect(await staged(org.tenant.id, session.id)).toBe(false)
  await expectProblem(await org.writer.post(`/api/items/${item.id}/uploads`, { fileName: 'a.png', size: 10, contentType: 'image/png', checksum: 'abc' }), 400, 'KR_VALIDATION')
  expect(await photosOf(org.writer, item.id)).toEqual([])
})

function createHashBase64(bytes: Uint8Array): string {
  return Buffer.from(sha256Hex(bytes), 'hex').toString('base64')
}

test('limits: a file over 50 MB, a chunk over what is left, a type that is not a photo', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const tooBig = await expectProblem(await org.writer.post(`/api/items/${item.id}/uploads`, { fileName: 'huge.jpg', size: 50 * 1024 * 1024 + 1, contentType: 'image/jpeg' }), 413, 'KR_UPLOAD_TOO_LARGE')
  expect(tooBig.maxBytes).toBe(50 * 1024 * 1024)
  await expectProblem(await org.writer.post(`/api/items/${item.id}/uploads`, { fileName: 'notes.txt', size: 10, contentType: 'text/plain' }), 415, 'KR_UPLOAD_TYPE')
  await expectProblem(await org.writer.post(`/api/items/${item.id}/uploads`, { fileName: 'x'.repeat(10), size: 10, contentType: 'image/png', pad: 'y'.repeat(20_000) }), 413, 'KR_BODY_TOO_LARGE')

  const image = pngImage()
  const session = await createUpload(org.writer, item.id, image)
  const extra = Buffer.concat([image, Buffer.from('trailing')])
  // Declared too long: refused before a byte is read.
  await expectProblem(await putChunk(org.writer, session.id, 0, extra, { 'content-length': String(extra.length) }), 413, 'KR_UPLOAD_CHUNK_TOO_LARGE')
  expect((await getUpload(org.writer, session.id)).offset).toBe(0)
  // Found too long while streaming: the bytes that fit are kept, and the problem says where it stands.
  const streamed = await expectProblem(await putChunk(org.writer, session.id, 0, extra), 413, 'KR_UPLOAD_CHUNK_TOO_LARGE')
  expect(streamed.expectedOffset).toBe(image.length)
  expect((await getUpload(org.writer, session.id)).offset).toBe(image.length)
})

test('a text file named .jpg is refused on complete with 415: the type is read from the bytes', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const text = Buffer.from('These are the minutes of the site meeting, not a photo at all.\n')
  const session = await createUpload(org.writer, item.id, text, { fileName: 'photo.jpg', contentType: 'image/jpeg' })
  await json(await putChunk(org.writer, session.id, 0, text))
  await expectProblem(await org.writer.post(`/api/uploads/${session.id}/complete`), 415, 'KR_UPLOAD_TYPE')
  expect(await getUpload(org.writer, session.id)).toMatchObject({ state: 'failed', failureReason: 'type' })
  expect(await staged(org.tenant.id, session.id)).toBe(false)
  expect(await photosOf(org.writer, item.id)).toEqual([])
})

test('an expired session answers 410, and the purge job deletes its staged bytes', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const image = pngImage()
  const session = await createUpload(org.writer, item.id, image)
  await json(await putChunk(org.writer, session.id, 0, image.subarray(0, 16)))
  expect(await staged(org.tenant.id, session.id)).toBe(true)
  const expiry = new Date(session.expiresAtUtc).getTime()
  expect(expiry - t.now().getTime()).toBe(24 * 60 * 60_000)
  // The day passes for the upload (the sign-in session would not last that long).
  await withTenant(t.db, org.tenant.id, (tx) => tx.update(uploadSessions).set({ expiresAt: t.now() }).where(eq(uploadSessions.id, session.id)))
  expect((await getUpload(org.writer, session.id)).state).toBe('expired')
  await expectProblem(await putChunk(org.writer, session.id, 16, image.subarray(16)), 410, 'KR_UPLOAD_EXPIRED')
  await expectProblem(await org.writer.post(`/api/uploads/${session.id}/complete`), 410, 'KR_UPLOAD_EXPIRED')
  expect(await purgeExpiredUploads(t.db, blobStoreFor(t.config), createLogger('silent'), t.now)).toBeGreaterThanOrEqual(1)
  expect(await staged(org.tenant.id, session.id)).toBe(false)
  expect(await getUpload(org.writer, session.id)).toMatchObject({ state: 'expired', offset: 16 })
})

test('two uploads at once to the same item both complete, in the order they were completed', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const a = pngImage(10, 10, 21)
  const b = pngImage(11, 7, 22)
  const [sa, sb] = await Promise.all([createUpload(org.writer, item.id, a), createUpload(org.other, item.id, b)])
  if (!sa || !sb) throw new Error('no sessions')
  await Promise.all([putChunk(org.writer, sa.id, 0, a.subarray(0, 30)), putChunk(org.other, sb.id, 0, b.subarray(0, 30))])
  await Promise.all([putChunk(org.writer, sa.id, 30, a.subarray(30)), putChunk(org.other, sb.id, 30, b.subarray(30))])
  const pa = await json<Photo>(await org.writer.post(`/api/uploads/${sa.id}/complete`), 201)
  const pb = await json<Photo>(await org.other.post(`/api/uploads/${sb.id}/complete`), 201)
  expect([pa.sha256, pb.sha256]).toEqual([sha256Hex(a), sha256Hex(b)])
  expect((await photosOf(org.reader, item.id)).map((p) => [p.id, p.sortOrder])).toEqual([
    [pa.id, 0],
    [pb.id, 1],
  ])
  // Two chunks for the same offset of one session at once: one is stored, the other refused.
  const c = pngImage(6, 6, 23)
  const sc = await createUpload(org.writer, item.id, c)
  const results = await Promise.all([putChunk(org.writer, sc.id, 0, c), putChunk(org.writer, sc.id, 0, c)])
  expect(results.map((r) => r.status).sort()).toEqual([200, 409])
  expect((await getUpload(org.writer, sc.id)).offset).toBe(c.length)
})

test('DELETE aborts the upload, during a chunk too: 204, the staged bytes gone, no more chunks', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const image = pngImage(16, 16, 5)
  const session = await createUpload(org.writer, item.id, image)
  const held = heldStream(image.subarray(0, 40), image.subarray(40))
  const pending = putChunk(org.writer, session.id, 0, held.stream)
  // The chunk streams once it holds the lease. On disk its first bytes show at once; S3 keeps them until the chunk ends.
  for (let i = 0; i < 200 && !(await leaseHeld(org.tenant.id, session.id)); i++) await new Promise((resolve) => setImmediate(resolve))
  expect(await leaseHeld(org.tenant.id, session.id)).toBe(true)
  if (t.config.blobs.store === 'file') {
    for (let i = 0; i < 200 && (await getUpload(org.writer, session.id)).offset === 0; i++) await new Promise((resolve) => setImmediate(resolve))
    expect((await getUpload(org.writer, session.id)).offset).toBe(40)
  }

  expect((await org.writer.delete(`/api/uploads/${session.id}`)).status).toBe(204)
  held.release()
  await expectProblem(await pending, 409, 'KR_UPLOAD_STATE')
  expect(await staged(org.tenant.id, session.id)).toBe(false)
  expect((await getUpload(org.writer, session.id)).state).toBe('aborted')
  await expectProblem(await putChunk(org.writer, session.id, 40, image.subarray(40)), 409, 'KR_UPLOAD_STATE')
  await expectProblem(await org.writer.post(`/api/uploads/${session.id}/complete`), 409, 'KR_UPLOAD_STATE')
})

test('the tenant quota counts photos, edits and open uploads: past it, 413 KR_QUOTA_EXCEEDED', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const image = pngImage(8, 8, 30)
  await setQuota(t, org.tenant.id, image.length * 2 + 10)
  await uploadPhoto(org.writer, item.id, image)
  const open = await createUpload(org.writer, item.id, image)
  const full = await expectProblem(await org.writer.post(`/api/items/${item.id}/uploads`, { fileName: 'more.png', size: 20, contentType: 'image/png' }), 413, 'KR_QUOTA_EXCEEDED')
  expect(full).toMatchObject({ quotaBytes: image.length * 2 + 10, requestedBytes: 20 })
  // Aborting frees what the open upload held.
  expect((await org.writer.delete(`/api/uploads/${open.id}`)).status).toBe(204)
  await createUpload(org.writer, item.id, image)
})

test('sessions are their creator’s: another member’s or another tenant’s session id answers 404', async () => {
  const org = await createOrg(t)
  const stranger = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const image = pngImage()
  const session = await createUpload(org.writer, item.id, image)
  for (const c of [stranger.admin, org.other]) {
    await expectProblem(await c.get(`/api/uploads/${session.id}`), 404, 'KR_NOT_FOUND')
    await expectProblem(await putChunk(c, session.id, 0, image), 404, 'KR_NOT_FOUND')
    await expectProblem(await c.post(`/api/uploads/${session.id}/complete`), 404, 'KR_NOT_FOUND')
    await expectProblem(await c.delete(`/api/uploads/${session.id}`), 404, 'KR_NOT_FOUND')
  }
  await expectProblem(await stranger.admin.post(`/api/items/${item.id}/uploads`, { fileName: 'a.png', size: 10, contentType: 'image/png' }), 404, 'KR_NOT_FOUND')
  await expectProblem(await org.writer.get('/api/uploads/not-a-uuid'), 404, 'KR_NOT_FOUND')
  await expectProblem(await org.reader.post(`/api/items/${item.id}/uploads`, { fileName: 'a.png', size: 10, contentType: 'image/png' }), 403, 'KR_FORBIDDEN')
  expect((await getUpload(org.writer, session.id)).offset).toBe(0)
})
