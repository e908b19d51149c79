import { createHash } from 'node:crypto'
import { deflateSync } from 'node:zlib'
import { eq } from 'drizzle-orm'
import { tenants } from '#server/db/schema'
import type { Photo } from '#server/domain/photos/photos'
import type { UploadSession } from '#server/domain/uploads/engine'
import type { TestBackend } from './backend'
import type { TestClient } from './auth'
import { json } from './reporting-b'

/**
 * Test data for the photo API tests: real tiny PNG images made by a minimal encoder, and the
 * upload calls (session, chunks, complete) a client makes.
 */

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff
  for (const b of bytes) c = (CRC_TABLE[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

function chunk(type: string, data: Uint8Array): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data])
  const out = Buffer.alloc(12 + data.length)
  out.writeUInt32BE(data.length, 0)
  body.copy(out, 4)
  out.writeUInt32BE(crc32(body), 8 + data.length)
  return out
}

/** A real RGB PNG of `width` × `height` with a gradient seeded by `seed`, so each image differs. */
export function pngImage(width = 8, height = 6, seed = 0): Buffer {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8 // bit depth
  header[9] = 2 // truecolour
  const rows: number[] = []
  for (let y = 0; y < height; y++) {
    rows.push(0)
    for (let x = 0; x < width; x++) rows.push((x * 30 + seed) & 0xff, (y * 40 + seed * 7) & 0xff, (x * y + seed * 13) & 0xff)
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from(rows))),
    chunk('IEND', new Uint8Array()),
  ])
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

export async function createUpload(c: TestClient, itemId: string, bytes: Uint8Array, body: Record<string, unknown> = {}): Promise<UploadSession> {
  return json<UploadSession>(await c.post(`/api/items/${itemId}/uploads`, { fileName: 'site.png', size: bytes.length, contentType: 'image/png', ...body }), 201)
}

export function putChunk(c: TestClient, sessionId: string, offset: number, body: Uint8Array | ReadableStream<Uint8Array>, headers: Record<string, string> = {}): Promise<Response> {
  return c.request(`/api/uploads/${sessionId}/chunk?offset=${offset}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream', ...headers },
    body: body as BodyInit,
    ...(body instanceof ReadableStream && { duplex: 'half' }),
  } as RequestInit)
}

export async function getUpload(c: TestClient, sessionId: string): Promise<UploadSession> {
  return json<UploadSession>(await c.get(`/api/uploads/${sessionId}`))
}

/** Uploads `bytes` as a photo of the item in chunks of `chunkSize`, and completes it. */
export async function uploadPhoto(c: TestClient, itemId: string, bytes: Uint8Array, options: { fileName?: string; chunkSize?: number } = {}): Promise<Photo> {
  const session = await createUpload(c, itemId, bytes, { fileName: options.fileName ?? 'site.png' })
  const step = options.chunkSize ?? bytes.length
  for (let offset = 0; offset < bytes.length; offset += step) {
    await json<UploadSession>(await putChunk(c, session.id, offset, bytes.subarray(offset, offset + step)))
  }
  return json<Photo>(await c.post(`/api/uploads/${session.id}/complete`), 201)
}

export async function photosOf(c: TestClient, itemId: string): Promise<Photo[]> {
  return (await json<{ items: Photo[] }>(await c.get(`/api/items/${itemId}/photos`))).items
}

export async function setQuota(t: TestBackend, tenantId: string, bytes: number): Promise<void> {
  await t.db.update(tenants).set({ storageQuotaBytes: bytes }).where(eq(tenants.id, tenantId))
}

/** A body that sends `first`, then fails as a cut connection does. */
export function cutStream(first: Uint8Array): ReadableStream<Uint8Array> {
  let sent = false
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sent) {
        sent = true
        controller.enqueue(first)
        return
      }
      controller.error(new Error('connection lost'))
    },
  })
}

/** A body that sends `first`, then waits for `release()` to send `rest` and end. */
export function heldStream(first: Uint8Array, rest: Uint8Array): { stream: ReadableStream<Uint8Array>; release(): void } {
  let release = () => {}
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  let step = 0
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      step++
      if (step === 1) controller.enqueue(first)
      else if (step === 2) {
        await gate
        controller.enqueue(rest)
      } else controller.close()
    },
  })
  return { stream, release }
}
