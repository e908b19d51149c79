import type * as S3 from '@aws-sdk/client-s3'

export type ObjectInfo = { key: string; size: number; modifiedAt: Date }

export type S3Sdk = typeof S3

let loading: Promise<S3Sdk> | undefined

/**
 * The SDK, loaded by the first call that needs it: loading it costs about 220 ms of CPU, which a
 * server storing its files in the data folder (the default) should not pay at every start.
 */
export function s3Sdk(): Promise<S3Sdk> {
  return (loading ??= import('@aws-sdk/client-s3'))
}

/** The plain object operations the S3 store is built from, on one bucket; a missing object answers undefined. */
export class Bucket {
  constructor(
    /** The store's client, made on first use (S3BlobStore.client). */
    readonly client: () => Promise<S3.S3Client>,
    readonly name: string,
  ) {}

  /** The client and the SDK's commands. */
  async connect(): Promise<{ client: S3.S3Client; s3: S3Sdk }> {
    const [client, s3] = await Promise.all([this.client(), s3Sdk()])
    return { client, s3 }
  }

  async head(key: string): Promise<ObjectInfo | undefined> {
    const { client, s3 } = await this.connect()
    try {
      const out = await client.send(new s3.HeadObjectCommand({ Bucket: this.name, Key: key }))
      return { key, size: out.ContentLength ?? 0, modifiedAt: out.LastModified ?? new Date(0) }
    } catch (error) {
      if (isMissing(error)) return undefined
      throw error
    }
  }

  /** The whole object in memory: only for the store's own small objects (append state and tails). */
  async getBytes(key: string): Promise<Buffer | undefined> {
    const { client, s3 } = await this.connect()
    try {
      const out = await client.send(new s3.GetObjectCommand({ Bucket: this.name, Key: key }))
      if (!out.Body) throw new Error(`the object ${key} came without a body`)
      return Buffer.from(await out.Body.transformToByteArray())
    } catch (error) {
      if (isMissing(error)) return undefined
      throw error
    }
  }

  async putBytes(key: string, bytes: Uint8Array): Promise<void> {
    const { client, s3 } = await this.connect()
    await client.send(new s3.PutObjectCommand({ Bucket: this.name, Key: key, Body: bytes, ContentLength: bytes.byteLength }))
  }

  /** Removes the object; a missing one is fine (S3 answers 204 either way). */
  async delete(key: string): Promise<void> {
    const { client, s3 } = await this.connect()
    await client.send(new s3.DeleteObjectCommand({ Bucket: this.name, Key: key }))
  }

  /** Every object whose key starts with `prefix`, page by page. */
  async *list(prefix: string): AsyncGenerator<ObjectInfo> {
    const { client, s3 } = await this.connect()
    let token: string | undefined
    do {
      const page = await client.send(new s3.ListObjectsV2Command({ Bucket: this.name, Prefix: prefix, ContinuationToken: token }))
      for (const item of page.Contents ?? []) {
        if (item.Key) yield { key: item.Key, size: item.Size ?? 0, modifiedAt: item.LastModified ?? new Date(0) }
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined
    } while (token)
  }
}

/**
 * An error the S3 service answered (S3ServiceException), known by its shape as the SDK itself
 * checks one (ServiceException.isInstance): `instanceof` would need the SDK loaded.
 */
function serviceError(error: unknown): { name: string; $metadata: { httpStatusCode?: number | undefined } } | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const { $fault, $metadata } = error as { $fault?: unknown; $metadata?: unknown }
  if (($fault !== 'client' && $fault !== 'server') || typeof $metadata !== 'object' || $metadata === null) return undefined
  return error as { name: string; $metadata: { httpStatusCode?: number } }
}

/** No such object or upload (404); a missing bucket is not "missing", it is a configuration error. */
export function isMissing(error: unknown): boolean {
  const found = serviceError(error)
  return found !== undefined && found.$metadata.httpStatusCode === 404 && found.name !== 'NoSuchBucket'
}

/**
 * The server does not offer this call. Some S3-compatible servers lack the multipart upload
 * housekeeping calls (s3rver, used by the tests, has neither AbortMultipartUpload nor
 * ListMultipartUploads); the bucket's lifecycle rule then removes abandoned uploads.
 */
export function isUnsupported(error: unknown): boolean {
  const found = serviceError(error)
  return found !== undefined && (found.name === 'NotImplemented' || found.name === 'MethodNotAllowed')
}
