import { Readable } from 'node:stream'
import type { Context } from 'hono'
import type { BackendEnv } from '#server/http/env'
import { parseRange } from '#server/domain/photos/serving'
import { type ServedBlob } from '#server/domain/uploads/served'
import { Problem, problems } from '#server/http/problem'
import { type BlobStore } from '#server/storage/blob-store'
import { blobStoreFor } from '#server/storage/blob-stores'

/**
 * Streams a stored blob (docs/photos.md "Serving"): photos, their renditions and edits, document
 * revisions and their sheets. ETag is the bytes' SHA-256 (If-None-Match → 304); one byte range
 * (206, or 416 past the end; If-Range honoured); nosniff and a sandboxing CSP always, so a file is
 * never run as a page of the portal. With S3 and S3_PRESIGN_MIN_BYTES, a large download is answered
 * with a redirect to a short-lived presigned URL instead (docs/operations.md "File storage").
 */
export type ServeOptions = {
  /**
   * `versioned`: a request whose `?v=` names the bytes' hash may be cached for good (the URL
   * changes with the bytes); otherwise, and with `no-cache`, every use revalidates.
   */
  cache: 'versioned' | 'no-cache'
  csp: string
  /** Content-Disposition with the blob's file name; none when undefined. */
  disposition?: 'inline' | 'attachment' | undefined
  /** The 404's detail when the blob is missing from the store. */
  missing: string
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false
  return header.split(',').some((tag) => {
    const t = tag.trim()
    return t === '*' || t.replace(/^W\//, '') === etag
  })
}

/** RFC 8187 ext-value: percent-encoded UTF-8, with the characters encodeURIComponent leaves that attr-char does not allow. */
function encodeFileName(name: string): string {
  return encodeURIComponent(name).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`)
}

export async function serveBlob(c: Context<BackendEnv>, blob: ServedBlob, options: ServeOptions): Promise<Response> {
  const store = blobStoreFor(c.get('deps').config)
  const stat = await store.stat(blob.key)
  if (!stat) throw new Problem(problems.notFound(options.missing))
  const etag = `"${blob.sha256}"`
  const version = c.req.query('v')
  const immutable = options.cache === 'versioned' && version !== undefined && version.length >= 8 && blob.sha256.startsWith(version)
  const headers: Record<string, string> = {
    etag,
    'cache-control': immutable ? 'private, max-age=31536000, immutable' : 'private, no-cache',
    'accept-ranges': 'bytes',
    'x-content-type-options': 'nosniff',
    'content-security-policy': options.csp,
  }
  if (options.disposition) headers['content-disposition'] = `${options.disposition}; filename*=UTF-8''${encodeFileName(blob.fileName)}`
  if (etagMatches(c.req.header('if-none-match'), etag)) return c.body(null, 304, headers)

  const ifRange = c.req.header('if-range')
  const range = ifRange !== undefined && ifRange !== etag ? 'none' : parseRange(c.req.header('range'), stat.size)
  headers['content-type'] = blob.contentType
  if (range === 'unsatisfiable') {
    return c.body(null, 416, { ...headers, 'content-range': `bytes */${stat.size}` })
  }
  const part = range === 'none' ? undefined : range
  const length = part ? part.end - part.start + 1 : stat.size
  if (part) headers['content-range'] = `bytes ${part.start}-${part.end}/${stat.size}`
  // HEAD: the headers only, without opening the file.
  if (c.req.method === 'HEAD') return c.body(null, part ? 206 : 200, { ...headers, 'content-length': String(length) })
  const direct = await directDownload(c, store, blob, headers, stat.size)
  if (direct) return direct
  const stream = Readable.toWeb(store.read(blob.key, part)) as unknown as ReadableStream<Uint8Array>
  return c.body(stream, part ? 206 : 200, { ...headers, 'content-length': String(length) })
}

/**
 * The caller checked the permission already; the URL then lets the client fetch the bytes from the
 * bucket itself, for a short while, with our content type, disposition and cache policy. Only whole
 * downloads (an attachment, no Range): a file shown inline may sit in a page of the portal, whose
 * CSP admits only its own origin, and ranges keep our ETag for If-Range.
 */
async function directDownload(c: Context<BackendEnv>, store: BlobStore, blob: ServedBlob, headers: Record<string, string>, size: number): Promise<Response | undefined> {
  const contentDisposition = headers['content-disposition']
  if (!store.directDownloadUrl || !contentDisposition?.startsWith('attachment') || c.req.header('range') !== undefined) return undefined
  const url = await store.directDownloadUrl(blob.key, size, { contentType: blob.contentType, contentDisposition, cacheControl: headers['cache-control'] ?? 'private, no-cache' })
  if (!url) return undefined
  return c.body(null, 302, { location: url, 'cache-control': 'private, no-store' })
}
