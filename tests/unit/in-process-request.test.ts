import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { expect, test } from 'vitest'
import { createApiClient } from '~/lib/api/client'
import { inProcessRequest } from '~/lib/api/in-process-request'
import type { RequestParts } from '~/lib/api/types'

// app/lib/api/in-process-request.ts: the light request of a page's in-process calls must read as a
// web Request to whatever takes it (the backend's Hono app, the remote transport, the tests).

function parts(body: BodyInit | undefined, method = 'POST'): RequestParts & { signalsMade: () => number } {
  let made = 0
  const controller = new AbortController()
  const headers = new Headers({ accept: 'application/json' })
  if (typeof body === 'string') headers.set('content-type', 'application/json')
  return {
    method,
    headers,
    body,
    signal: () => {
      made += 1
      return controller.signal
    },
    signalsMade: () => made,
  }
}

test('a call without a body reads as a Request: method, address, headers, no body; no signal made unless asked', async () => {
  const p = parts(undefined, 'GET')
  const request = inProcessRequest('https://portal.test/api/items/?limit=5', p)
  expect(request).toBeInstanceOf(Request)
  expect([request.method, request.url, request.headers.get('accept')]).toEqual(['GET', 'https://portal.test/api/items/?limit=5', 'application/json'])
  expect([request.body, request.bodyUsed, await request.text()]).toEqual([null, false, ''])
  expect(p.signalsMade()).toBe(0)
  expect(request.signal.aborted).toBe(false)
  expect(p.signalsMade()).toBe(1)
  // What it does not answer itself, the web Request does.
  expect([request.clone().method, request.clone().url, request.redirect]).toEqual(['GET', 'https://portal.test/api/items/?limit=5', 'follow'])
})

test('a call with a body is a web Request, with the content type undici gives a form', async () => {
  const json = inProcessRequest('https://portal.test/api/x', parts('{"a":1}'))
  expect(await new Request(json).json()).toEqual({ a: 1 })
  const form = new FormData()
  form.set('title', 'Door')
  const request = inProcessRequest('https://portal.test/api/x', parts(form))
  expect(request.headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/)
  expect((await request.formData()).get('title')).toBe('Door')
})

test('a Hono app with a body limit answers both as it answers a web Request', async () => {
  const app = new Hono()
  app.use(bodyLimit({ maxSize: 1024 }))
  app.get('/api/read', (c) => c.json({ q: c.req.query('q'), accept: c.req.header('accept') }))
  app.post('/api/echo', async (c) => c.json({ got: await c.req.json() }, 201))
  const p = parts(undefined, 'GET')
  const read = await app.fetch(inProcessRequest('https://portal.test/api/read?q=7', p))
  expect([read.status, await read.json()]).toEqual([200, { q: '7', accept: 'application/json' }])
  expect(p.signalsMade()).toBe(0)
  const echoed = await app.fetch(inProcessRequest('https://portal.test/api/echo', parts('{"n":1}')))
  expect([echoed.status, await echoed.json()]).toEqual([201, { got: { n: 1 } }])
})

test('an attempt that timed out before anything asked for its signal hands out an aborted one', async () => {
  let seen: Request | undefined
  const api = createApiClient({
    transport: (request) => {
      seen = request
      return new Promise<Response>(() => {})
    },
    createRequest: inProcessRequest,
    origin: 'https://portal.test',
    getCsrfToken: () => undefined,
    clientId: 'client-1',
    os: 'linux',
    sleep: async () => {},
  })
  const result = await api.get('/api/projects/', { timeoutMs: 5 })
  expect(result.ok).toBe(false)
  expect(seen?.signal.aborted).toBe(true)
  expect((seen?.signal.reason as DOMException).name).toBe('TimeoutError')
})
