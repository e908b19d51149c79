import { mkdtemp, rm, stat } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { setTimeout as sleep } from 'node:timers/promises'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { CreateBucketCommand, DeleteBucketCommand, DeleteObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3'
import S3rver from 's3rver'

/**
 * A real S3-compatible server for tests (s3rver: the S3 REST API over HTTP, objects kept in a
 * temporary folder), with the bucket created. `env` is what the portal needs to use it
 * (BLOB_STORE=s3 and the standard AWS credential variables, which s3rver accepts as given).
 */
export type TestS3 = {
  endpoint: string
  bucket: string
  env: Record<string, string>
  stop(): Promise<void>
}

export async function startS3(options: { bucket?: string } = {}): Promise<TestS3> {
  storeBeforeAnswering()
  const bucket = options.bucket ?? 'site-portal-test'
  const directory = await mkdtemp(path.join(os.tmpdir(), 'sp-s3-'))
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] })
  const address = (await server.run()) as AddressInfo
  const endpoint = `http://127.0.0.1:${address.port}`
  return {
    endpoint,
    bucket,
    env: {
      BLOB_STORE: 's3',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    },
    async stop() {
      await server.close()
      await rm(directory, { recursive: true, force: true })
    },
  }
}

/**
 * A bucket of its own on the S3 server that `env` names (TestS3.env), for a test that breaks its
 * storage for real: `remove` empties and deletes it, so every write fails; `restore` makes it again.
 */
export type TestBucket = { env: Record<string, string>; remove(): Promise<void>; restore(): Promise<void> }

export async function createTestBucket(env: Record<string, string>, name: string): Promise<TestBucket> {
  const client = new S3Client({
    endpoint: env.S3_ENDPOINT,
    region: env.S3_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID ?? '', secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? '' },
  })
  await client.send(new CreateBucketCommand({ Bucket: name }))
  return {
    env: { S3_BUCKET: name },
    async remove() {
      for (;;) {
        const page = await client.send(new ListObjectsV2Command({ Bucket: name }))
        for (const object of page.Contents ?? []) await client.send(new DeleteObjectCommand({ Bucket: name, Key: object.Key }))
        if (!page.IsTruncated) break
      }
      await client.send(new DeleteBucketCommand({ Bucket: name }))
    },
    async restore() {
      await client.send(new CreateBucketCommand({ Bucket: name }))
    },
  }
}

type Stored = { size: number }
type FilesystemStore = {
  getResourcePath(bucket: string, key: string | undefined, type: string): string
  putObject(object: { bucket: string; key: string }): Promise<Stored>
}
let patched = false

/**
 * s3rver 3.7.1 answers a PUT once it has handed the object to its file's write stream, not once the
 * file is written: a GET right after could read the object empty (a JSON state read as "" in
 * tests/unit/blob-store.test.ts, once in a full unit run). S3 stores an object before it answers;
 * here the answer waits until the file holds the object's bytes. (Parts are read only by the
 * completion of their upload, after s3rver's further writes.)
 */
function storeBeforeAnswering(): void {
  if (patched) return
  patched = true
  const store = (createRequire(import.meta.url)('s3rver/lib/stores/filesystem') as { prototype: FilesystemStore }).prototype
  const putObject = store.putObject
  store.putObject = async function (this: FilesystemStore, object) {
    const stored = await putObject.call(this, object)
    const file = this.getResourcePath(object.bucket, object.key, 'object')
    for (let waited = 0; waited < 5000; waited += 2) {
      const written = await stat(file).catch(() => undefined)
      if (written && written.size >= stored.size) break
      await sleep(2)
    }
    return stored
  }
}
