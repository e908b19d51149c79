import { createHash, randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AppendError, BlobOffsetError, FileBlobStore, hashBlob, type BlobStore } from '#server/storage/blob-store'
import { MIN_PART_BYTES } from '#server/storage/s3-append'
import { Bucket } from '#server/storage/s3-bucket'
import { S3BlobStore, type S3BlobsConfig } from '#server/storage/s3-blob-store'
import { startS3, type TestS3 } from '#tests/helpers/s3'

/**
 * One suite, both stores (docs/operations.md "File storage"): the file store in a temporary folder,
 * the S3 store on a real S3-compatible server (s3rver). Each test works under a place of its own (a
 * folder, a key prefix); two store objects on one place stand for two instances of the portal.
 */
let s3: TestS3
let dir: string

beforeAll(async () => {
  s3 = await startS3()
  // The SDK's standard credential chain reads the environment.
  process.env.AWS_ACCESS_KEY_ID = s3.env.AWS_ACCESS_KEY_ID
  process.env.AWS_SECRET_ACCESS_KEY = s3.env.AWS_SECRET_ACCESS_KEY
  dir = await mkdtemp(path.join(os.tmpdir(), 'sp-blob-store-'))
})

afterAll(async () => {
  await s3?.stop()
  if (dir) await rm(dir, { recursive: true, force: true })
})

const MiB = 1024 * 1024
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

function s3Config(place: string, overrides: Partial<S3BlobsConfig> = {}): S3BlobsConfig {
  return { store: 's3', endpoint: s3.endpoint, bucket: s3.bucket, region: 'us-east-1', forcePathStyle: true, keyPrefix: place, presignMinBytes: 0, presignTtlSeconds: 60, ...overrides }
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** The bytes in pieces of at most `piece`, as a request body arrives. */
async function* body(bytes: Uint8Array, piece = 64 * 1024): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += piece) yield bytes.subarray(at, at + piece)
}

async function* failingAfter(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield* body(bytes)
  throw new Error('connection reset')
}

