import type { AppLoadContext } from 'react-router'
import { expect, test } from 'vitest'
import { createServerApi } from '~/lib/api.server'

type Reply = Response | ((request: Request) => Response)

function fakeBackend(...replies: Reply[]) {
  const requests: Request[] = []
  const backend = async (request: Request): Promise<Response> => {
    requests.push(request)
    const reply = replies.shift()
    if (!reply) throw new Error(`unexpected request ${request.method} ${request.url}`)
    return typeof reply === 'function' ? reply(request) : reply
  }
  const silent = { info() {}, warn() {}, error() {} }
  const context: AppLoadContext = { backend, cspNonce: 'nonce', remoteAddress: '203.0.113.9', oidcEnabled: false, logger: silent }
  return { context, requests }
}

function json(status: number, body: unknown, setCookies: string[] = [], headers: Record<string, string> = {}): Response {
  const h = new Headers({ 'content-type': 'application/json', ...headers })
  for (const line of setCookies) h.append('set-cookie', line)
  return new Response(JSON.stringify(body), { status, headers: h })
}

const UA = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126 Mobile'

function pageRequest(cookie: string, init: RequestInit = {}): Request {
  return new Request('https://portal.test/dashboard?x=1', {
    ...init,
    headers: {
      cookie,
      'user-agent': UA,
      'accept-language': 'de-CH,de;q=0.9',
      origin: 'https://portal.test',
      'sec-fetch-site': 'same-origin',
      ...(init.headers as Record<string, string> | undefined),
    },
  })
}

test('calls go through context.backend on the page origin, forwarding the browser headers', async () => {
  const { context, requests } = fakeBackend(json(200, {}))
  const { api, responseHeaders } = createServerApi(pageRequest('sp_session=s1; sp_cid=client-abcdef12'), context)
  await api.get('/auth/session')
  const sent = requests[0]!
  expect(sent.url).toBe('https://portal.test/auth/session')
  expect(sent.headers.get('cookie')).toBe('sp_session=s1; sp_cid=client-abcdef12')
  expect(sent.headers.get('user-agent')).toBe(UA)
  expect(sent.headers.get('accept-language')).toBe('de-CH,de;q=0.9')
  expect(sent.headers.get('origin')).toBe('https://portal.test')
  expect(sent.headers.get('sec-fetch-site')).toBe('same-origin')
  expect(sent.headers.get('x-client-id')).toBe('client-abcdef12')
  expect(sent.headers.get('x-client-os')).toBe('Android')
  expect(sent.headers.get('x-client-version')).toBe('0.1.0')
  expect(sent.headers.get('x-requested-with')).toBe('XMLHttpRequest')
  expect(responseHeaders.getSetCookie()).toEqual([])
})

test('a missing or short client id cookie is replaced and set for a year', async () => {
  for (const cookie of ['', 'sp_cid=short']) {
    const { context, requests } = fakeBackend(json(200, {}))
    const { api, responseHeaders } = createServerApi(pageRequest(cookie), context)
    await api.get('/projects')
    const id = requests[0]!.headers.get('x-client-id')
    expect(id).toMatch(/^[A-Za-z0-9]{8,36}$/)
    expect(responseHeaders.getSetCookie()).toEqual([`sp_cid=${id}; Path=/; Max-Age=31536000; SameSite=Lax; Secure`])
  }
})

test('every Set-Cookie of the backend is collected, in order', async () => {
  const { context } = fakeBackend(
    json(200, {}, ['sp_session=s2; Path=/; HttpOnly', 'sp_csrf=t2.mac; Path=/']),
    json(200, {}, ['sp_pref=1; Path=/']),
  )
  const { api, responseHeaders } = createServerApi(pageRequest('sp_cid=client-abcdef12'), context)
  await api.get('/projects')
  await api.get('/projects')
  expect(responseHeaders.getSetCookie()).toEqual(['sp_session=s2; Path=/; HttpOnly', 'sp_csrf=t2.mac; Path=/', 'sp_pref=1; Path=/'])
})

test('a login followed by a session fetch carries the new session cookie', async () => {
  const { context, requests } = fakeBackend(
    json(200, {}, ['sp_session=new; Path=/; HttpOnly', 'sp_csrf=new.mac; Path=/']),
    json(200, { userId: 'u1' }),
  )
  const { api, csrfToken } = createServerApi(pageRequest('sp_session=old; sp_csrf=old.mac; sp_cid=client-abcdef12'), context)
  await api.post('/auth/login', { email: 'a@b.c', password: 'pw' })
  await api.get('/auth/session')
  expect(requests[0]!.headers.get('x-csrf-token')).toBe('old.mac')
  expect(requests[1]!.headers.get('cookie')).toBe('sp_session=new; sp_csrf=new.mac; sp_cid=client-abcdef12')
  expect(csrfToken()).toBe('new.mac')
})

