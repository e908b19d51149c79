import { gunzipSync } from 'node:zlib'
import { getRequestListener } from '@hono/node-server'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keptTextAnswer, replaceAnswer, setAnswerHeader, wholeBody } from '#server/http/whole-answer'
import { compression } from '#server/web/compression'

// server/http/whole-answer.ts against the @hono/node-server the lockfile holds: its light Response
// (what a server process's global Response is) keeps a string or bytes body whole through the
// helpers. If a new version keeps it otherwise, these fail: the helpers still answer right (they
// fall back to reading the body), only slower.
describe('answers kept whole', () => {
  const undiciResponse = globalThis.Response
  let Light: typeof Response

  beforeAll(() => {
    getRequestListener(() => new Response(null))
    Light = globalThis.Response
    expect(Light).not.toBe(undiciResponse)
  })
  afterAll(() => {
    Object.defineProperty(globalThis, 'Response', { value: undiciResponse })
  })

  it('reads the body the light Response holds: a string, bytes, none; not a stream or undici’s own', () => {
    expect(wholeBody(new Light('{"a":1}', { headers: { 'content-type': 'application/json' } }))).toBe('{"a":1}')
    const bytes = new Uint8Array([1, 2, 3])
    expect(wholeBody(new Light(bytes))).toBe(bytes)
    expect(wholeBody(new Light(null, { status: 204 }))).toBeNull()
    expect(wholeBody(new Light(new ReadableStream()))).toBeUndefined()
    expect(wholeBody(new undiciResponse('text'))).toBeUndefined()
    // Once something has read it as undici's Response, it is no longer held whole.
    const read = new Light('text')
    void read.body
    expect(wholeBody(read)).toBeUndefined()
  })

  it('sets headers in place on an answer already made, and copies one whose headers cannot change', async () => {
    const hono = new Hono()
    hono.use(async (c, next) => {
      await next()
      setAnswerHeader(c, 'x-one', '1')
      setAnswerHeader(c, 'vary', 'Cookie', { append: true })
    })
    hono.get('/json', (c) => c.json({ ok: true }, 200, { vary: 'Accept' }))
    hono.get('/fetched', () => Response.redirect('http://localhost/elsewhere', 302))

    const json = await hono.request('/json')
    expect(wholeBody(json)).toBe('{"ok":true}')
    expect(json.headers.get('x-one')).toBe('1')
    expect(json.headers.get('vary')).toBe('Accept, Cookie')

    // Response.redirect's headers are immutable, as a fetch() answer's are.
    const fetched = await hono.request('/fetched')
    expect(fetched.status).toBe(302)
    expect(fetched.headers.get('location')).toBe('http://localhost/elsewhere')
    expect(fetched.headers.get('x-one')).toBe('1')
  })

  it('replaces an answer as it is, its own headers only', async () => {
    const hono = new Hono()
    hono.use(async (c, next) => {
      await next()
      replaceAnswer(c, new Response('second', { status: 201, headers: { 'x-second': 'yes' } }))
    })
    hono.get('/', (c) => c.text('first', 200, { 'x-first': 'yes' }))
    const answer = await hono.request('/')
    expect(wholeBody(answer)).toBe('second')
    expect(answer.status).toBe(201)
    expect(answer.headers.get('x-second')).toBe('yes')
    expect(answer.headers.get('x-first')).toBeNull()
  })

  it('compresses a JSON answer whole, as the same bytes the stream-read path gives, and keeps it whole', async () => {
    const big = { items: Array.from({ length: 500 }, (_, i) => ({ id: i, title: `Item ${i}` })) }
    const hono = new Hono()
    hono.use(compression())
    hono.get('/big', (c) => c.json(big, 200, { etag: '"v1"' }))
    hono.get('/small', (c) => c.json({ ok: true }))

    const answer = await hono.request('/big', { headers: { 'accept-encoding': 'gzip' } })
    const held = wholeBody(answer)
    expect(held).toBeInstanceOf(Uint8Array)
    expect(answer.headers.get('content-encoding')).toBe('gzip')
    expect(answer.headers.get('vary')).toBe('Accept-Encoding')
    expect(answer.headers.get('etag')).toBe('W/"v1"')
    expect(Number(answer.headers.get('content-length'))).toBe((held as Uint8Array).length)
    expect(JSON.parse(gunzipSync(held as Uint8Array).toString('utf8'))).toEqual(big)

    const small = await hono.request('/small', { headers: { 'accept-encoding': 'gzip' } })
    expect(wholeBody(small)).toBe('{"ok":true}')
    expect(small.headers.get('content-encoding')).toBeNull()
    expect(small.headers.get('vary')).toBe('Accept-Encoding')
  })

  it('hands a kept text over as it is, once, with the status and headers it was given', async () => {
    const answer = keptTextAnswer('{"items":[1,2]}', { status: 201, headers: new Headers({ 'content-type': 'application/json', 'x-a': 'b' }) })
    expect(answer).toBeInstanceOf(Light)
    expect([answer.status, answer.ok, answer.headers.get('x-a')]).toEqual([201, true, 'b'])
    expect(answer.bodyUsed).toBe(false)
    expect(await answer.json()).toEqual({ items: [1, 2] })
    expect(answer.bodyUsed).toBe(true)
    await expect(answer.text()).rejects.toThrow(TypeError)
    // A copy made before the read is whole, and reads as a Response does.
    const other = keptTextAnswer('plain', { status: 200 })
    expect(await other.clone().text()).toBe('plain')
    expect(await other.text()).toBe('plain')
  })
})
