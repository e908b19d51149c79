import { createHash, randomUUID } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, open, readdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { Readable } from 'node:stream'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'

/**
 * Where photo and document bytes live (docs/photos.md "Storage", docs/operations.md "File storage").
 * Keys are tenant-prefixed paths: `{tenantId}/…` for served blobs, `staging/{tenantId}/…` for
 * uploads in progress, which are never served. A served blob only ever appears whole.
 *
 * Two implementations: the data folder (FileBlobStore, below: `put` writes a temporary name and
 * renames it, `move` renames) and an S3-compatible bucket (S3BlobStore, s3-blob-store.ts: `put` a
 * streamed multipart upload, `append` parts of an S3 multipart upload, `move` CopyObject +
 * DeleteObject, `read` a ranged GetObject, `withLocalFile` a download to a temporary file).
 */
export type BlobStat = { size: number }
export type ByteRange = { start: number; end: number }

export interface BlobStore {
  /** Stores the whole stream under `key`, replacing any blob there; answers its size and SHA-256 (hex). */
  put(key: string, data: Readable | Uint8Array): Promise<{ size: number; sha256: string }>
  /**
   * Appends the stream to `key`, an upload in progress (under `staging/`), if it holds exactly
   * `expectedOffset` bytes (a missing blob holds 0).
   * The bytes that arrived stay even when the stream fails half-way; the error then carries the
   * stored size (`AppendError`). At most `maxBytes` are accepted: more fails with `AppendError` too,
   * after storing the allowed ones. One writer per key at a time is the caller's guard (the upload
   * session's lease, valid across instances).
   */
  append(key: string, data: AsyncIterable<Uint8Array>, expectedOffset: number, maxBytes: number): Promise<BlobStat>
  stat(key: string): Promise<BlobStat | undefined>
  /** A stream of the blob, or of `range` (inclusive ends, like HTTP); a missing blob fails it with code ENOENT. */
  read(key: string, range?: ByteRange): Readable
  /** Removes the blob; a missing one is fine. */
  delete(key: string): Promise<void>
  /** Renames `from` to `to` (staging → served, or back). */
  move(from: string, to: string): Promise<void>
  /** Runs `work` with a local file path holding the blob (image processing needs a file). */
  withLocalFile<T>(key: string, work: (filePath: string) => Promise<T>): Promise<T>
  /** Every blob under the key prefix (a folder), with when it was last written or moved there. */
  list(prefix: string): Promise<BlobEntry[]>
  /** Removes the store's own temporary files (unfinished puts and appends) last written before `olderThan`. */
  purgeTemporary(olderThan: Date): Promise<number>
  /** Fails unless the store can be written (readiness): the data folder is writable, the bucket answers. */
  check(): Promise<void>
  /**
   * A short-lived URL the client may fetch a blob of `size` bytes from directly, with these
   * response headers, when the store offers one (S3 with S3_PRESIGN_MIN_BYTES); undefined otherwise.
   */
  directDownloadUrl?(key: string, size: number, headers: DirectDownloadHeaders): Promise<string | undefined>
}

export type DirectDownloadHeaders = { contentType: string; contentDisposition: string; cacheControl: string }

export type BlobEntry = { key: string; size: number; modifiedAt: Date }

export class BlobOffsetError extends Error {
  constructor(readonly storedSize: number) {
    super(`the blob holds ${storedSize} bytes`)
    this.name = 'BlobOffsetError'
  }
}

/** An append that stopped early: the stream failed, or brought more than allowed. */
export class AppendError extends Error {
  constructor(
    readonly storedSize: number,
    readonly reason: 'stream' | 'too-large',
    options?: { cause?: unknown },
  ) {
    super(`append stopped (${reason}) at ${storedSize} bytes`, options)
    this.name = 'AppendError'
  }
}

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/

/** Refuses anything but plain relative segments, so no key reaches outside the root. */
export function assertKey(key: string): string[] {
  const segments = key.split('/')
  if (segments.length < 2 || segments.some((s) => !SEGMENT.test(s) || s.includes('..'))) throw new Error(`not a blob key: ${key}`)
  return segments
}

/** The filesystem store under `${dataDir}/blobs`: objects/ (served), staging/ (uploads) and tmp/. */
export class FileBlobStore implements BlobStore {
  private readonly objects: string
  private readonly staging: string
  private readonly tmp: string
  constructor(readonly root: string) {
    this.objects = path.join(root, 'objects')
    this.staging = path.join(root, 'staging')
    this.tmp = path.join(root, 'tmp')
  }

  pathOf(key: string): string {
    const segments = assertKey(key)
    const [first, ...rest] = segments
    const full = first === 'staging' ? path.join(this.staging, ...rest) : path.join(this.objects, ...segments)
    const base = first === 'staging' ? this.staging : this.objects
    if (!full.startsWith(base + path.sep)) throw new Error(`not a blob key: ${key}`)
    return full
  }

