import { randomUUID } from 'node:crypto'
import type { ListMultipartUploadsCommandOutput } from '@aws-sdk/client-s3'
import { z } from 'zod'
import { AppendError, BlobOffsetError, type BlobEntry, type BlobStat } from './blob-store'
import { isMissing, isUnsupported, type Bucket } from './s3-bucket'

/**
 * Chunked uploads on S3 (docs/operations.md "File storage"), with no copy of the file on the
 * instance: a blob being appended to is an S3 multipart upload on its own key. S3 wants every part
 * but the last to hold at least 5 MiB and a client's chunks may be smaller, so bytes not yet in a
 * part wait in a "tail" object. The state lives in the bucket, so any instance can take the next
 * chunk: a small JSON object names the upload, its parts and the current tail. Writing it is the
 * commit point of an append: parts and tails it does not name are not part of the blob (a part
 * number is uploaded again by the next append; an unnamed tail is removed by purge).
 *
 * The state and tails live under `.appends/{key}/` beside the blobs: no blob key can name them
 * (key segments never start with a dot), so they never show in a listing of blobs.
 */

/** S3's smallest part (all but the last). */
export const MIN_PART_BYTES = 5 * 1024 * 1024
/** A part goes up once this much is pending, which bounds an append's memory whatever the chunk size. */
export const PART_BYTES = 8 * 1024 * 1024
const APPENDS = '.appends'

const appendState = z.object({
  uploadId: z.string().optional(),
  parts: z.array(z.object({ number: z.number().int(), etag: z.string(), size: z.number().int() })),
  tail: z.object({ name: z.string(), size: z.number().int() }).optional(),
})
type AppendState = z.infer<typeof appendState>
type Part = AppendState['parts'][number]

function lengthOf(buffers: Buffer[]): number {
  return buffers.reduce((sum, b) => sum + b.length, 0)
}

function sizeOf(state: AppendState): number {
  return state.parts.reduce((sum, part) => sum + part.size, 0) + (state.tail?.size ?? 0)
}

export class S3Appends {
  constructor(
    private readonly bucket: Bucket,
    /** The bucket's key prefix ('' or ending in '/'). */
    private readonly root: string,
  ) {}

  private folder(key: string): string {
    return `${this.root}${APPENDS}/${key}/`
  }

  /** The append state of `key`, undefined when no append is open there. */
  async state(key: string): Promise<AppendState | undefined> {
    const bytes = await this.bucket.getBytes(`${this.folder(key)}state`)
    if (!bytes) return undefined
    const parsed = appendState.safeParse(JSON.parse(bytes.toString('utf8')))
    if (!parsed.success) throw new Error(`the append state of ${key} is unreadable (${parsed.error.message}): delete the blob and upload again`)
    return parsed.data
  }

  /** How many bytes an open append holds; undefined when none is open. */
  async size(key: string): Promise<number | undefined> {
    const state = await this.state(key)
    return state && sizeOf(state)
  }

  async append(key: string, data: AsyncIterable<Uint8Array>, expectedOffset: number, maxBytes: number): Promise<BlobStat> {
    const target = this.root + key
    const state = await this.state(key)
    if (!state) {
      const finished = await this.bucket.head(target)
      if (finished) return appendToFinished(key, finished.size, data, expectedOffset, maxBytes)
    }
    const current: AppendState = state ?? { parts: [] }
    const stored = sizeOf(current)
    if (stored !== expectedOffset) throw new BlobOffsetError(stored)

    const next: AppendState = { ...current, parts: [...current.parts] }
    const pending: Buffer[] = current.tail ? [await this.tailOf(key, current.tail)] : []
    const uploadPending = async () => {
      next.uploadId ??= await this.createUpload(target)
      next.parts.push(await this.uploadPart(target, next.uploadId, next.parts.length + 1, Buffer.concat(pending.splice(0))))
    }

    let accepted = 0
    let tooLarge = false
    let drained = false
    const iterator = data[Symbol.asyncIterator]()
    try {
      for (;;) {
        let step: IteratorResult<Uint8Array>
        try {
          step = await iterator.next()
        } catch (error) {
          throw new AppendError(await this.keepWhatArrived(key, current, next, pending), 'stream', { cause: error })
        }
        if (step.done) {
          drained = true
          break
        }
        const room = maxBytes - accepted
        const piece = step.value.length > room ? step.value.subarray(0, room) : step.value
        pending.push(Buffer.from(piece))
        accepted += piece.length
        if (step.value.length > room) {
          tooLarge = true
          break
        }
        if (lengthOf(pending) >= PART_BYTES) await uploadPending()
      }
    } finally {
      // Stopped early (too large, or the bucket failed): the rest of the body is not wanted.
      if (!drained) await iterator.return?.()
    }
    if (lengthOf(pending) >= MIN_PART_BYTES) await uploadPending()
    await this.commit(key, current, next, pending)
    const size = sizeOf(next)
    if (tooLarge) throw new AppendError(size, 'too-large')
    return { size }
  }