describe.each(['file', 's3'] as const)('the %s store', (kind) => {
  let places = 0
  /** Stores on one fresh place; call the result again for another instance's store on the same place. */
  function freshPlace(): (() => BlobStore) & { prefix: string } {
    const prefix = `p${++places}-${randomBytes(3).toString('hex')}`
    return Object.assign(() => (kind === 'file' ? new FileBlobStore(path.join(dir, prefix)) : new S3BlobStore(s3Config(prefix))), { prefix })
  }

  test('put answers size and hash; stat, whole and ranged reads, hashBlob, delete', async () => {
    const store = freshPlace()()
    const bytes = randomBytes(300_000)
    expect(await store.put('t1/photos/a/original', bytes)).toEqual({ size: bytes.length, sha256: sha256(bytes) })
    // A stream past S3's 5 MiB part: a multipart upload there.
    const big = randomBytes(6 * MiB + 123)
    expect(await store.put('t1/photos/b/original', Readable.from(body(big)))).toEqual({ size: big.length, sha256: sha256(big) })

    expect(await store.stat('t1/photos/a/original')).toEqual({ size: bytes.length })
    expect(await store.stat('t1/photos/missing')).toBeUndefined()
    expect((await readAll(store.read('t1/photos/a/original'))).equals(bytes)).toBe(true)
    expect((await readAll(store.read('t1/photos/a/original', { start: 10, end: 19 }))).equals(bytes.subarray(10, 20))).toBe(true)
    expect((await readAll(store.read('t1/photos/b/original', { start: 5 * MiB, end: big.length - 1 }))).equals(big.subarray(5 * MiB))).toBe(true)
    const hashed = await hashBlob(store, 't1/photos/b/original')
    expect(hashed.size).toBe(big.length)
    expect(hashed.sha256).toBe(sha256(big))
    expect(Buffer.from(hashed.head).equals(big.subarray(0, 64))).toBe(true)
    await expect(readAll(store.read('t1/photos/missing'))).rejects.toMatchObject({ code: 'ENOENT' })

    // Replacing, then deleting; deleting what is not there is fine.
    await store.put('t1/photos/a/original', Buffer.from('new'))
    expect((await readAll(store.read('t1/photos/a/original'))).toString()).toBe('new')
    await store.delete('t1/photos/a/original')
    await store.delete('t1/photos/a/original')
    expect(await store.stat('t1/photos/a/original')).toBeUndefined()
  })

  test('move, list and withLocalFile', async () => {
    const store = freshPlace()()
    await store.put('staging/t1/upload-1', Buffer.from('staged bytes'))
    await store.put('t1/photos/p1/thumbnail', Buffer.from('thumb'))
    await store.put('t2/photos/p2/thumbnail', Buffer.from('other tenant'))
    await store.move('staging/t1/upload-1', 't1/photos/p1/original')
    expect(await store.stat('staging/t1/upload-1')).toBeUndefined()

    const listed = await store.list('t1/photos')
    expect(listed.map((e) => [e.key, e.size]).sort()).toEqual([
      ['t1/photos/p1/original', 12],
      ['t1/photos/p1/thumbnail', 5],
    ])
    expect(listed.every((e) => e.modifiedAt instanceof Date)).toBe(true)
    expect(await store.list('t3/photos')).toEqual([])

    // And back (a rollback puts a served blob back in staging).
    await store.move('t1/photos/p1/original', 'staging/t1/upload-1')
    const seen = await store.withLocalFile('staging/t1/upload-1', async (file) => ({ file, text: await readFile(file, 'utf8') }))
    expect(seen.text).toBe('staged bytes')
    // The S3 store's download is temporary; the file store hands out the blob itself.
    expect(existsSync(seen.file)).toBe(kind === 'file')
  })

  test('appends in small and odd chunks, alternating between two instances, read back whole; completion via read', async () => {
    const place = freshPlace()
    const instances = [place(), place()]
    const key = 'staging/t1/upload-big'
    // Past 10 MiB in all: several S3 parts, tails carried between appends, one full 8 MiB chunk.
    const sizes = [MiB, MiB, 333_333, MiB + 7, 8 * MiB, 777_777, 2 * MiB + 1, 1]
    const whole = randomBytes(sizes.reduce((a, b) => a + b, 0))
    let offset = 0
    for (const [i, size] of sizes.entries()) {
      const store = instances[i % 2]!
      const chunk = whole.subarray(offset, offset + size)
      expect(await store.append(key, body(chunk, i % 3 === 0 ? 64 * 1024 : 100_003), offset, 8 * MiB)).toEqual({ size: offset + size })
      offset += size
      expect(await instances[(i + 1) % 2]!.stat(key)).toEqual({ size: offset })
    }
    if (kind === 's3') {
      // S3 refuses to complete with a part under 5 MiB but the last; s3rver does not check, so we do.
      const state = JSON.parse((await new Bucket((instances[0] as S3BlobStore).client, s3.bucket).getBytes(`${place.prefix}/.appends/${key}/state`))!.toString()) as {
        parts: Array<{ size: number }>
        tail?: { size: number }
      }
      expect(state.parts.length).toBeGreaterThan(1)
      expect(state.parts.every((part) => part.size >= MIN_PART_BYTES)).toBe(true)
      expect(state.tail?.size ?? 0).toBeLessThan(MIN_PART_BYTES)
    }
    expect((await instances[0]!.list('staging/t1')).map((e) => [e.key, e.size])).toEqual([[key, whole.length]])

    // The first read completes it; both instances then see one plain blob.
    expect((await readAll(instances[1]!.read(key, { start: 0, end: 63 }))).equals(whole.subarray(0, 64))).toBe(true)
    expect((await hashBlob(instances[0]!, key)).sha256).toBe(sha256(whole))
    expect(await instances[0]!.stat(key)).toEqual({ size: whole.length })
    expect((await instances[1]!.list('staging/t1')).map((e) => [e.key, e.size])).toEqual([[key, whole.length]])
    await instances[0]!.move(key, 't1/revisions/r1/file')
    expect((await readAll(instances[1]!.read('t1/revisions/r1/file'))).equals(whole)).toBe(true)
  })

  test('a small upload completes by move, and an empty append still makes the blob', async () => {
    const store = freshPlace()()
    expect(await store.append('staging/t1/upload-empty', body(new Uint8Array()), 0, 10)).toEqual({ size: 0 })
    expect(await store.stat('staging/t1/upload-empty')).toEqual({ size: 0 })
    await store.append('staging/t1/upload-small', body(Buffer.from('hello ')), 0, 100)
    await store.append('staging/t1/upload-small', body(Buffer.from('world')), 6, 100)
    await store.move('staging/t1/upload-small', 't1/support/a1/file')
    expect((await readAll(store.read('t1/support/a1/file'))).toString()).toBe('hello world')
    expect(await store.stat('staging/t1/upload-small')).toBeUndefined()
    expect(await store.list('staging/t1')).toEqual([expect.objectContaining({ key: 'staging/t1/upload-empty', size: 0 })])
  })

  test('the wrong offset is refused with the stored size; more than allowed keeps the allowed bytes', async () => {
    const store = freshPlace()()
    const key = 'staging/t1/upload-limits'
    await store.append(key, body(Buffer.from('0123456789')), 0, 100)
    const wrong = await store.append(key, body(Buffer.from('x')), 4, 100).catch((error: unknown) => error)
    expect(wrong).toBeInstanceOf(BlobOffsetError)
    expect((wrong as BlobOffsetError).storedSize).toBe(10)

    const tooLarge = await store.append(key, body(Buffer.from('abcdefghij'), 3), 10, 4).catch((error: unknown) => error)
    expect(tooLarge).toBeInstanceOf(AppendError)
    expect(tooLarge).toMatchObject({ reason: 'too-large', storedSize: 14 })
    expect(await store.stat(key)).toEqual({ size: 14 })
    expect((await readAll(store.read(key))).toString()).toBe('0123456789abcd')
  })

  test('a stream that fails half-way reports what is stored, and the upload resumes from there on another instance', async () => {
    const place = freshPlace()
    const [first, second] = [place(), place()]
    const key = 'staging/t1/upload-resume'
    const whole = randomBytes(7 * MiB)
    await first.append(key, body(whole.subarray(0, 3 * MiB)), 0, 8 * MiB)
    const failed = await first.append(key, failingAfter(whole.subarray(3 * MiB, 4 * MiB)), 3 * MiB, 8 * MiB).catch((error: unknown) => error)
    expect(failed).toBeInstanceOf(AppendError)
    expect((failed as AppendError).reason).toBe('stream')
    // What arrived before the failure is kept.
    const stored = (failed as AppendError).storedSize
    expect(stored).toBe(4 * MiB)
    expect(await second.stat(key)).toEqual({ size: stored })

    await second.append(key, body(whole.subarray(stored)), stored, 8 * MiB)
    expect((await hashBlob(first, key)).sha256).toBe(sha256(whole))
  })

  test('delete drops an upload in progress', async () => {
    const store = freshPlace()()
    const key = 'staging/t1/upload-dropped'
    await store.append(key, body(randomBytes(6 * MiB)), 0, 8 * MiB)
    await store.append(key, body(randomBytes(1000)), 6 * MiB, 8 * MiB)
    await store.delete(key)
    expect(await store.stat(key)).toBeUndefined()
    expect(await store.list('staging/t1')).toEqual([])
    // The key starts afresh.
    expect(await store.append(key, body(Buffer.from('again')), 0, 10)).toEqual({ size: 5 })
    expect((await readAll(store.read(key))).toString()).toBe('again')
  })

  test('check passes on a working store', async () => {
    await expect(freshPlace()().check()).resolves.toBeUndefined()
  })
})

