import { afterEach, beforeEach, expect, test, vi } from 'vitest'
import { createApiClient } from '~/lib/api/client'
import type { ApiClientOptions } from '~/lib/api/types'

type Reply = Response | Error | (() => Promise<Response>)

/** A fake backend answering each request with the next reply, and remembering the requests. */
function fakeTransport(...replies: Reply[]) {
  const requests: Request[] = []
  const transport = async (request: Request): Promise<Response> => {
    requests.push(request)
    const reply = replies.shift()
    if (reply === undefined) throw new Error(`unexpected request ${request.method} ${request.url}`)
    if (reply instanceof Error) throw reply
    return typeof reply === 'function' ? reply() : reply
  }
  return { transport, requests }
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
}

function problem(status: number, code: string, extra: Record<string, unknown> = {}): Response {
  return new Response(JSON.stringify({ status, title: 'Problem', code, correlationId: 'cid-1', ...extra }), {
    status,
    headers: { 'content-type': 'application/problem+json' },
  })
}

function networkError(): Error {
  return new TypeError('fetch failed')
}

function setup(transport: ApiClientOptions['transport'], overrides: Partial<ApiClientOptions> = {}) {
  const hooks = { onSignedOut: vi.fn(), onBlocked: vi.fn(), onTenantCleared: vi.fn() }
  const api = createApiClient({
    transport,
    origin: 'https://portal.test',
    getCsrfToken: () => 'csrf-token',
    clientId: 'client-0001',
    os: 'Linux',
    ...hooks,
    ...overrides,
  })
  return { api, ...hooks }
}

function pathOf(request: Request | undefined): string {
  if (!request) return '(none)'
  const url = new URL(request.url)
  return `${request.method} ${url.pathname}${url.search}`
}

beforeEach(() => {
  vi.useFakeTimers()
})

afterEach(() => {
  vi.useRealTimers()
})

test('every call carries the client headers, accepts JSON and includes credentials', async () => {
  const { transport, requests } = fakeTransport(json(200, { ok: 1 }))
  const { api } = setup(transport)
  const result = await api.get<{ ok: number }>('/items/1')
  expect(result).toMatchObject({ ok: true, status: 200, data: { ok: 1 } })
  const request = requests[0]!
  expect(request.url).toBe('https://portal.test/api/items/1')
  expect(request.credentials).toBe('include')
  expect(request.headers.get('x-client-id')).toBe('client-0001')
  expect(request.headers.get('x-client-version')).toBe('0.1.0')
  expect(request.headers.get('x-client-os')).toBe('Linux')
  expect(request.headers.get('x-requested-with')).toBe('XMLHttpRequest')
  expect(request.headers.get('accept')).toBe('application/json')
  expect(request.headers.get('x-csrf-token')).toBeNull()
  expect(request.headers.get('content-type')).toBeNull()
  expect(request.headers.get('idempotency-key')).toBeNull()
})

test('relative paths get the /api prefix unless under /auth/, /telemetry/, /hub/ or /api/', async () => {
  const { transport, requests } = fakeTransport(...Array.from({ length: 5 }, () => json(200, {})))
  const { api } = setup(transport)
  for (const path of ['projects', '/items/1', '/auth/session', '/telemetry/events', '/api/projects?limit=5']) await api.get(path)
  expect(requests.map(pathOf)).toEqual([
    'GET /api/projects',
    'GET /api/items/1',
    'GET /auth/session',
    'GET /telemetry/events',
    'GET /api/projects?limit=5',
  ])
})

test('unsafe methods carry the CSRF token and JSON bodies', async () => {
  const { transport, requests } = fakeTransport(json(201, {}), json(200, {}), json(200, {}), new Response(null, { status: 204 }))
  const { api } = setup(transport)
  await api.post('/views', { name: 'Mine' })
  await api.put('/views/1', { name: 'Ours' })
  await api.patch('/settings/appearance', { theme: 'dark' })
  const deleted = await api.del('/views/1')
  expect(deleted).toMatchObject({ ok: true, status: 204, data: undefined })
  expect(requests.map((r) => r.headers.get('x-csrf-token'))).toEqual(['csrf-token', 'csrf-token', 'csrf-token', 'csrf-token'])
  expect(requests[0]!.headers.get('content-type')).toBe('application/json')
  expect(await requests[0]!.text()).toBe('{"name":"Mine"}')
  expect(await requests[2]!.text()).toBe('{"theme":"dark"}')
})