  /**
   * Writes `pending` as the new tail, then the state: the commit point. The old tail goes after; one
   * that could not be removed is no longer named, and purge removes it.
   */
  private async commit(key: string, current: AppendState, next: AppendState, pending: Buffer[]): Promise<void> {
    const bytes = Buffer.concat(pending)
    if (bytes.length > 0) {
      const name = `tail-${randomUUID()}`
      await this.bucket.putBytes(this.folder(key) + name, bytes)
      next.tail = { name, size: bytes.length }
    } else {
      delete next.tail
    }
    await this.bucket.putBytes(`${this.folder(key)}state`, Buffer.from(JSON.stringify(next)))
    if (current.tail && current.tail.name !== next.tail?.name) await this.bucket.delete(this.folder(key) + current.tail.name).catch(() => undefined)
  }

  /**
   * A body cut short keeps what arrived, as on disk, so a client on a poor connection still makes
   * progress. The stream may have failed because the caller lost its lease to another writer: the
   * bytes are then kept only while the state is still the one this append started from.
   */
  private async keepWhatArrived(key: string, current: AppendState, next: AppendState, pending: Buffer[]): Promise<number> {
    try {
      const latest = (await this.state(key)) ?? { parts: [] }
      if (JSON.stringify(latest) !== JSON.stringify(current)) return sizeOf(latest)
      await this.commit(key, current, next, pending)
      return sizeOf(next)
    } catch {
      // The bucket failed too: what the state names is what is stored.
      return sizeOf((await this.state(key).catch(() => undefined)) ?? current)
    }
  }

  /**
   * Makes the open append on `key` a plain object (the tail its last part), so it can be read,
   * copied or downloaded; nothing to do when none is open. Safe to run again after a crash.
   */
  async finish(key: string): Promise<void> {
    const state = await this.state(key)
    if (!state) return
    const target = this.root + key
    // Already there: an earlier finish stopped before it removed the state.
    if (!(await this.bucket.head(target))) {
      const { client, s3 } = await this.bucket.connect()
      if (state.uploadId) {
        const parts = [...state.parts]
        if (state.tail) parts.push(await this.uploadPart(target, state.uploadId, parts.length + 1, await this.tailOf(key, state.tail)))
        const list = parts.map((part) => ({ PartNumber: part.number, ETag: part.etag }))
        await client.send(new s3.CompleteMultipartUploadCommand({ Bucket: this.bucket.name, Key: target, UploadId: state.uploadId, MultipartUpload: { Parts: list } }))
      } else if (state.tail) {
        await client.send(new s3.CopyObjectCommand({ Bucket: this.bucket.name, Key: target, CopySource: `${this.bucket.name}/${this.folder(key)}${state.tail.name}` }))
      } else {
        await this.bucket.putBytes(target, new Uint8Array())
      }
    }
    await this.clear(key)
  }

  /** Drops the open append on `key`, if any: its upload is aborted, its state and tails removed. */
  async abandon(key: string): Promise<void> {
    const objects: string[] = []
    for await (const object of this.bucket.list(this.folder(key))) objects.push(object.key)
    if (objects.length === 0) return
    const state = objects.includes(`${this.folder(key)}state`) ? await this.state(key) : undefined
    if (state?.uploadId) await this.abort(this.root + key, state.uploadId)
    await this.clear(key)
  }

  /** The keys under `prefix` with an open append: their size so far, and when the last append committed. */
  async list(prefix: string): Promise<BlobEntry[]> {
    const entries: BlobEntry[] = []
    const folder = `${this.root}${APPENDS}/${prefix}/`
    for await (const object of this.bucket.list(folder)) {
      if (!object.key.endsWith('/state')) continue
      const key = object.key.slice(`${this.root}${APPENDS}/`.length, -'/state'.length)
      const size = await this.size(key)
      if (size !== undefined) entries.push({ key, size, modifiedAt: object.modifiedAt })
    }
    return entries
  }

