import { createHash } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { PassThrough, Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { S3Client } from '@aws-sdk/client-s3'
import type { BlobsConfig } from '#server/config'
import { assertKey, type BlobEntry, type BlobStat, type BlobStore, type ByteRange, type DirectDownloadHeaders } from './blob-store'
import { S3Appends } from './s3-append'
import { Bucket, isMissing, s3Sdk } from './s3-bucket'

export type S3BlobsConfig = Extract<BlobsConfig, { store: 's3' }>

/**
 * The S3-compatible store (BLOB_STORE=s3, docs/operations.md "File storage"): one object per blob
 * under the configured key prefix, so every instance reads what any other stored. Objects appear
 * whole (S3 makes a PUT, a completed multipart upload or a copy visible at once). Appends are
 * multipart uploads whose state lives in the bucket (s3-append.ts); the first read, copy or download
 * of such a blob completes it into a plain object.
 *
 * The AWS SDK loads with the first operation (s3-bucket.ts s3Sdk), not with this module.
 */
export class S3BlobStore implements BlobStore {
  /** The store's one client (sharing its connections), made on first use. */
  readonly client: () => Promise<S3Client>
  private readonly bucket: Bucket
  private readonly appends: S3Appends
  private readonly root: string

  constructor(readonly config: S3BlobsConfig) {
    let client: Promise<S3Client> | undefined
    this.client = () =>
      (client ??= s3Sdk().then(
        ({ S3Client }) =>
          new S3Client({
            region: config.region,
            endpoint: config.endpoint,
            forcePathStyle: config.forcePathStyle,
            // Checksums only where S3 requires them: the newer default (aws-chunked bodies with trailing
            // checksums) is not understood by every S3-compatible server.
            requestChecksumCalculation: 'WHEN_REQUIRED',
            responseChecksumValidation: 'WHEN_REQUIRED',
            // A bucket that stops answering fails the request instead of holding it for good.
            requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
          }),
      ))
    this.bucket = new Bucket(this.client, config.bucket)
    this.root = config.keyPrefix ? `${config.keyPrefix}/` : ''
    this.appends = new S3Appends(this.bucket, this.root)
  }

  private objectKey(key: string): string {
    assertKey(key)
    return this.root + key
  }

  /** Uploads in progress live under staging/: only there can a key have an open append (one request less to serve a blob). */
  private async finished(key: string): Promise<void> {
    if (isStaging(key)) await this.appends.finish(key)
  }

  async put(key: string, data: Readable | Uint8Array): Promise<{ size: number; sha256: string }> {
    const target = this.objectKey(key)
    const hash = createHash('sha256')
    let size = 0
    if (data instanceof Uint8Array) {
      hash.update(data)
      size = data.byteLength
      await this.bucket.putBytes(target, data)
    } else {
      // Hashed as it streams; lib-storage sends one PutObject, or a multipart upload past 5 MiB.
      const body = Readable.from(
        (async function* () {
          for await (const chunk of data as AsyncIterable<Buffer>) {
            hash.update(chunk)
            size += chunk.length
            yield chunk
          }
        })(),
      )
      const [client, { Upload }] = await Promise.all([this.client(), import('@aws-sdk/lib-storage')])
      await new Upload({ client, params: { Bucket: this.bucket.name, Key: target, Body: body }, queueSize: 2 }).done()
    }
    return { size, sha256: hash.digest('hex') }
  }

  async append(key: string, data: AsyncIterable<Uint8Array>, expectedOffset: number, maxBytes: number): Promise<BlobStat> {
    assertKey(key)
    if (!isStaging(key)) throw new Error(`not a staging key: ${key} (uploads in progress live under staging/)`)
    return this.appends.append(key, data, expectedOffset, maxBytes)
  }

  async stat(key: string): Promise<BlobStat | undefined> {
    const found = await this.bucket.head(this.objectKey(key))
    if (found) return { size: found.size }
    const appended = isStaging(key) ? await this.appends.size(key) : undefined
    return appended === undefined ? undefined : { size: appended }
  }

  /** Errors surface on the stream, as the file store's do; a missing blob's carries code ENOENT like theirs. */
  read(key: string, range?: ByteRange): Readable {
    const target = this.objectKey(key)
    const out = new PassThrough()
    void (async () => {
      await this.finished(key)
      const { client, s3 } = await this.bucket.connect()
      const got = await client.send(new s3.GetObjectCommand({ Bucket: this.bucket.name, Key: target, Range: range ? `bytes=${range.start}-${range.end}` : undefined }))
      await pipeline(got.Body as Readable, out)
    })().catch((error: unknown) => {
      if (isMissing(error)) out.destroy(Object.assign(new Error(`no blob at ${key}`, { cause: error }), { code: 'ENOENT' }))
      else out.destroy(error instanceof Error ? error : new Error(String(error)))
    })
    return out
  }

  async delete(key: string): Promise<void> {
    const target = this.objectKey(key)
    await Promise.all([this.bucket.delete(target), isStaging(key) ? this.appends.abandon(key) : undefined])
  }

  async move(from: string, to: string): Promise<void> {
    const source = this.objectKey(from)
    const target = this.objectKey(to)
    await this.finished(from)
    const { client, s3 } = await this.bucket.connect()
    // The copy is a new object: its LastModified is now, so the sweep does not take it for a stray.
    await client.send(new s3.CopyObjectCommand({ Bucket: this.bucket.name, Key: target, CopySource: `${this.bucket.name}/${source}` }))
    await this.bucket.delete(source)
  }

  async withLocalFile<T>(key: string, work: (filePath: string) => Promise<T>): Promise<T> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'sp-blob-'))
    try {
      const file = path.join(dir, 'blob')
      await pipeline(this.read(key), createWriteStream(file, { flags: 'wx' }))
      return await work(file)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }

  /** Blobs, and uploads in progress (their LastModified is their last chunk's). */
  async list(prefix: string): Promise<BlobEntry[]> {
    const entries = new Map<string, BlobEntry>()
    for await (const object of this.bucket.list(`${this.objectKey(prefix)}/`)) {
      const key = object.key.slice(this.root.length)
      entries.set(key, { key, size: object.size, modifiedAt: object.modifiedAt })
    }
    if (isStaging(`${prefix}/`)) for (const entry of await this.appends.list(prefix)) if (!entries.has(entry.key)) entries.set(entry.key, entry)
    return [...entries.values()]
  }

  purgeTemporary(olderThan: Date): Promise<number> {
    return this.appends.purge(olderThan)
  }

  async check(): Promise<void> {
    const { client, s3 } = await this.bucket.connect()
    try {
      await client.send(new s3.HeadBucketCommand({ Bucket: this.bucket.name }))
    } catch (error) {
      const where = this.config.endpoint ?? `S3 in ${this.config.region}`
      throw new Error(`The bucket ${this.bucket.name} at ${where} did not answer (${(error as Error).name}): check S3_ENDPOINT, S3_BUCKET and the credentials.`, { cause: error })
    }
  }

  /** A presigned GetObject for blobs of at least S3_PRESIGN_MIN_BYTES (0: never), valid S3_PRESIGN_TTL_SECONDS. */
  async directDownloadUrl(key: string, size: number, headers: DirectDownloadHeaders): Promise<string | undefined> {
    if (this.config.presignMinBytes === 0 || size < this.config.presignMinBytes) return undefined
    const [{ client, s3 }, { getSignedUrl }] = await Promise.all([this.bucket.connect(), import('@aws-sdk/s3-request-presigner')])
    const command = new s3.GetObjectCommand({
      Bucket: this.bucket.name,
      Key: this.objectKey(key),
      ResponseContentType: headers.contentType,
      ResponseContentDisposition: headers.contentDisposition,
      ResponseCacheControl: headers.cacheControl,
    })
    return getSignedUrl(client, command, { expiresIn: this.config.presignTtlSeconds })
  }
}

function isStaging(key: string): boolean {
  return key.startsWith('staging/')
}
