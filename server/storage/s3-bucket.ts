import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3ServiceException, type S3Client } from '@aws-sdk/client-s3'

export type ObjectInfo = { key: string; size: number; modifiedAt: Date }

/** The plain object operations the S3 store is built from, on one bucket; a missing object answers undefined. */
export class Bucket {
  constructor(
    readonly client: S3Client,
    readonly name: string,
  ) {}

  async head(key: string): Promise<ObjectInfo | undefined> {
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.name, Key: key }))
      return { key, size: out.ContentLength ?? 0, modifiedAt: out.LastModified ?? new Date(0) }
    } catch (error) {
      if (isMissing(error)) return undefined
      throw error
    }
  }

  /** The whole object in memory: only for the store's own small objects (append state and tails). */
  async getBytes(key: string): Promise<Buffer | undefined> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.name, Key: key }))
      if (!out.Body) throw new Error(`the object ${key} came without a body`)
      return Buffer.from(await out.Body.transformToByteArray())
    } catch (error) {
      if (isMissing(error)) return undefined
      throw error
    }
  }

  async putBytes(key: string, bytes: Uint8Array): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.name, Key: key, Body: bytes, ContentLength: bytes.byteLength }))
  }

  /** Removes the object; a missing one is fine (S3 answers 204 either way). */
  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.name, Key: key }))
  }

  /** Every object whose key starts with `prefix`, page by page. */
  async *list(prefix: string): AsyncGenerator<ObjectInfo> {
    let token: string | undefined
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.name, Prefix: prefix, ContinuationToken: token }))
      for (const item of page.Contents ?? []) {
        if (item.Key) yield { key: item.Key, size: item.Size ?? 0, modifiedAt: item.LastModified ?? new Date(0) }
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined
    } while (token)
  }
}

/** No such object or upload (404); a missing bucket is not "missing", it is a configuration error. */
export function isMissing(error: unknown): boolean {
  return error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404 && error.name !== 'NoSuchBucket'
}

/**
 * The server does not offer this call. Some S3-compatible servers lack the multipart upload
 * housekeeping calls (s3rver, used by the tests, has neither AbortMultipartUpload nor
 * ListMultipartUploads); the bucket's lifecycle rule then removes abandoned uploads.
 */
export function isUnsupported(error: unknown): boolean {
  return error instanceof S3ServiceException && (error.name === 'NotImplemented' || error.name === 'MethodNotAllowed')
}
