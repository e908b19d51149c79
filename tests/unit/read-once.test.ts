import { expect, test } from 'vitest'
import { readOnce } from '#server/web/front-door'

/**
 * A page's loaders asking the same thing get one call's answer (server/web/front-door.ts readOnce):
 * each caller a Response of its own, readable, with the answer's status and headers.
 */

function counting(answer: () => Response) {
  const calls: string[] = []
  const transport = readOnce(async (request) => {
    calls.push(`${request.method} ${new URL(request.url).pathname}`)
    return answer()
  })
  return { calls, transport }
}

const get = (path: string, cookie = 'sp_session=a') => new Request(`http://portal${path}`, { headers: { cookie, accept: 'application/json' } })

test('a JSON answer is asked once and each caller reads all of it, Set-Cookie included', async () => {
  const { calls, transport } = counting(() => {
    const headers = new Headers({ 'content-type': 'application/json' })
    headers.append('set-cookie', 'a=1; Path=/')
    headers.append('set-cookie', 'b=2; Path=/')
    return new Response(JSON.stringify({ views: [1, 2] }), { status: 200, statusText: 'OK', headers })
  })
  const [first, second] = await Promise.all([transport(get('/api/views')), transport(get('/api/views'))])
  const third = await transport(get('/api/views'))
  expect(calls).toEqual(['GET /api/views'])
  for (const response of [first, second, third]) {
    expect(response?.status).toBe(200)
    expect(response?.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/'])
    expect(await response?.json()).toEqual({ views: [1, 2] })
  }
})

test('another session, an unsafe call, or an answer that is not a success asks again', async () => {
  let status = 200
  const { calls, transport } = counting(() => Response.json({ status }, { status }))
  await transport(get('/api/session', 'sp_session=a'))
  await transport(get('/api/session', 'sp_session=b'))
  expect(calls).toHaveLength(2)
  await transport(new Request('http://portal/api/items', { method: 'POST', body: '{}' }))
  await transport(get('/api/session', 'sp_session=a'))
  expect(calls).toHaveLength(4)
  status = 503
  expect((await transport(get('/api/projects'))).status).toBe(503)
  expect((await transport(get('/api/projects'))).status).toBe(503)
  expect(calls.filter((call) => call === 'GET /api/projects')).toHaveLength(2)
})

test('an answer that is not JSON (a file) is cloned for each caller, never read on the way', async () => {
  const bytes = new Uint8Array([137, 80, 78, 71, 1, 2, 3])
  const { calls, transport } = counting(() => new Response(bytes, { headers: { 'content-type': 'image/png' } }))
  const first = await transport(get('/api/photos/p/thumb'))
  const second = await transport(get('/api/photos/p/thumb'))
  expect(calls).toHaveLength(1)
  expect(new Uint8Array(await first.arrayBuffer())).toEqual(bytes)
  expect(new Uint8Array(await second.arrayBuffer())).toEqual(bytes)
})
