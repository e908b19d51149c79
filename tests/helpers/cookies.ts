/**
 * A tiny cookie jar for API tests: keeps what the backend sets and sends it back, like a browser
 * would for one site. Path, Domain and Secure are ignored on purpose (every test talks to one
 * origin); Max-Age=0 or an Expires in the past removes the cookie, as it does in a browser.
 */
export type CookieJar = {
  /** Stores every Set-Cookie of the response and hands the response back, for chaining. */
  collect(response: Response): Response
  /** The value of a cookie, or undefined when the jar does not hold it. */
  get(name: string): string | undefined
  set(name: string, value: string): void
  delete(name: string): void
  /** The Cookie request header for everything in the jar ('' when empty). */
  header(): string
  /** Headers with the Cookie header added (or replaced); the input is left untouched. */
  apply(headers?: HeadersInit): Headers
}

export function createCookieJar(): CookieJar {
  const cookies = new Map<string, string>()

  const jar: CookieJar = {
    collect(response) {
      for (const line of response.headers.getSetCookie()) {
        const parsed = parseSetCookie(line)
        if (!parsed) continue
        if (parsed.expired) cookies.delete(parsed.name)
        else cookies.set(parsed.name, parsed.value)
      }
      return response
    },
    get: (name) => cookies.get(name),
    set(name, value) {
      cookies.set(name, value)
    },
    delete(name) {
      cookies.delete(name)
    },
    header: () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
    apply(headers) {
      const merged = new Headers(headers)
      const cookie = jar.header()
      if (cookie) merged.set('cookie', cookie)
      else merged.delete('cookie')
      return merged
    },
  }
  return jar
}

type ParsedCookie = { name: string; value: string; expired: boolean }

function parseSetCookie(line: string): ParsedCookie | undefined {
  const [pair = '', ...attributes] = line.split(';')
  const equals = pair.indexOf('=')
  if (equals <= 0) return undefined
  const name = pair.slice(0, equals).trim()
  const value = pair.slice(equals + 1).trim()
  let expired = false
  for (const attribute of attributes) {
    const [key = '', raw = ''] = attribute.split('=', 2).map((s) => s.trim())
    const lower = key.toLowerCase()
    // Max-Age wins over Expires (RFC 6265 §5.3): decide on it alone when present.
    if (lower === 'max-age') {
      expired = Number(raw) <= 0
      break
    }
    if (lower === 'expires') expired = Date.parse(raw) <= Date.now()
  }
  return { name, value, expired }
}
