import { afterEach, expect, test, vi } from 'vitest'
import { createBrowserApi } from '~/lib/api/browser'

function stubBrowser(reply: () => Response, stored: Array<[string, string]> = [['sp.clientId', 'browser-client-1']]) {
  const requests: Request[] = []
  const assign = vi.fn()
  const store = new Map<string, string>(stored)
  vi.stubGlobal('window', { location: { origin: 'https://portal.test', pathname: '/items', search: '?x=1', assign } })
  vi.stubGlobal('document', { cookie: 'sp_csrf=browser.mac; sp_cid=server-client-9; other=1' })
  vi.stubGlobal('navigator', { userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64)' })
  vi.stubGlobal('localStorage', { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => store.set(k, v) })
  vi.stubGlobal('fetch', async (request: Request) => {
    requests.push(request)
    return reply()
  })
  return { requests, assign }
}

afterEach(() => {
  vi.unstubAllGlobals()
})

test('the browser client uses fetch, the CSRF cookie, the stored client id and the OS', async () => {
  const { requests } = stubBrowser(() => new Response('{}', { headers: { 'content-type': 'application/json' } }))
  await createBrowserApi().post('/views', {})
  const request = requests[0]!
  expect(request.url).toBe('https://portal.test/api/views')
  expect(request.headers.get('x-csrf-token')).toBe('browser.mac')
  expect(request.headers.get('x-client-id')).toBe('browser-client-1')
  expect(request.headers.get('x-client-os')).toBe('Windows')
})

test('without a stored id the browser adopts the server client id cookie', async () => {
  const { requests } = stubBrowser(() => new Response('{}', { headers: { 'content-type': 'application/json' } }), [])
  await createBrowserApi().get('/projects')
  expect(requests[0]!.headers.get('x-client-id')).toBe('server-client-9')
})

test('a blocked user is sent to /auth/blocked with the correlation id', async () => {
  const { assign } = stubBrowser(
    () =>
      new Response(JSON.stringify({ status: 403, code: 'KR_USER_BLOCKED', correlationId: 'cid 7' }), {
        status: 403,
        headers: { 'content-type': 'application/problem+json' },
      }),
  )
  await createBrowserApi().get('/projects')
  expect(assign).toHaveBeenCalledExactlyOnceWith('/auth/blocked?cid=cid%207')
})

test('another sign-out goes to the login page, back to where the user was', async () => {
  const { assign } = stubBrowser(() => new Response('{}', { status: 419, headers: { 'content-type': 'application/json' } }))
  await createBrowserApi().get('/projects')
  expect(assign).toHaveBeenCalledExactlyOnceWith('/auth/login?redirectTo=%2Fitems%3Fx%3D1')
})
