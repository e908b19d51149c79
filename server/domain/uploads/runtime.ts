import type { DomainContext } from '#server/domain/tenancy/context'
import type { OutsideLinks } from '#server/domain/transmittal-link-token'
import type { BlobStore } from '#server/storage/blob-store'

/**
 * What operations spanning several transactions receive: a way to open one, the blob store, a
 * logger, and what mails about what they did link with (a new revision tells who received the
 * one it supersedes, outside contacts by their signed link).
 */
export type UploadRuntime = {
  store: BlobStore
  links: OutsideLinks
  run<T>(work: (ctx: DomainContext) => Promise<T>): Promise<T>
  warn(details: Record<string, unknown>, message: string): void
}
