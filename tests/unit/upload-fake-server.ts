import { createApiClient } from '~/lib/api/client'
import type { ApiClient } from '~/lib/api/types'
import { createUploadApi, type UploadApi } from '~/islands/upload/upload-api'
import type { QueueEnvironment } from '~/islands/upload/upload-queue'

/**
 * A fake fetch answering the upload protocol of docs/photos.md from memory, with knobs to cut
 * the connection, and a queue environment whose `online` event the test fires.
 */

type Session = { id: string; size: number; offset: number; state: string; photoId: string | null; name: string }

export type FakeServer = {
  sessions: Map<string, Session>
  calls: string[]
  /** Called before each request is answered: return 'drop' to fail it as a cut connection, or a Response to answer instead. */
  intercept: (method: string, path: string, body: Uint8Array | null) => 'drop' | Response | undefined
  /** For a chunk that is dropped: how many of its bytes still arrived. */
  keepOnDrop: number
  api: UploadApi
  /** The API client the upload calls go through, for other calls of the same test. */
  client: ApiClient
}

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json' } })

export function problem(status: number, code: string, extra: Record<string, unknown> = {}): Response {
  return json({ status, title: code, detail: `${code} detail`, code, ...extra }, status)
}

export function fakeServer(chunkSize = 8 * 1024 * 1024): FakeServer {
  const server: FakeServer = {
    sessions: new Map(),
    calls: [],
    intercept: () => undefined,
    keepOnDrop: 0,
    api: undefined as unknown as UploadApi,
    client: undefined as unknown as ApiClient,
  }
  let next = 0
  const view = (s: Session) => ({ id: s.id, offset: s.offset, size: s.size, chunkSize, state: s.state, photoId: s.photoId, failureReason: null })
  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url)
    const body = request.method === 'GET' || request.method === 'DELETE' ? null : new Uint8Array(await request.arrayBuffer())
    const path = url.pathname + url.search
    server.calls.push(`${request.method} ${path}`)
    const intercepted = server.intercept(request.method, path, body)
    const session = server.sessions.get(url.pathname.split('/')[3] ?? '')
    if (intercepted === 'drop') {
      if (session && body && url.pathname.endsWith('/chunk')) session.offset += Math.min(server.keepOnDrop, body.length)
      throw new TypeError('Failed to fetch')
    }
    if (intercepted) return intercepted
    if (request.method === 'POST' && url.pathname.endsWith('/uploads')) {
      const input = JSON.parse(new TextDecoder().decode(body ?? new Uint8Array())) as { fileName: string; size: number }
      const s: Session = { id: `s${++next}`, size: input.size, offset: 0, state: 'open', photoId: null, name: input.fileName }
      server.sessions.set(s.id, s)
      return json(view(s), 201)
    }
    if (!session) return problem(404, 'KR_NOT_FOUND')
    if (request.method === 'GET') return json(view(session))
    if (request.method === 'DELETE') {
      session.state = 'aborted'
      return new Response(null, { status: 204 })
    }
    if (url.pathname.endsWith('/chunk')) {
      const offset = Number(url.searchParams.get('offset'))
      if (offset !== session.offset) return problem(409, 'KR_UPLOAD_OFFSET_MISMATCH', { expectedOffset: session.offset })
      session.offset += body?.length ?? 0
      return json(view(session))
    }
    if (url.pathname.endsWith('/complete')) {
      if (session.offset !== session.size) return problem(409, 'KR_UPLOAD_INCOMPLETE', { expectedOffset: session.offset })
      session.state = 'completed'
      session.photoId ??= `photo-of-${session.name}`
      return json({ id: session.photoId, fileName: session.name, thumbnailUrl: null }, 201)
    }
    return problem(404, 'KR_NOT_FOUND')
  }
  const client = createApiClient({
    transport: handle,
    origin: 'https://portal.test',
    getCsrfToken: () => 'token',
    clientId: 'client-1',
    os: 'Android',
    // The client's own retries are immediate here; the queue's back-off is what the tests time.
    sleep: () => Promise.resolve(),
  })
  server.api = createUploadApi(client)
  server.client = client
  return server
}

export function fakeEnvironment(): QueueEnvironment & { goOnline(): void } {
  const listeners = new Set<() => void>()
  return {
    onOnline: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    setTimer: (callback, ms) => setTimeout(callback, ms),
    clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    goOnline: () => {
      for (const listener of [...listeners]) listener()
    },
  }
}

export function photo(name: string, size: number, type = 'image/jpeg'): File {
  const bytes = new Uint8Array(size)
  for (let i = 0; i < size; i++) bytes[i] = i % 251
  return new File([bytes], name, { type })
}
