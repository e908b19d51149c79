import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { expectProblem } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { pngImage, sha256Hex, uploadPhoto } from '#tests/helpers/photos'
import { createItem, createOrg } from '#tests/helpers/reporting-b'
import { startS3, type TestS3 } from '#tests/helpers/s3'

/**
 * Presigned downloads (docs/operations.md "File storage"): with S3 and S3_PRESIGN_MIN_BYTES, a whole
 * download of a large enough file is answered with a redirect to a short-lived presigned URL, after
 * the permission check; HEAD, conditional and ranged requests, and files shown inline, stay ours.
 * On an S3 server of this file's own, whatever TEST_BLOB_STORE says.
 */

let s3: TestS3
let t: TestBackend

beforeAll(async () => {
  s3 = await startS3()
  vi.stubEnv('AWS_ACCESS_KEY_ID', s3.env.AWS_ACCESS_KEY_ID)
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', s3.env.AWS_SECRET_ACCESS_KEY)
  t = await createTestBackend({ env: { ...s3.env, S3_KEY_PREFIX: 'presigned', S3_PRESIGN_MIN_BYTES: '100', S3_PRESIGN_TTL_SECONDS: '30' } })
})

afterAll(async () => {
  await t?.close()
  await s3?.stop()
  // The API files share their worker's modules and environment (vitest.config.ts).
  vi.unstubAllEnvs()
})

test('a large original is a redirect to the bucket, after the permission check; HEAD, 304, ranges and inline renditions are served by the portal', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const image = pngImage(30, 20, 7)
  expect(image.length).toBeGreaterThanOrEqual(100)
  const photo = await uploadPhoto(org.writer, item.id, image, { fileName: 'north wall.png' })

  await expectProblem(await org.reader.get(`/api/photos/${photo.id}/original`), 403, 'KR_FORBIDDEN')
  const redirect = await org.other.get(`/api/photos/${photo.id}/original`)
  expect(redirect.status).toBe(302)
  expect(redirect.headers.get('cache-control')).toBe('private, no-store')
  const location = redirect.headers.get('location') ?? ''
  expect(location.startsWith(`${s3.endpoint}/${s3.bucket}/presigned/${org.tenant.id}/photos/${photo.id}/original.`)).toBe(true)
  expect(location).toMatch(/X-Amz-Expires=30&/)
  const fromBucket = await fetch(location)
  expect(fromBucket.status).toBe(200)
  expect(fromBucket.headers.get('content-type')).toBe('image/png')
  expect(fromBucket.headers.get('content-disposition')).toBe(`attachment; filename*=UTF-8''north%20wall.png`)
  expect(fromBucket.headers.get('cache-control')).toBe('private, no-cache')
  expect(sha256Hex(Buffer.from(await fromBucket.arrayBuffer()))).toBe(sha256Hex(image))

  const etag = `"${sha256Hex(image)}"`
  const head = await org.other.request(`/api/photos/${photo.id}/original`, { method: 'HEAD' })
  expect([head.status, head.headers.get('etag'), head.headers.get('content-length')]).toEqual([200, etag, String(image.length)])
  expect((await org.other.get(`/api/photos/${photo.id}/original`, { headers: { 'if-none-match': etag } })).status).toBe(304)
  const ranged = await org.other.get(`/api/photos/${photo.id}/original`, { headers: { range: 'bytes=0-9' } })
  expect(ranged.status).toBe(206)
  expect(Buffer.from(await ranged.arrayBuffer()).equals(image.subarray(0, 10))).toBe(true)

  // Shown in the portal's pages (whose CSP admits only its own origin): never redirected.
  const display = await org.reader.get(`/api/photos/${photo.id}/display`)
  expect(display.status).toBe(200)
  expect((await display.arrayBuffer()).byteLength).toBeGreaterThanOrEqual(100)
})
