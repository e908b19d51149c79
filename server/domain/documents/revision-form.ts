/**
 * A multipart/form-data body (RFC 7578) read as it streams, one part at a time: what the revision
 * form sends without JavaScript (revision-direct.ts). A platform `Request.formData()` holds every
 * file in memory, and a revision may be 1 GiB; here a file part reaches its consumer as a stream
 * of bytes and memory stays at one chunk of the body, whatever the file's size.
 */

export type PartHeaders = {
  /** The form field's name. */
  name: string
  /** Present for a file part (possibly empty, as a browser sends a file input left empty). */
  fileName: string | undefined
  contentType: string | undefined
}

export type MultipartLimits = {
  /** The whole body, framing included. */
  maxBodyBytes: number
  maxParts: number
  /** One part's header block. */
  maxHeaderBytes: number
}

export class MultipartError extends Error {
  constructor(
    readonly reason: 'malformed' | 'too-large' | 'too-many-parts',
    message: string,
  ) {
    super(message)
    this.name = 'MultipartError'
  }
}

/** The boundary of a multipart/form-data Content-Type, or undefined when it is not one. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data\s*(;|$)/i.test(contentType.trim())) return undefined
  const match = /;\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^;\s]{1,70}))/i.exec(contentType)
  return match?.[1] ?? match?.[2]
}

/** The body's bytes, with what has been read but not yet consumed. */
class Source {
  buffer: Buffer = Buffer.alloc(0)
  private total = 0
  private ended = false

  constructor(
    private readonly iterator: AsyncIterator<Uint8Array>,
    private readonly maxBytes: number,
  ) {}

  /** Reads the next chunk of the body onto the buffer; false when the body has ended. */
  async more(): Promise<boolean> {
    if (this.ended) return false
    const next = await this.iterator.next()
    if (next.done) {
      this.ended = true
      return false
    }
    this.total += next.value.length
    if (this.total > this.maxBytes) throw new MultipartError('too-large', `The body is larger than ${this.maxBytes} bytes.`)
    this.buffer = this.buffer.length === 0 ? Buffer.from(next.value) : Buffer.concat([this.buffer, next.value])
    return true
  }

  /** The index of `needle` in the buffer, reading on until it appears within `limit` bytes. */
  async find(needle: Buffer, limit: number, what: string): Promise<number> {
    for (;;) {
      const index = this.buffer.indexOf(needle)
      if (index >= 0 && index <= limit) return index
      if (this.buffer.length > limit + needle.length) throw new MultipartError('malformed', `${what} was not found where expected.`)
      if (!(await this.more())) throw new MultipartError('malformed', `The body ended before ${what}.`)
    }
  }

  async atLeast(length: number): Promise<void> {
    while (this.buffer.length < length) {
      if (!(await this.more())) throw new MultipartError('malformed', 'The body ended too early.')
    }
  }

  consume(length: number): void {
    this.buffer = this.buffer.subarray(length)
  }
}

/** HTML's form-data encoding escapes these three in names and file names (WHATWG HTML §4.10.21.8). */
function unescapeName(value: string): string {
  return value.replace(/%22/g, '"').replace(/%0D/gi, '\r').replace(/%0A/gi, '\n')
}

function parseHeaders(block: string): PartHeaders {
  let disposition: string | undefined
  let contentType: string | undefined
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':')
    if (colon <= 0) continue
    const name = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    if (name === 'content-disposition') disposition = value
    if (name === 'content-type') contentType = value.split(';')[0]?.trim().toLowerCase() || undefined
  }
  if (!disposition || !/^form-data\s*(;|$)/i.test(disposition)) throw new MultipartError('malformed', 'A part has no Content-Disposition: form-data.')
  const params = new Map<string, string>()
  for (const match of disposition.matchAll(/;\s*([^=;\s]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g)) {
    const key = (match[1] ?? '').toLowerCase()
    const quoted = match[2]
    params.set(key, quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : (match[3] ?? '').trim())
  }
  const name = params.get('name')
  if (name === undefined) throw new MultipartError('malformed', 'A part has no field name.')
  let fileName = params.has('filename') ? unescapeName(params.get('filename') as string) : undefined
  const extended = /^utf-8''(.*)$/i.exec(params.get('filename*') ?? '')
  if (extended?.[1] !== undefined) {
    try {
      fileName = decodeURIComponent(extended[1])
    } catch {
      // A broken filename* leaves the plain filename.
    }
  }
  return { name: unescapeName(name), fileName, contentType }
}

/**
 * Reads the body part after part and hands each to `onPart` with its bytes as a stream. What
 * `onPart` leaves unread of a part is skipped. Throws MultipartError for a body that is not
 * multipart/form-data with this boundary, or exceeds the limits.
 */
export async function readMultipart(
  body: AsyncIterable<Uint8Array>,
  boundary: string,
  limits: MultipartLimits,
  onPart: (part: PartHeaders, bytes: AsyncIterable<Uint8Array>) => Promise<void>,
): Promise<void> {
  const source = new Source(body[Symbol.asyncIterator](), limits.maxBodyBytes)
  const dashBoundary = Buffer.from(`--${boundary}`, 'latin1')
  const delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1')
  const headerEnd = Buffer.from('\r\n\r\n', 'latin1')

  // Anything before the first boundary is a preamble, to be ignored.
  source.consume((await source.find(dashBoundary, limits.maxHeaderBytes, 'the first boundary')) + dashBoundary.length)
  for (let parts = 0; ; parts++) {
    await source.atLeast(2)
    const after = source.buffer.subarray(0, 2).toString('latin1')
    if (after === '--') return
    if (after !== '\r\n') throw new MultipartError('malformed', 'A boundary is not followed by a line break.')
    source.consume(2)
    if (parts >= limits.maxParts) throw new MultipartError('too-many-parts', `Send at most ${limits.maxParts} fields.`)
    const end = await source.find(headerEnd, limits.maxHeaderBytes, 'the end of a part’s headers')
    const headers = parseHeaders(source.buffer.subarray(0, end).toString('utf8'))
    source.consume(end + headerEnd.length)

    const state = { ended: false }
    await onPart(headers, partBytes(source, delimiter, state))
    // What the consumer left unread is skipped (the generator keeps no state but the buffer).
    if (!state.ended) for await (const skipped of partBytes(source, delimiter, state)) void skipped
  }
}

/** A part's bytes up to the next delimiter, which is consumed; `state.ended` says it was reached. */
async function* partBytes(source: Source, delimiter: Buffer, state: { ended: boolean }): AsyncGenerator<Uint8Array> {
  for (;;) {
    const index = source.buffer.indexOf(delimiter)
    if (index >= 0) {
      const last = source.buffer.subarray(0, index)
      source.consume(index + delimiter.length)
      state.ended = true
      if (last.length > 0) yield last
      return
    }
    // Keep what could be the start of a delimiter split across two reads.
    const keep = delimiter.length - 1
    if (source.buffer.length > keep) {
      const out = source.buffer.subarray(0, source.buffer.length - keep)
      source.consume(out.length)
      yield out
    }
    if (!(await source.more())) throw new MultipartError('malformed', 'The body ended inside a part.')
  }
}