describe('what only one store has', () => {
  test('the file store purges its temporary files older than the cut-off, and fails its check when it cannot write', async () => {
    const root = path.join(dir, 'file-purge')
    const store = new FileBlobStore(root)
    await mkdir(path.join(root, 'tmp'), { recursive: true })
    await writeFile(path.join(root, 'tmp', 'left-by-a-crash.part'), 'partial')
    expect(await store.purgeTemporary(new Date(0))).toBe(0)
    expect(await store.purgeTemporary(new Date(Date.now() + 60_000))).toBe(1)
    expect(existsSync(path.join(root, 'tmp', 'left-by-a-crash.part'))).toBe(false)

    await rm(path.join(root, 'tmp'), { recursive: true })
    await writeFile(path.join(root, 'tmp'), 'not a folder')
    await expect(store.check()).rejects.toThrow()
  })

  test('the S3 store purges tails no append names, never an open append; its check fails on a missing bucket', async () => {
    const store = new S3BlobStore(s3Config('s3-purge'))
    const key = 'staging/t1/upload-open'
    await store.append(key, body(Buffer.from('pending')), 0, 100)
    // What a crash between writing a tail and committing the state leaves.
    const bucket = new Bucket(store.client, s3.bucket)
    await bucket.putBytes(`s3-purge/.appends/${key}/tail-left-by-a-crash`, Buffer.from('lost'))
    await bucket.putBytes('s3-purge/.appends/staging/t1/upload-gone/tail-orphan', Buffer.from('lost'))

    expect(await store.purgeTemporary(new Date(0))).toBe(0)
    expect(await store.purgeTemporary(new Date(Date.now() + 60_000))).toBe(2)
    expect(await store.list('staging/t1')).toEqual([expect.objectContaining({ key, size: 7 })])
    expect((await readAll(store.read(key))).toString()).toBe('pending')

    await expect(new S3BlobStore(s3Config('s3-purge', { bucket: 'no-such-bucket' })).check()).rejects.toThrow(/no-such-bucket/)
  })

  test('the S3 store keeps a cut body only while no other writer committed since it started (a lost lease)', async () => {
    const [a, b] = [new S3BlobStore(s3Config('s3-lease')), new S3BlobStore(s3Config('s3-lease'))]
    const key = 'staging/t1/upload-lease'
    await a.append(key, body(Buffer.from('start-')), 0, 100)
    async function* cutAfterTakeover(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('from-a')
      await b.append(key, body(Buffer.from('from-b')), 6, 100)
      throw new Error('the upload lease was lost')
    }
    const failed = await a.append(key, cutAfterTakeover(), 6, 100).catch((error: unknown) => error)
    expect(failed).toBeInstanceOf(AppendError)
    expect(failed).toMatchObject({ reason: 'stream', storedSize: 12 })
    expect((await readAll(a.read(key))).toString()).toBe('start-from-b')
  })

  test('the S3 store appends only to uploads in progress (staging keys)', async () => {
    const store = new S3BlobStore(s3Config('s3-staging-only'))
    await expect(store.append('t1/photos/p1/original', body(Buffer.from('x')), 0, 10)).rejects.toThrow(/not a staging key/)
    expect(await store.stat('t1/photos/p1/original')).toBeUndefined()
  })

  test('the S3 store presigns downloads from the configured size on, with our response headers', async () => {
    const store = new S3BlobStore(s3Config('s3-presign', { presignMinBytes: 100, presignTtlSeconds: 30 }))
    const bytes = randomBytes(150)
    await store.put('t1/photos/p1/original', bytes)
    const headers = { contentType: 'image/jpeg', contentDisposition: "attachment; filename*=UTF-8''site.jpg", cacheControl: 'private, no-cache' }
    expect(await store.directDownloadUrl('t1/photos/p1/original', 99, headers)).toBeUndefined()
    const url = await store.directDownloadUrl('t1/photos/p1/original', 150, headers)
    expect(url).toMatch(/X-Amz-Expires=30/)
    const response = await fetch(url!)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('image/jpeg')
    expect(response.headers.get('content-disposition')).toBe(headers.contentDisposition)
    expect(response.headers.get('cache-control')).toBe('private, no-cache')
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true)
  })
})
