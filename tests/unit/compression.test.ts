import { brotliDecompressSync, createBrotliDecompress, gunzipSync } from 'node:zlib'
import { Hono } from 'hono'
import { expect, test } from 'vitest'
import { chooseEncoding, compression } from '#server/web/compression'

const listOf = (length: number) => ({ items: Array.from({ length }, (_, i) => ({ id: i, title: `Item ${i}`, status: i % 3 ? 'open' : 'closed' })) })
/** Above the size compressed at once on the event loop (about 100 KB): it goes to zlib's pool. */
const big = listOf(2000)
/** A page of a list (about 10 KB): compressed at once. */
const list = listOf(200)

function app(): Hono {
  const hono = new Hono()
  hono.use(compression())
  hono.get('/big', (c) => c.json(big))
  hono.get('/list', (c) => c.json(list))
  hono.get('/small-json', (c) => c.json({ ok: true }))
  hono.get('/small', (c) => c.body('{"ok":true}', 200, { 'content-type': 'application/json', 'content-length': '11' }))
  hono.get('/image', (c) => c.body(new Uint8Array(4096), 200, { 'content-type': 'image/png' }))
  hono.get('/no-transform', (c) => c.json(big, 200, { 'cache-control': 'no-transform' }))
  return hono
}

test('Brotli when accepted, else gzip, else none; Vary names Accept-Encoding; the body decodes to the same JSON', async () => {
  const br = await app().request('/big', { headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } })
  expect(br.headers.get('content-encoding')).toBe('br')
  expect(br.headers.get('vary')).toMatch(/accept-encoding/i)
  // JSON is compressed in one piece and keeps a Content-Length (a page streams without one, below).
  const brBytes = Buffer.from(await br.arrayBuffer())
  expect(Number(br.headers.get('content-length'))).toBe(brBytes.length)
  expect(JSON.parse(brotliDecompressSync(brBytes).toString('utf8'))).toEqual(big)

  const gz = await app().request('/big', { headers: { 'accept-encoding': 'gzip' } })
  expect(gz.headers.get('content-encoding')).toBe('gzip')
  const gzBytes = Buffer.from(await gz.arrayBuffer())
  expect(JSON.parse(gunzipSync(gzBytes).toString('utf8'))).toEqual(big)
  expect(brBytes.length).toBeLessThan(gzBytes.length)

  const plain = await app().request('/big')
  expect(plain.headers.get('content-encoding')).toBeNull()
  expect(await plain.json()).toEqual(big)
})

test('a page of a list (compressed at once, not in the pool) decodes the same in both encodings and keeps its Content-Length', async () => {
  expect(JSON.stringify(list).length).toBeGreaterThan(8_000)
  expect(JSON.stringify(big).length).toBeGreaterThan(64 * 1024)
  const br = await app().request('/list', { headers: { 'accept-encoding': 'br' } })
  const brBytes = Buffer.from(await br.arrayBuffer())
  expect(br.headers.get('content-encoding')).toBe('br')
  expect(Number(br.headers.get('content-length'))).toBe(brBytes.length)
  expect(JSON.parse(brotliDecompressSync(brBytes).toString('utf8'))).toEqual(list)
  const gz = await app().request('/list', { headers: { 'accept-encoding': 'gzip' } })
  const gzBytes = Buffer.from(await gz.arrayBuffer())
  expect(Number(gz.headers.get('content-length'))).toBe(gzBytes.length)
  expect(JSON.parse(gunzipSync(gzBytes).toString('utf8'))).toEqual(list)
})

test('answers under 1 KB (by Content-Length), images, no-transform and HEAD are left alone', async () => {
  const headers = { 'accept-encoding': 'br, gzip' }
  expect((await app().request('/small', { headers })).headers.get('content-encoding')).toBeNull()
  const smallJson = await app().request('/small-json', { headers })
  expect(smallJson.headers.get('content-encoding')).toBeNull()
  expect(await smallJson.json()).toEqual({ ok: true })
  expect((await app().request('/image', { headers })).headers.get('content-encoding')).toBeNull()
  expect((await app().request('/no-transform', { headers })).headers.get('content-encoding')).toBeNull()
  expect((await app().request('/big', { method: 'HEAD', headers })).headers.get('content-encoding')).toBeNull()
})

test('q-values choose: gzip over br when br has the lower q; q=0 refuses; a wildcard allows both', () => {
  expect(chooseEncoding('br;q=0.5, gzip')).toBe('gzip')
  expect(chooseEncoding('br;q=0, gzip;q=0')).toBeUndefined()
  expect(chooseEncoding('*')).toBe('br')
  expect(chooseEncoding('identity')).toBeUndefined()
  expect(chooseEncoding(undefined)).toBeUndefined()
})

test('a streamed page reaches the client chunk by chunk: the first part decodes before the rest is written', async () => {
  let release: () => void = () => {}
  const held = new Promise<void>((resolve) => (release = resolve))
  const first = `<!doctype html><head><style>${'a{}'.repeat(600)}</style></head>`
  const hono = new Hono()
  hono.use(compression())
  hono.get('/page', () => {
    const encoder = new TextEncoder()
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(encoder.encode(first))
        await held
        controller.enqueue(encoder.encode('<body>rest</body>'))
        controller.close()
      },
    })
    return new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8' } })
  })
  const response = await hono.request('/page', { headers: { 'accept-encoding': 'br' } })
  expect(response.headers.get('content-encoding')).toBe('br')
  const reader = (response.body as ReadableStream<Uint8Array>).getReader()
  const decoder = createBrotliDecompress()
  let text = ''
  decoder.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')))
  // Read until the first part has decoded, while the rest is still held back.
  while (text.length < first.length) {
    const { value, done } = await reader.read()
    expect(done).toBe(false)
    await new Promise<void>((resolve) => decoder.write(value, () => setImmediate(resolve)))
  }
  expect(text).toBe(first)
  release()
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    decoder.write(value)
  }
  await new Promise<void>((resolve) => decoder.end(() => setImmediate(resolve)))
  expect(text).toBe(`${first}<body>rest</body>`)
})

test('a client that goes away mid-answer: the compressor stops quietly (nothing is enqueued into the closed stream, no uncaught error)', async () => {
  const hono = new Hono()
  hono.use(compression())
  let pulled = 0
  hono.get('/long', () => {
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        pulled++
        // Text that barely compresses, so each chunk makes output.
        controller.enqueue(new TextEncoder().encode(Array.from({ length: 4096 }, () => Math.random().toString(36)).join('')))
        await new Promise((resolve) => setTimeout(resolve, 1))
        if (pulled > 200) controller.close()
      },
    })
    // A streamed download (the audit log's CSV streams so); JSON is compressed whole.
    return new Response(body, { headers: { 'content-type': 'text/csv; charset=utf-8' } })
  })
  const response = await hono.request('/long', { headers: { 'accept-encoding': 'gzip' } })
  const reader = (response.body as ReadableStream<Uint8Array>).getReader()
  await reader.read()
  await reader.cancel()
  // Let the source and zlib run on after the cancel; an enqueue into the cancelled stream would throw here.
  await new Promise((resolve) => setTimeout(resolve, 100))
  expect(pulled).toBeLessThan(200)
})