  /**
   * Removes what crashes leave, last touched before `olderThan`: tails no state names, and multipart
   * uploads no state names (an append that died before its first commit, a `put` that died half-way).
   * Open appends themselves are blobs: the sweep finds them in `list` and deletes them.
   */
  async purge(olderThan: Date): Promise<number> {
    const byKey = new Map<string, Array<{ key: string; modifiedAt: Date }>>()
    const base = `${this.root}${APPENDS}/`
    for await (const object of this.bucket.list(base)) {
      const owner = object.key.slice(base.length, object.key.lastIndexOf('/'))
      byKey.set(owner, [...(byKey.get(owner) ?? []), object])
    }
    let removed = 0
    for (const [key, objects] of byKey) {
      const state = objects.some((o) => o.key.endsWith('/state')) ? await this.state(key) : undefined
      const named = state?.tail ? this.folder(key) + state.tail.name : undefined
      for (const object of objects) {
        if (object.key.endsWith('/state') || object.key === named || object.modifiedAt.getTime() >= olderThan.getTime()) continue
        await this.bucket.delete(object.key)
        removed++
      }
    }
    return removed + (await this.abortStrayUploads(olderThan))
  }

  private async tailOf(key: string, tail: { name: string; size: number }): Promise<Buffer> {
    const bytes = await this.bucket.getBytes(this.folder(key) + tail.name)
    if (!bytes) throw new Error(`the last ${tail.size} bytes appended to ${key} are missing from the bucket: delete the blob and upload again`)
    return bytes
  }

  private async createUpload(target: string): Promise<string> {
    const { client, s3 } = await this.bucket.connect()
    const out = await client.send(new s3.CreateMultipartUploadCommand({ Bucket: this.bucket.name, Key: target }))
    if (!out.UploadId) throw new Error(`the bucket answered a new multipart upload of ${target} without an UploadId`)
    return out.UploadId
  }

  private async uploadPart(target: string, uploadId: string, number: number, body: Buffer): Promise<Part> {
    const { client, s3 } = await this.bucket.connect()
    const out = await client.send(
      new s3.UploadPartCommand({ Bucket: this.bucket.name, Key: target, UploadId: uploadId, PartNumber: number, Body: body, ContentLength: body.length }),
    )
    if (!out.ETag) throw new Error(`the bucket answered part ${number} of ${target} without an ETag`)
    return { number, etag: out.ETag, size: body.length }
  }

  private async abortStrayUploads(olderThan: Date): Promise<number> {
    const { client, s3 } = await this.bucket.connect()
    let removed = 0
    let keyMarker: string | undefined
    let uploadIdMarker: string | undefined
    do {
      let page: ListMultipartUploadsCommandOutput
      try {
        page = await client.send(
          new s3.ListMultipartUploadsCommand({ Bucket: this.bucket.name, Prefix: this.root, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }),
        )
      } catch (error) {
        if (isUnsupported(error)) return removed
        throw error
      }
      for (const upload of page.Uploads ?? []) {
        if (!upload.Key || !upload.UploadId || !upload.Initiated || upload.Initiated.getTime() >= olderThan.getTime()) continue
        const state = await this.state(upload.Key.slice(this.root.length))
        if (state?.uploadId === upload.UploadId) continue
        await this.abort(upload.Key, upload.UploadId)
        removed++
      }
      keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined
      uploadIdMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined
    } while (keyMarker)
    return removed
  }

  private async abort(target: string, uploadId: string): Promise<void> {
    const { client, s3 } = await this.bucket.connect()
    try {
      await client.send(new s3.AbortMultipartUploadCommand({ Bucket: this.bucket.name, Key: target, UploadId: uploadId }))
    } catch (error) {
      if (!isMissing(error) && !isUnsupported(error)) throw error
    }
  }

  /** The state first: once it is gone the append is, and a tail left by a crash here is purge's. */
  private async clear(key: string): Promise<void> {
    const folder = this.folder(key)
    await this.bucket.delete(`${folder}state`)
    for await (const object of this.bucket.list(folder)) await this.bucket.delete(object.key)
  }
}

/**
 * A finished blob is a plain object, which S3 cannot append to. Nothing appends to one but an
 * empty chunk after a complete that was put back (every byte had arrived): answer it as the file
 * store would.
 */
async function appendToFinished(key: string, size: number, data: AsyncIterable<Uint8Array>, expectedOffset: number, maxBytes: number): Promise<BlobStat> {
  if (size !== expectedOffset) throw new BlobOffsetError(size)
  for await (const chunk of data) {
    if (chunk.length === 0) continue
    if (maxBytes === 0) throw new AppendError(size, 'too-large')
    throw new Error(`${key} is a finished blob; the S3 store appends only to blobs being uploaded`)
  }
  return { size }
}