test('no CSRF header when no token is known', async () => {
  const { transport, requests } = fakeTransport(json(200, {}))
  const { api } = setup(transport, { getCsrfToken: () => undefined })
  await api.post('/views', {})
  expect(requests[0]!.headers.has('x-csrf-token')).toBe(false)
})

test('the caller may add or override headers', async () => {
  const { transport, requests } = fakeTransport(json(200, {}))
  const { api } = setup(transport)
  await api.get('/audit/export', { headers: { accept: 'text/csv', 'x-extra': '1' } })
  expect(requests[0]!.headers.get('accept')).toBe('text/csv')
  expect(requests[0]!.headers.get('x-extra')).toBe('1')
})

test('binary and form bodies pass through untouched', async () => {
  const { transport, requests } = fakeTransport(json(200, {}), json(200, {}), json(200, {}), json(200, {}))
  const { api } = setup(transport)
  const chunk = new Uint8Array([1, 2, 3])
  await api.put('/uploads/s-1/chunk?offset=0', new Blob([chunk]), { headers: { 'content-type': 'application/octet-stream' } })
  await api.put('/uploads/s-1/chunk?offset=3', chunk.buffer)
  const form = new FormData()
  form.set('overlayJson', '{}')
  await api.post('/photos/edits', form)
  await api.post('/search', new URLSearchParams({ q: 'crack' }))
  expect(requests[0]!.headers.get('content-type')).toBe('application/octet-stream')
  expect(new Uint8Array(await requests[0]!.arrayBuffer())).toEqual(chunk)
  expect(new Uint8Array(await requests[1]!.arrayBuffer())).toEqual(chunk)
  expect(requests[2]!.headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/)
  expect(requests[3]!.headers.get('content-type')).toMatch(/^application\/x-www-form-urlencoded/)
  expect(await requests[3]!.text()).toBe('q=crack')
})

test('calls of the idempotent areas get a fresh key per logical call', async () => {
  const { transport, requests } = fakeTransport(json(201, {}), json(201, {}), json(200, {}))
  const { api } = setup(transport)
  await api.post('/tenants', { name: 'A' })
  await api.post('/tenants', { name: 'B' })
  await api.get('/tenants/t-1/seats')
  const [first, second] = requests.map((r) => r.headers.get('idempotency-key'))
  expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  expect(second).toMatch(/^[0-9a-f-]{36}$/)
  expect(first).not.toBe(second)
  expect(requests[2]!.headers.has('idempotency-key')).toBe(false)
})

test('a key can be asked for, or given, on any call', async () => {
  const { transport, requests } = fakeTransport(json(200, {}), json(200, {}))
  const { api } = setup(transport)
  await api.post('/items/1/responses', { body: 'x' }, { idempotencyKey: true })
  await api.post('/items/1/responses', { body: 'x' }, { idempotencyKey: 'my-key-1' })
  expect(requests[0]!.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/)
  expect(requests[1]!.headers.get('idempotency-key')).toBe('my-key-1')
})

test('network errors are retried after 300, 1000 and 3000 ms with the same idempotency key', async () => {
  const { transport, requests } = fakeTransport(networkError(), networkError(), networkError(), json(201, { id: 't-1' }))
  const { api } = setup(transport)
  const pending = api.post('/api/billing/checkout/session', { plan: 'pro' })
  await vi.advanceTimersByTimeAsync(0)
  expect(requests).toHaveLength(1)
  await vi.advanceTimersByTimeAsync(299)
  expect(requests).toHaveLength(1)
  await vi.advanceTimersByTimeAsync(1)
  expect(requests).toHaveLength(2)
  await vi.advanceTimersByTimeAsync(999)
  expect(requests).toHaveLength(2)
  await vi.advanceTimersByTimeAsync(1)
  expect(requests).toHaveLength(3)
  await vi.advanceTimersByTimeAsync(2999)
  expect(requests).toHaveLength(3)
  await vi.advanceTimersByTimeAsync(1)
  expect(requests).toHaveLength(4)
  expect(await pending).toMatchObject({ ok: true, status: 201, data: { id: 't-1' } })
  const keys = new Set(requests.map((r) => r.headers.get('idempotency-key')))
  expect(keys.size).toBe(1)
  expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/)
})

