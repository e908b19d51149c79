import type { Context } from 'hono'

/**
 * An answer made of a string or bytes, kept whole on its way out.
 *
 * In a server process, @hono/node-server replaces the global `Response` with a light one that
 * keeps a string or bytes body as it is and writes it to the socket at once. Reading its `body`,
 * `bodyUsed` or `text()` turns it into undici's Response with the body as a stream, and the socket
 * is then fed from that stream. Hono's `c.header()` on an answer already made does exactly that,
 * and copies the answer; so does setting `c.res` over one. An API answer passed four such
 * middlewares (the correlation id, nosniff, Cache-Control, the CSRF token) and compression, and was
 * copied five times: undici's Response and web streams were about a tenth of a list's CPU time
 * (issue 37, docs/performance.md "Answers kept whole").
 *
 * These helpers change an answer in place where they can, and fall back to Hono's own way where
 * they cannot (an answer of `fetch()`, whose headers cannot change). `wholeBody` reads the light
 * Response's body through its own cache; `tests/unit/whole-answer.test.ts` checks that against the
 * version of @hono/node-server the lockfile holds, and every caller falls back to reading the body
 * when it answers undefined.
 */

/** Sets (or with `append`, adds to) a header of the answer already made, without copying it. */
export function setAnswerHeader(c: Context, name: string, value: string, options?: { append?: boolean }): void {
  try {
    if (options?.append) c.res.headers.append(name, value)
    else c.res.headers.set(name, value)
  } catch {
    // Immutable headers (an answer of fetch()): Hono copies the answer and sets it on the copy.
    c.header(name, value, options)
  }
}

/** Puts `response` in place of the answer already made, as it is (its headers are its own). */
export function replaceAnswer(c: Context, response: Response): void {
  // Setting c.res over an answer copies the new one through its body stream and merges the old
  // one's headers into it; with none there it is taken as it is.
  c.res = undefined
  c.res = response
}

type LightCache = [status: number, body: unknown, headers: unknown]
let cacheKey: symbol | undefined

/**
 * The body of an answer the light Response still holds whole: its string or bytes, `null` when it
 * has none; undefined when it is not held whole (a stream, a file, undici's own Response): read it
 * as any Response then.
 */
export function wholeBody(response: Response): string | Uint8Array | null | undefined {
  cacheKey ??= Object.getOwnPropertySymbols(response).find((symbol) => symbol.description === 'cache')
  if (cacheKey === undefined) return undefined
  const cache = (response as unknown as Record<symbol, unknown>)[cacheKey]
  if (!Array.isArray(cache)) return undefined
  const body = (cache as LightCache)[1]
  return body === null || typeof body === 'string' || body instanceof Uint8Array ? body : undefined
}

/**
 * A new answer of a text already read (a page's read asked again, server/web/front-door.ts
 * `readOnce`) whose `text()` and `json()` hand over that string: the light Response would make
 * undici's Response and read the string back through a stream, a cost of about 2 % of the item
 * page's CPU (issue 37). Its other parts (`body`, `clone()`...) are the light Response's own.
 */
export function keptTextAnswer(text: string, init: ResponseInit): Response {
  const response = new Response(text, init)
  const prototype = Object.getPrototypeOf(response) as Response
  let read = false
  const take = (): Promise<string> => {
    if (read) return Promise.reject(new TypeError('Body is unusable: Body has already been read'))
    read = true
    return Promise.resolve(text)
  }
  Object.defineProperties(response, {
    text: { value: take },
    json: { value: () => take().then(JSON.parse) },
    bodyUsed: { get: () => read || (Reflect.get(prototype, 'bodyUsed', response) as boolean) },
  })
  return response
}
