import { promisify } from 'node:util'
import { brotliCompress, brotliCompressSync, constants, createBrotliCompress, createGzip, gzip, gzipSync, type BrotliCompress, type Gzip } from 'node:zlib'
import type { MiddlewareHandler } from 'hono'
import { parseAccept } from 'hono/utils/accept'
import { COMPRESSIBLE_CONTENT_TYPE_REGEX } from 'hono/utils/compress'
import { replaceAnswer, setAnswerHeader, wholeBody } from '#server/http/whole-answer'

/**
 * Compression of what the server makes as it answers (pages, API answers), with Node's zlib: Brotli
 * at quality 4 when the client accepts it, else gzip. hono/compress offers gzip and deflate only;
 * on a 740 KB sync page Brotli 4 takes 5.6 ms for 62 KB where gzip 6 takes 8.3 ms for 88 KB
 * (docs/performance.md "Sync"). What a turn of the event loop wrote is flushed at its end, so a
 * streamed page still reaches the browser in its pieces (the first paint must not wait for the end
 * of the stream).
 * Conditions as hono/compress: at least 1 KB, a compressible type, not already encoded, no
 * `no-transform`, not HEAD or 206; Vary: Accept-Encoding; a strong ETag becomes weak.
 *
 * An answer made whole (every JSON answer, a problem, a small text) is compressed in one piece,
 * which costs a fifth of the stream's machinery (a list of 20 projects: docs/performance.md
 * "Prepared statements on PGlite"), and keeps its Content-Length. (No JSON answer of ours streams:
 * the streamed downloads are CSV, PDF and ZIP.)
 */
const THRESHOLD = 1024
const BROTLI_QUALITY = 4
const ENCODINGS = ['br', 'gzip'] as const
type Encoding = (typeof ENCODINGS)[number]
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i
const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } }
const brotliWhole = promisify(brotliCompress)
const gzipWhole = promisify(gzip)
/**
 * A whole body up to this size is compressed at once on the event loop: a list of 20 items (12 KB)
 * takes 0.08 ms at Brotli 4, less than the trip to zlib's thread pool and back costs
 * (docs/performance.md "Small answers compressed at once"). A larger one goes to the pool, so no
 * answer holds the loop for long.
 */
const AT_ONCE_LIMIT = 64 * 1024
const NO_TRANSFORM = /(?:^|,)\s*?no-transform\s*?(?:,|$)/i
const VARY_ACCEPT_ENCODING = /(?:^|,)\s*accept-encoding\s*(?:,|$)/i

export function compression(): MiddlewareHandler {
  return async (c, next) => {
    await next()
    const res = c.res
    const length = res.headers.get('content-length')
    const type = res.headers.get('content-type')
    if (
      res.status === 206 ||
      res.headers.has('content-encoding') ||
      res.headers.has('transfer-encoding') ||
      c.req.method === 'HEAD' ||
      (length !== null && Number(length) < THRESHOLD) ||
      !type ||
      !COMPRESSIBLE_CONTENT_TYPE_REGEX.test(type) ||
      NO_TRANSFORM.test(res.headers.get('cache-control') ?? '')
    )
      return
    const vary = res.headers.get('vary')
    if (vary !== '*' && !(vary && VARY_ACCEPT_ENCODING.test(vary))) setAnswerHeader(c, 'vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding')
    const encoding = chooseEncoding(c.req.header('accept-encoding'))
    if (!encoding) return
    // A body made whole (a string or bytes, as every JSON answer is) is compressed in one piece,
    // read as it was made rather than through a stream (server/http/whole-answer.ts).
    const answer = c.res
    const held = wholeBody(answer)
    if (held === null) return
    const read = held === undefined && JSON_TYPE.test(type) ? await answer.text() : undefined
    const whole = held ?? read
    const init = () => ({ status: answer.status, headers: new Headers(answer.headers) })
    let compressed: Response
    if (whole !== undefined) {
      const body = typeof whole === 'string' ? Buffer.from(whole) : whole
      if (body.length < THRESHOLD) {
        // Read above through its stream: it needs a body again.
        if (read !== undefined) replaceAnswer(c, new Response(read, init()))
        return
      }
      const zipped = await compressWhole(body, encoding)
      compressed = new Response(zipped, init())
      compressed.headers.set('content-length', String(zipped.length))
    } else {
      const stream = answer.body
      if (!stream) return
      compressed = new Response(stream.pipeThrough(compressor(encoding)), init())
      compressed.headers.delete('content-length')
    }
    compressed.headers.set('content-encoding', encoding)
    const etag = compressed.headers.get('etag')
    if (etag && !etag.startsWith('W/')) compressed.headers.set('etag', `W/${etag}`)
    replaceAnswer(c, compressed)
  }
}