  async put(key: string, data: Readable | Uint8Array): Promise<{ size: number; sha256: string }> {
    const target = this.pathOf(key)
    await mkdir(this.tmp, { recursive: true })
    const temp = path.join(this.tmp, `${randomUUID()}.part`)
    const hash = createHash('sha256')
    let size = 0
    try {
      if (data instanceof Uint8Array) {
        hash.update(data)
        size = data.byteLength
        await pipeline(async function* () {
          yield data
        }, createWriteStream(temp, { flags: 'wx' }))
      } else {
        const counter = new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            hash.update(chunk)
            size += chunk.length
            callback(null, chunk)
          },
        })
        await pipeline(data, counter, createWriteStream(temp, { flags: 'wx' }))
      }
      await mkdir(path.dirname(target), { recursive: true })
      await rename(temp, target)
    } catch (error) {
      await rm(temp, { force: true })
      throw error
    }
    return { size, sha256: hash.digest('hex') }
  }

  async append(key: string, data: AsyncIterable<Uint8Array>, expectedOffset: number, maxBytes: number): Promise<BlobStat> {
    const target = this.pathOf(key)
    // One writer per key is the caller's guard (the upload session's lease), valid across instances.
    const current = (await this.stat(key))?.size ?? 0
    if (current !== expectedOffset) throw new BlobOffsetError(current)
    await mkdir(path.dirname(target), { recursive: true })
    // One awaited write per chunk: memory stays at one chunk of the stream, whatever the size.
    const file = await open(target, 'a')
    let written = 0
    let failure: AppendError | undefined
    try {
      // Read one chunk at a time (no read-ahead), so a stream that fails keeps every chunk before it.
      for await (const chunk of data) {
        const room = maxBytes - written
        const part = chunk.length > room ? chunk.subarray(0, room) : chunk
        if (part.length > 0) await file.write(part)
        written += part.length
        if (chunk.length > room) {
          failure = new AppendError(0, 'too-large')
          break
        }
      }
    } catch (error) {
      failure = new AppendError(0, 'stream', { cause: error })
    } finally {
      await file.close()
    }
    if (failure) {
      throw new AppendError((await this.stat(key))?.size ?? 0, failure.reason, { cause: failure.cause })
    }
    return { size: (await this.stat(key))?.size ?? 0 }
  }

  async stat(key: string): Promise<BlobStat | undefined> {
    try {
      const s = await stat(this.pathOf(key))
      return { size: s.size }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    }
  }

  read(key: string, range?: ByteRange): Readable {
    return createReadStream(this.pathOf(key), range ? { start: range.start, end: range.end } : {})
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true })
  }

  async move(from: string, to: string): Promise<void> {
    const target = this.pathOf(to)
    await mkdir(path.dirname(target), { recursive: true })
    await rename(this.pathOf(from), target)
    // A rename keeps the old modification time: a blob just moved into place must not look stray to the sweep.
    const now = new Date()
    await utimes(target, now, now)
  }

  async list(prefix: string): Promise<BlobEntry[]> {
    const dir = this.pathOf(prefix)
    let names: string[]
    try {
      names = await readdir(dir, { recursive: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw error
    }
    const entries: BlobEntry[] = []
    for (const name of names) {
      try {
        const s = await stat(path.join(dir, name))
        if (s.isFile()) entries.push({ key: `${prefix}/${name.split(path.sep).join('/')}`, size: s.size, modifiedAt: s.mtime })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      }
    }
    return entries
  }

  async purgeTemporary(olderThan: Date): Promise<number> {
    let names: string[]
    try {
      names = await readdir(this.tmp)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0
      throw error
    }
    let removed = 0
    for (const name of names) {
      const file = path.join(this.tmp, name)
      const s = await stat(file).catch(() => undefined)
      if (s?.isFile() && s.mtime.getTime() < olderThan.getTime()) {
        await rm(file, { force: true })
        removed++
      }
    }
    return removed
  }

  async withLocalFile<T>(key: string, work: (filePath: string) => Promise<T>): Promise<T> {
    return work(this.pathOf(key))
  }

  async check(): Promise<void> {
    await mkdir(this.tmp, { recursive: true })
    const probe = path.join(this.tmp, `${randomUUID()}.check`)
    await writeFile(probe, '')
    await rm(probe, { force: true })
  }
}

/** SHA-256 (hex) and size of a stored blob, read as a stream. */
export async function hashBlob(store: BlobStore, key: string): Promise<{ size: number; sha256: string; head: Uint8Array }> {
  const hash = createHash('sha256')
  let size = 0
  const head: Buffer[] = []
  let headLength = 0
  for await (const chunk of store.read(key) as AsyncIterable<Buffer>) {
    hash.update(chunk)
    size += chunk.length
    if (headLength < 64) {
      head.push(chunk.subarray(0, 64 - headLength))
      headLength += Math.min(chunk.length, 64 - headLength)
    }
  }
  return { size, sha256: hash.digest('hex'), head: Buffer.concat(head) }
}
