import { webRequest } from './client'
import type { RequestParts } from './types'

const PARTS = Symbol('parts')
const NATIVE = Symbol('native')
type Light = { [PARTS]: RequestParts & { url: string }; [NATIVE]?: Request }

/**
 * A request that stays in this process (a page's loaders calling the backend in-process, DESIGN.md
 * "One contract, two transports"), made light as @hono/node-server makes the requests it receives:
 * its method, address and headers are plain fields, it has no body, and the web Request (undici's,
 * with its AbortSignal) is made only when something asks for more (`signal`, `clone()`...).
 * Undici's Request and its signal were about 4 % of the item page's CPU (issue 37,
 * docs/performance.md "In-process calls made light").
 *
 * Only a call without a body is light: one with a body is a web Request as before. Code that reads
 * a body may make a new Request of the one it has (Hono's bodyLimit does), and undici's Request
 * cannot be made of a light one.
 */
export function inProcessRequest(url: string, parts: RequestParts): Request {
  if (parts.body !== undefined) return webRequest(url, parts)
  const request = Object.create(lightPrototype) as Light
  request[PARTS] = { ...parts, url }
  return request as unknown as Request
}

function native(request: Light): Request {
  const parts = request[PARTS]
  request[NATIVE] ??= new Request(parts.url, { method: parts.method, headers: parts.headers, signal: parts.signal() })
  return request[NATIVE]
}

const lightPrototype = {
  get method(): string {
    return (this as unknown as Light)[PARTS].method
  },
  get url(): string {
    return (this as unknown as Light)[PARTS].url
  },
  get headers(): Headers {
    return (this as unknown as Light)[PARTS].headers
  },
  get signal(): AbortSignal {
    return (this as unknown as Light)[PARTS].signal()
  },
  get body(): null {
    return null
  },
  get bodyUsed(): boolean {
    return false
  },
  text(): Promise<string> {
    return Promise.resolve('')
  },
}
for (const name of ['cache', 'credentials', 'destination', 'duplex', 'integrity', 'keepalive', 'mode', 'redirect', 'referrer', 'referrerPolicy'] as const) {
  Object.defineProperty(lightPrototype, name, {
    get(this: Light) {
      return (native(this) as unknown as Record<string, unknown>)[name]
    },
  })
}
for (const name of ['arrayBuffer', 'blob', 'bytes', 'clone', 'formData', 'json'] as const) {
  Object.defineProperty(lightPrototype, name, {
    value(this: Light) {
      const made = native(this) as unknown as Record<string, () => unknown>
      return made[name]!.call(made)
    },
  })
}
Object.setPrototypeOf(lightPrototype, Request.prototype)