test('after three retries the network error is returned', async () => {
  const { transport, requests } = fakeTransport(networkError(), networkError(), networkError(), networkError())
  const { api } = setup(transport)
  const pending = api.get('/projects')
  await vi.advanceTimersByTimeAsync(300 + 1000 + 3000)
  const result = await pending
  expect(requests).toHaveLength(4)
  expect(!result.ok && result.error).toMatchObject({
    kind: 'FETCH_ERROR',
    status: undefined,
    message: 'Network request failed. Check your connection and retry.',
  })
})

test('429 is retried on the same back-off', async () => {
  const { transport, requests } = fakeTransport(json(429, { title: 'Slow down' }), json(200, { done: true }))
  const { api } = setup(transport)
  const pending = api.get('/projects')
  await vi.advanceTimersByTimeAsync(299)
  expect(requests).toHaveLength(1)
  await vi.advanceTimersByTimeAsync(1)
  expect(await pending).toMatchObject({ ok: true, data: { done: true } })
})

test('a 429 Retry-After longer than the back-off is respected', async () => {
  const { transport, requests } = fakeTransport(json(429, {}, { 'retry-after': '2' }), json(200, {}))
  const { api } = setup(transport)
  const pending = api.get('/projects')
  await vi.advanceTimersByTimeAsync(1999)
  expect(requests).toHaveLength(1)
  await vi.advanceTimersByTimeAsync(1)
  expect(requests).toHaveLength(2)
  expect((await pending).ok).toBe(true)
})

test('a 429 retryAfterSeconds in the problem is respected too', async () => {
  const { transport, requests } = fakeTransport(problem(429, 'KR_RATE_LIMITED', { retryAfterSeconds: 5 }), json(200, {}))
  const { api } = setup(transport)
  const pending = api.get('/projects')
  await vi.advanceTimersByTimeAsync(4999)
  expect(requests).toHaveLength(1)
  await vi.advanceTimersByTimeAsync(1)
  expect((await pending).ok).toBe(true)
})

test('a 429 asking to wait past the ceiling is returned at once', async () => {
  const { transport, requests } = fakeTransport(json(429, {}, { 'retry-after': '120' }))
  const { api } = setup(transport)
  const result = await api.get('/projects')
  expect(requests).toHaveLength(1)
  expect(!result.ok && result.error).toMatchObject({ kind: 429, message: 'Request failed. Review details and retry.' })
})

test('other errors are not retried', async () => {
  const { transport, requests } = fakeTransport(json(500, { title: 'Boom' }))
  const { api } = setup(transport)
  const result = await api.get('/projects')
  expect(requests).toHaveLength(1)
  expect(!result.ok && result.error).toMatchObject({
    kind: 500,
    message: 'The server encountered an error. Please retry or contact support if it continues.',
  })
})

test('a call past its timeout is aborted with TIMEOUT_ERROR and not retried', async () => {
  const { transport, requests } = fakeTransport(() => new Promise<Response>(() => {}))
  const { api } = setup(transport)
  const pending = api.get('/projects', { timeoutMs: 5000 })
  await vi.advanceTimersByTimeAsync(4999)
  expect(requests[0]!.signal.aborted).toBe(false)
  await vi.advanceTimersByTimeAsync(1)
  const result = await pending
  expect(requests[0]!.signal.aborted).toBe(true)
  expect(requests).toHaveLength(1)
  expect(!result.ok && result.error).toMatchObject({ kind: 'TIMEOUT_ERROR', message: 'The request timed out. Please try again.' })
})

