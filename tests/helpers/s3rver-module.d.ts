/**
 * The little of s3rver (v3, no bundled types) that tests/helpers/s3.ts uses.
 * See node_modules/s3rver/lib/s3rver.js for the real thing.
 */
declare module 's3rver' {
  import type { AddressInfo } from 'node:net'

  export type S3rverOptions = {
    address?: string
    port?: number
    silent?: boolean
    directory: string
    configureBuckets?: Array<{ name: string; configs?: Array<string | Buffer> }>
    allowMismatchedSignatures?: boolean
    resetOnClose?: boolean
  }

  export default class S3rver {
    constructor(options: S3rverOptions)
    run(): Promise<AddressInfo>
    close(): Promise<void>
  }
}
