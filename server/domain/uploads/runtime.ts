import type { DomainContext } from '#server/domain/tenancy/context'
import type { BlobStore } from '#server/storage/blob-store'

/** What operations spanning several transactions receive: a way to open one, the blob store, a logger. */
export type UploadRuntime = {
  store: BlobStore
  run<T>(work: (ctx: DomainContext) => Promise<T>): Promise<T>
  warn(details: Record<string, unknown>, message: string): void
}