test('the default timeout applies when a call sets none', async () => {
  const { transport } = fakeTransport(() => new Promise<Response>(() => {}))
  const { api } = setup(transport, { defaultTimeoutMs: 1000 })
  const pending = api.get('/projects')
  await vi.advanceTimersByTimeAsync(1000)
  const result = await pending
  expect(!result.ok && result.error.kind).toBe('TIMEOUT_ERROR')
})

test('a response in time is not touched by the timeout', async () => {
  const { transport } = fakeTransport(json(200, { fast: true }))
  const { api } = setup(transport, { defaultTimeoutMs: 1000 })
  const result = await api.get('/projects')
  await vi.advanceTimersByTimeAsync(2000)
  expect(result).toMatchObject({ ok: true, data: { fast: true } })
})

test('a call aborted by its caller is not retried', async () => {
  const { transport, requests } = fakeTransport(() => new Promise<Response>(() => {}))
  const { api } = setup(transport)
  const controller = new AbortController()
  const pending = api.get('/projects', { signal: controller.signal })
  await vi.advanceTimersByTimeAsync(0)
  controller.abort()
  const result = await pending
  await vi.advanceTimersByTimeAsync(5000)
  expect(requests).toHaveLength(1)
  expect(requests[0]!.signal.aborted).toBe(true)
  expect(!result.ok && result.error.kind).toBe('FETCH_ERROR')
})

test('a response that should be JSON but is not is a PARSING_ERROR', async () => {
  const { transport } = fakeTransport(new Response('<html>', { status: 200, headers: { 'content-type': 'text/html' } }))
  const { api } = setup(transport)
  const result = await api.get('/projects')
  expect(!result.ok && result.error).toMatchObject({ kind: 'PARSING_ERROR', status: 200, data: '<html>' })
})

test('401 refreshes the session once, then retries the call', async () => {
  const { transport, requests } = fakeTransport(json(401, {}), json(200, {}), json(200, { items: [] }))
  const { api, onSignedOut } = setup(transport)
  const result = await api.get('/items/outstanding')
  expect(requests.map(pathOf)).toEqual(['GET /api/items/outstanding', 'POST /auth/session/refresh', 'GET /api/items/outstanding'])
  expect(requests[1]!.headers.get('x-csrf-token')).toBe('csrf-token')
  expect(result).toMatchObject({ ok: true, data: { items: [] } })
  expect(onSignedOut).not.toHaveBeenCalled()
})

test('a failed refresh signs out and returns the 401', async () => {
  const { transport, requests } = fakeTransport(json(401, {}), json(401, {}))
  const { api, onSignedOut } = setup(transport)
  const result = await api.get('/items/outstanding')
  expect(requests).toHaveLength(2)
  expect(onSignedOut).toHaveBeenCalledExactlyOnceWith('unauthorized')
  expect(!result.ok && result.error).toMatchObject({ kind: 401, message: 'Session expired or unauthorized. Please sign in again.' })
})

test('a 401 after a successful refresh signs out without another refresh', async () => {
  const { transport, requests } = fakeTransport(json(401, {}), json(200, {}), json(401, {}))
  const { api, onSignedOut } = setup(transport)
  const result = await api.get('/projects')
  expect(requests).toHaveLength(3)
  expect(onSignedOut).toHaveBeenCalledExactlyOnceWith('unauthorized')
  expect(result.ok).toBe(false)
})

test('refreshes are throttled to one per 15 s per client', async () => {
  const { transport, requests } = fakeTransport(
    json(401, {}),
    json(200, {}),
    json(200, {}),
    // 14.999 s later: throttled, so no refresh; the call is tried once more and still answers 401.
    json(401, {}),
    json(401, {}),
    // 15 s after the first refresh: a refresh is allowed again.
    json(401, {}),
    json(200, {}),
    json(200, {}),
  )
  const { api, onSignedOut } = setup(transport)
  expect((await api.get('/projects')).ok).toBe(true)
  await vi.advanceTimersByTimeAsync(14_999)
  expect((await api.get('/projects')).ok).toBe(false)
  expect(onSignedOut).toHaveBeenCalledExactlyOnceWith('unauthorized')
  await vi.advanceTimersByTimeAsync(1)
  expect((await api.get('/projects')).ok).toBe(true)
  expect(requests.map(pathOf)).toEqual([
    'GET /api/projects',
    'POST /auth/session/refresh',
    'GET /api/projects',
    'GET /api/projects',
    'GET /api/projects',
    'GET /api/projects',
    'POST /auth/session/refresh',
    'GET /api/projects',
  ])
})

