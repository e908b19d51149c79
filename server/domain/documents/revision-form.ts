import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import busboy from 'busboy'

/**
 * A multipart/form-data body (RFC 7578) read as it streams, by busboy (docs/decisions/012-multipart-with-busboy.md): what the revision
 * form sends without JavaScript (revision-direct.ts). `Request.formData()` holds every file in memory, and a revision may be 1 GiB;
 * here a file part reaches its consumer as a stream with backpressure, so memory stays at a few chunks of the body whatever the
 * file's size. Parts reach the consumer one at a time, in the body's order: the fields sent before a file are known when it starts.
 */

export type FormPart = { kind: 'field'; name: string; value: string } | { kind: 'file'; name: string; fileName: string; contentType: string; bytes: Readable }

export type MultipartLimits = {
  /** The whole body, framing included. */
  maxBodyBytes: number
  /** Fields and files together. */
  maxParts: number
  /** One field's value. (A part's header block is capped by busboy at 16 KiB, Node's own limit for an HTTP request's headers.) */
  maxFieldBytes: number
}

export class MultipartError extends Error {
  constructor(
    readonly reason: 'malformed' | 'too-large' | 'too-many-parts' | 'field-too-large',
    message: string,
    /** The field that was too long. */
    readonly field?: string,
  ) {
    super(message)
    this.name = 'MultipartError'
  }
}

/** The boundary of a multipart/form-data Content-Type (RFC 2046 §5.1.1 characters), or undefined when it is not one. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data\s*(;|$)/i.test(contentType.trim())) return undefined
  const match = /;\s*boundary\s*=\s*(?:"([0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?])"|([0-9A-Za-z'()+_,\-./:=?]{1,70}))\s*(?:;|$)/i.exec(contentType)
  return match?.[1] ?? match?.[2]
}

/** HTML's form-data encoding escapes these three in names and file names (WHATWG HTML §4.10.21.8); busboy leaves them escaped. */
function unescapeName(value: string): string {
  return value.replace(/%22/g, '"').replace(/%0D/gi, '\r').replace(/%0A/gi, '\n')
}

/** The body's bytes, refused past `maxBytes` as they arrive (a Content-Length may be absent or wrong). */
async function* counted(body: AsyncIterable<Uint8Array>, maxBytes: number): AsyncGenerator<Uint8Array> {
  let total = 0
  for await (const chunk of body) {
    total += chunk.length
    if (total > maxBytes) throw new MultipartError('too-large', `The body is larger than ${maxBytes} bytes.`)
    yield chunk
  }
}

/**
 * Reads the body and hands each part to `onPart`, one after the other. What `onPart` leaves unread of a file is skipped; it must
 * not destroy the stream. Throws MultipartError for a body that is not multipart/form-data with this boundary (malformed, cut
 * short) or exceeds the limits, otherwise what `onPart` threw; either stops the reading at once.
 */
export async function readMultipart(body: AsyncIterable<Uint8Array>, boundary: string, limits: MultipartLimits, onPart: (part: FormPart) => Promise<void>): Promise<void> {
  const parser = busboy({
    headers: { 'content-type': `multipart/form-data; boundary="${boundary}"` },
    // One over ours: busboy's partsLimit fires when a count is reached, so it then means that a part past ours was sent.
    limits: { parts: limits.maxParts + 1, fieldSize: limits.maxFieldBytes + 1 },
    // File names exactly as sent (busboy keeps only the part after the last slash otherwise), read as UTF-8 like browsers send them.
    preservePath: true,
    defParamCharset: 'utf8',
  })
  const stop = new AbortController()
  // The body's fault wins over what it caused downstream (a consumer's stream destroyed by a truncated body).
  let formError: MultipartError | undefined
  let partError: unknown
  const fail = (error: unknown) => {
    if (error instanceof MultipartError) formError ??= error
    else partError ??= error
    // Not while busboy is inside its own write.
    process.nextTick(() => stop.abort())
  }

  let parts = 0
  let queue = Promise.resolve()
  const enqueue = (part: FormPart) => {
    if (++parts > limits.maxParts) return fail(new MultipartError('too-many-parts', `Send at most ${limits.maxParts} fields.`))
    if (!part.name) return fail(new MultipartError('malformed', 'A part has no field name.'))
    queue = queue
      .then(async () => {
        if (formError || partError) return
        await onPart(part)
        if (part.kind !== 'file') return
        if (part.bytes.destroyed && !part.bytes.readableEnded) throw new Error('a file part was destroyed before its end: busboy would wait for it forever')
        part.bytes.resume()
      })
      .catch(fail)
  }
  parser.on('field', (name, value, info) => {
    if (info.valueTruncated) return fail(new MultipartError('field-too-large', `${name} is too long.`, name))
    enqueue({ kind: 'field', name: unescapeName(name ?? ''), value })
  })
  parser.on('file', (name, bytes, info) => {
    // busboy destroys a file's stream with an error when the body breaks inside it: whoever reads it hears of it, and an unread one must not crash the process.
    bytes.on('error', () => undefined)
    enqueue({ kind: 'file', name: unescapeName(name ?? ''), fileName: unescapeName(info.filename ?? ''), contentType: info.mimeType, bytes })
  })
  parser.on('partsLimit', () => fail(new MultipartError('too-many-parts', `Send at most ${limits.maxParts} fields.`)))

  try {
    await pipeline(counted(body, limits.maxBodyBytes), parser, { signal: stop.signal })
  } catch (error) {
    if (!stop.signal.aborted) fail(error instanceof MultipartError ? error : new MultipartError('malformed', error instanceof Error ? error.message : String(error)))
  }
  await queue
  if (formError) throw formError
  if (partError) throw partError
}
