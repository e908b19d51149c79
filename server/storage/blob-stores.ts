import path from 'node:path'
import type { BlobsConfig } from '#server/config'
import { FileBlobStore, type BlobStore } from './blob-store'
import { S3BlobStore } from './s3-blob-store'

const stores = new Map<string, BlobStore>()

/**
 * The process's store for this configuration: the data folder's (BLOB_STORE=file, the default), or
 * the bucket's (BLOB_STORE=s3: one S3 client per bucket and prefix, sharing its connections).
 */
export function blobStoreFor(config: { dataDir: string; blobs?: BlobsConfig }): BlobStore {
  const blobs = config.blobs
  const id = blobs?.store === 's3' ? `s3:${JSON.stringify(blobs)}` : `file:${path.join(config.dataDir, 'blobs')}`
  let store = stores.get(id)
  if (!store) {
    store = blobs?.store === 's3' ? new S3BlobStore(blobs) : new FileBlobStore(path.join(config.dataDir, 'blobs'))
    stores.set(id, store)
  }
  return store
}