test('a throttled 401 whose retry succeeds does not sign out', async () => {
  const { transport, requests } = fakeTransport(json(401, {}), json(200, {}), json(200, {}), json(401, {}), json(200, { ok: 2 }))
  const { api, onSignedOut } = setup(transport)
  await api.get('/projects')
  await vi.advanceTimersByTimeAsync(1000)
  expect(await api.get('/projects')).toMatchObject({ ok: true, data: { ok: 2 } })
  expect(requests.filter((r) => r.url.endsWith('/auth/session/refresh'))).toHaveLength(1)
  expect(onSignedOut).not.toHaveBeenCalled()
})

test('calls failing with 401 together share one refresh', async () => {
  const requests: string[] = []
  let finishRefresh: (response: Response) => void = () => {}
  let projectCalls = 0
  const transport = async (request: Request): Promise<Response> => {
    requests.push(pathOf(request))
    if (request.url.endsWith('/auth/session/refresh')) return new Promise<Response>((resolve) => (finishRefresh = resolve))
    projectCalls += 1
    return projectCalls <= 2 ? json(401, {}) : json(200, {})
  }
  const { api, onSignedOut } = setup(transport)
  const both = Promise.all([api.get('/projects'), api.get('/projects')])
  await vi.advanceTimersByTimeAsync(0)
  finishRefresh(json(200, {}))
  const results = await both
  expect(results.map((r) => r.ok)).toEqual([true, true])
  expect(requests.filter((r) => r === 'POST /auth/session/refresh')).toHaveLength(1)
  expect(onSignedOut).not.toHaveBeenCalled()
})

test('no refresh for the logins, the refresh itself or signing out', async () => {
  const { transport, requests } = fakeTransport(json(401, {}), json(401, {}), json(401, {}), json(401, {}))
  const { api, onSignedOut } = setup(transport)
  await api.post('/auth/login', { email: 'a@b.c', password: 'x' })
  await api.post('/auth/admin/login', { email: 'a@b.c', password: 'x' })
  await api.post('/auth/session/refresh')
  await api.del('/auth/session')
  expect(requests.map(pathOf)).toEqual([
    'POST /auth/login',
    'POST /auth/admin/login',
    'POST /auth/session/refresh',
    'DELETE /auth/session',
  ])
  expect(onSignedOut).not.toHaveBeenCalled()
})

test('403 with the user-blocked code reports the correlation id and signs out', async () => {
  const { transport, requests } = fakeTransport(problem(403, 'KR_USER_BLOCKED', { correlationId: 'cid-blocked' }))
  const { api, onBlocked, onSignedOut } = setup(transport)
  const result = await api.get('/projects')
  expect(requests).toHaveLength(1)
  expect(onBlocked).toHaveBeenCalledExactlyOnceWith('cid-blocked')
  expect(onSignedOut).toHaveBeenCalledExactlyOnceWith('blocked')
  expect(!result.ok && result.error).toMatchObject({ kind: 403, correlationId: 'cid-blocked' })
})

test('the blocked correlation id falls back to the response header', async () => {
  const response = new Response(JSON.stringify({ status: 403, code: 'KR_USER_BLOCKED' }), {
    status: 403,
    headers: { 'content-type': 'application/problem+json', 'x-correlation-id': 'cid-header' },
  })
  const { transport } = fakeTransport(response)
  const { api, onBlocked } = setup(transport)
  await api.get('/projects')
  expect(onBlocked).toHaveBeenCalledExactlyOnceWith('cid-header')
})