/** A body made whole, compressed at once up to `AT_ONCE_LIMIT`, above it in zlib's thread pool. */
async function compressWhole(body: Uint8Array, encoding: Encoding): Promise<Uint8Array<ArrayBuffer>> {
  if (body.length <= AT_ONCE_LIMIT) return encoding === 'br' ? brotliCompressSync(body, BROTLI_OPTIONS) : gzipSync(body)
  return encoding === 'br' ? brotliWhole(body, BROTLI_OPTIONS) : gzipWhole(body)
}

/** The best encoding the header allows (q > 0), Brotli first on a tie; undefined for none. */
export function chooseEncoding(header: string | undefined): Encoding | undefined {
  if (header === undefined) return undefined
  const accepts = parseAccept(header)
  const wildcard = accepts.find((a) => a.type === '*')?.q
  let best: { encoding: Encoding; q: number } | undefined
  for (const encoding of ENCODINGS) {
    const q = accepts.find((a) => a.type.toLowerCase() === encoding)?.q ?? wildcard ?? 0
    if (q > 0 && (!best || q > best.q)) best = { encoding, q }
  }
  return best?.encoding
}

function compressor(encoding: Encoding): TransformStream<Uint8Array, Uint8Array> {
  const zlib: BrotliCompress | Gzip =
    encoding === 'br' ? createBrotliCompress(BROTLI_OPTIONS) : createGzip()
  const flushKind = encoding === 'br' ? constants.BROTLI_OPERATION_FLUSH : constants.Z_SYNC_FLUSH
  // The client may go away mid-answer (the readable side is cancelled): what zlib still produces
  // is dropped, never enqueued into a closed stream (which throws, outside any request).
  let open = true
  const closeQuietly = () => {
    if (!open) return
    open = false
    zlib.destroy()
  }
  // The pieces that come in one turn are compressed and sent as one: React writes a page in 2 KB
  // pieces, most of them at once, and a flush after each had made zlib close a block (and the
  // socket send a packet) for every 2 KB. A piece that comes after a wait (the rest of a streamed
  // page) is still sent as soon as it comes: the flush runs once the turn's pieces are written.
  let flushing = false
  const flushSoon = () => {
    if (flushing) return
    flushing = true
    setImmediate(() => {
      flushing = false
      if (open) zlib.flush(flushKind)
    })
  }
  return new TransformStream<Uint8Array, Uint8Array>({
    start(controller) {
      zlib.on('data', (chunk: Buffer) => {
        if (!open) return
        try {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
        } catch {
          closeQuietly()
        }
      })
      zlib.on('error', (error) => {
        if (!open) return
        closeQuietly()
        try {
          controller.error(error)
        } catch {
          // already closed
        }
      })
    },
    transform(chunk) {
      if (!open) return
      zlib.write(chunk)
      flushSoon()
    },
    flush() {
      if (!open) return
      return new Promise<void>((resolve, reject) => {
        zlib.once('end', () => {
          open = false
          resolve()
        })
        zlib.once('error', reject)
        zlib.end()
      })
    },
    cancel() {
      closeQuietly()
    },
  } as Transformer<Uint8Array, Uint8Array>)
}