test('a deleted cookie is no longer sent', async () => {
  const { context, requests } = fakeBackend(
    json(200, {}, ['sp_session=; Path=/; Max-Age=0', 'sp_csrf=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT']),
    json(200, {}),
  )
  const { api, csrfToken } = createServerApi(pageRequest('sp_session=s1; sp_csrf=t1.mac'), context)
  await api.del('/auth/session')
  await api.get('/auth/session')
  expect(requests[1]!.headers.has('cookie')).toBe(false)
  expect(csrfToken()).toBeUndefined()
})

test('the CSRF token comes from sp_csrf or __Host-sp_csrf and goes on unsafe calls', async () => {
  for (const [cookie, token] of [
    ['sp_csrf=plain.mac', 'plain.mac'],
    ['__Host-sp_csrf=host.mac', 'host.mac'],
  ] as const) {
    const { context, requests } = fakeBackend(json(200, {}), json(200, {}))
    const { api, csrfToken } = createServerApi(pageRequest(cookie), context)
    expect(csrfToken()).toBe(token)
    await api.get('/projects')
    await api.post('/views', {})
    expect(requests[0]!.headers.has('x-csrf-token')).toBe(false)
    expect(requests[1]!.headers.get('x-csrf-token')).toBe(token)
  }
})

test('the token the backend echoes becomes the latest known', async () => {
  const { context, requests } = fakeBackend(json(200, {}, [], { 'x-csrf-token': 'echo.mac' }), json(200, {}))
  const { api, csrfToken } = createServerApi(pageRequest(''), context)
  expect(csrfToken()).toBeUndefined()
  await api.get('/auth/session')
  expect(csrfToken()).toBe('echo.mac')
  await api.post('/views', {})
  expect(requests[1]!.headers.get('x-csrf-token')).toBe('echo.mac')
})

test('with a submitted form, its csrf field is the token, not the cookie', async () => {
  const form = new FormData()
  form.set('csrf', 'form.mac')
  const { context, requests } = fakeBackend(json(200, {}))
  const { api } = createServerApi(pageRequest('sp_csrf=cookie.mac', { method: 'POST' }), context, { form })
  await api.post('/views', {})
  expect(requests[0]!.headers.get('x-csrf-token')).toBe('form.mac')
})

test('a form without the csrf field sends no token, whatever the cookie holds', async () => {
  const { context, requests } = fakeBackend(json(200, {}, [], { 'x-csrf-token': 'cookie.mac' }), json(403, {}))
  const { api, csrfToken } = createServerApi(pageRequest('sp_csrf=cookie.mac', { method: 'POST' }), context, { form: new FormData() })
  await api.get('/projects')
  await api.post('/views', {})
  expect(requests[1]!.headers.has('x-csrf-token')).toBe(false)
  expect(csrfToken()).toBe('cookie.mac')
})

test('after an accepted unsafe call, a token the backend issues replaces the form token', async () => {
  const form = new FormData()
  form.set('csrf', 'anon.mac')
  const { context, requests } = fakeBackend(json(200, {}, ['sp_csrf=session.mac; Path=/']), json(200, {}))
  const { api } = createServerApi(pageRequest('sp_csrf=anon.mac', { method: 'POST' }), context, { form })
  await api.post('/auth/login', {})
  await api.post('/auth/devices/register', {})
  expect(requests.map((r) => r.headers.get('x-csrf-token'))).toEqual(['anon.mac', 'session.mac'])
})

test('sign-outs and blocks are recorded, not thrown', async () => {
  const blocked = new Response(JSON.stringify({ status: 403, code: 'KR_USER_BLOCKED', correlationId: 'cid-9' }), {
    status: 403,
    headers: { 'content-type': 'application/problem+json' },
  })
  const { context } = fakeBackend(blocked)
  const server = createServerApi(pageRequest(''), context)
  expect(server.signedOut()).toBeUndefined()
  const result = await server.api.get('/projects')
  expect(result.ok).toBe(false)
  expect(server.signedOut()).toBe('blocked')
  expect(server.blockedCorrelationId()).toBe('cid-9')
})

test('a 419 and a tenant error are recorded too', async () => {
  const tenant = new Response(JSON.stringify({ status: 403, code: 'KR-TENANT-GONE' }), {
    status: 403,
    headers: { 'content-type': 'application/problem+json' },
  })
  const { context } = fakeBackend(tenant, json(419, {}))
  const server = createServerApi(pageRequest(''), context)
  await server.api.get('/projects')
  expect(server.tenantCleared()).toBe(true)
  expect(server.signedOut()).toBe('expired')
})