test('the user-not-active code signs out, on 403 or 401, without a refresh', async () => {
  const { transport, requests } = fakeTransport(problem(403, 'KR_USER_NOT_ACTIVE'), problem(401, 'KR_USER_NOT_ACTIVE'))
  const { api, onSignedOut, onBlocked } = setup(transport)
  await api.get('/projects')
  await api.get('/projects')
  expect(requests).toHaveLength(2)
  expect(onSignedOut.mock.calls).toEqual([['not-active'], ['not-active']])
  expect(onBlocked).not.toHaveBeenCalled()
})

test('419 signs out as expired', async () => {
  const { transport, requests } = fakeTransport(json(419, { title: 'Session expired' }))
  const { api, onSignedOut } = setup(transport)
  const result = await api.post('/views', {})
  expect(requests).toHaveLength(1)
  expect(onSignedOut).toHaveBeenCalledExactlyOnceWith('expired')
  expect(!result.ok && result.error.kind).toBe(419)
})

test('403 with a KR-TENANT- code clears the tenant and retries once', async () => {
  const { transport, requests } = fakeTransport(problem(403, 'KR-TENANT-MISMATCH'), json(200, { id: 'p' }))
  const { api, onTenantCleared, onSignedOut } = setup(transport)
  const result = await api.get('/projects')
  expect(requests).toHaveLength(2)
  expect(onTenantCleared).toHaveBeenCalledOnce()
  expect(onSignedOut).not.toHaveBeenCalled()
  expect(result).toMatchObject({ ok: true, data: { id: 'p' } })
})

test('a second tenant error in one call is returned, not retried again', async () => {
  const { transport, requests } = fakeTransport(problem(403, 'KR-TENANT-MISMATCH'), problem(403, 'KR-TENANT-MISMATCH'))
  const { api, onTenantCleared } = setup(transport)
  const result = await api.get('/projects')
  expect(requests).toHaveLength(2)
  expect(onTenantCleared).toHaveBeenCalledOnce()
  expect(!result.ok && result.error).toMatchObject({ kind: 403, problem: { code: 'KR-TENANT-MISMATCH' } })
})

test('a plain 403 only reports the error', async () => {
  const { transport, requests } = fakeTransport(problem(403, 'KR_FORBIDDEN'))
  const { api, onSignedOut, onTenantCleared, onBlocked } = setup(transport)
  const result = await api.get('/admin/users')
  expect(requests).toHaveLength(1)
  expect(onSignedOut).not.toHaveBeenCalled()
  expect(onTenantCleared).not.toHaveBeenCalled()
  expect(onBlocked).not.toHaveBeenCalled()
  expect(!result.ok && result.error.message).toBe('You do not have permission to perform this action.')
})

test('a refresh answered with the blocked code signs out as blocked only', async () => {
  const { transport } = fakeTransport(json(401, {}), problem(403, 'KR_USER_BLOCKED', { correlationId: 'cid-b' }))
  const { api, onSignedOut, onBlocked } = setup(transport)
  await api.get('/projects')
  expect(onBlocked).toHaveBeenCalledExactlyOnceWith('cid-b')
  expect(onSignedOut).toHaveBeenCalledExactlyOnceWith('blocked')
})

test('the idempotency key survives the refresh retry', async () => {
  const { transport, requests } = fakeTransport(json(401, {}), json(200, {}), json(201, {}))
  const { api } = setup(transport)
  await api.post('/invites/claim', { token: 't' })
  const [first, , retry] = requests
  expect(first!.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/)
  expect(retry!.headers.get('idempotency-key')).toBe(first!.headers.get('idempotency-key'))
})

test('the CSRF token is read again for every attempt', async () => {
  let token = 'before'
  const { transport, requests } = fakeTransport(json(401, {}), json(200, {}), json(200, {}))
  const { api } = setup(transport, { getCsrfToken: () => token })
  const pending = api.post('/views', {})
  token = 'after'
  await pending
  expect(requests.map((r) => r.headers.get('x-csrf-token'))).toEqual(['before', 'after', 'after'])
})
