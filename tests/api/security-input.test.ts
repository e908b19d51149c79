import { Writable } from 'node:stream'
import { DrizzleQueryError } from 'drizzle-orm/errors'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createLogger } from '#server/http/logger'
import type { OpenApiDocument } from '#server/http/openapi'
import { client, expectProblem, uniqueEmail } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { createItem, createOrg } from '#tests/helpers/reporting-b'

/** Issue 17 §1, §4 and §5: body limits, odd input, logs and response headers. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend()
})

afterAll(async () => {
  await t.close()
})

const MB = 1024 * 1024

/** A body of `total` bytes of JSON-looking text, made as it is read, counting what the server pulled. */
function streamedBody(total: number) {
  const chunk = new TextEncoder().encode('x'.repeat(64 * 1024))
  const counter = { pulled: 0 }
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"title":"'))
    },
    pull(controller) {
      if (counter.pulled >= total) return controller.close()
      counter.pulled += chunk.length
      controller.enqueue(chunk)
    },
  })
  return { stream, counter }
}

test('a 100 MB body is refused with 413 after at most the limit is read, and memory stays flat', async () => {
  const { writer } = await createOrg(t)
  const before = process.memoryUsage().rss
  for (const [path, c] of [
    ['/auth/register-self', client(t)],
    ['/auth/login', client(t)],
    ['/api/projects', writer],
  ] as const) {
    const { stream, counter } = streamedBody(100 * MB)
    const response = await c.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: stream, duplex: 'half' } as RequestInit)
    const problem = await expectProblem(response, 413, 'KR_BODY_TOO_LARGE')
    expect(problem.maxBytes).toBe(MB)
    // Cut at the limit while streaming: what was pulled is the limit plus the stream's read-ahead.
    expect(counter.pulled, path).toBeLessThan(2 * MB)
  }
  expect(process.memoryUsage().rss - before).toBeLessThan(64 * MB)
})

test('a declared Content-Length over the limit is refused before a byte of the body is read', async () => {
  const { stream, counter } = streamedBody(100 * MB)
  const response = await client(t).request('/auth/register-self', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': String(100 * MB) },
    body: stream,
    duplex: 'half',
  } as RequestInit)
  await expectProblem(response, 413, 'KR_BODY_TOO_LARGE')
  expect(counter.pulled).toBeLessThanOrEqual(64 * 1024 * 2)
})

test('a body just under the limit is read and validated as usual (the field limit answers, not the body limit)', async () => {
  const { writer } = await createOrg(t)
  const response = await writer.post('/api/projects', { title: 'x'.repeat(MB - 100) })
  const problem = await expectProblem(response, 400, 'KR_VALIDATION')
  expect(problem.errors?.title).toBeDefined()
})

test('a NUL or another control character in any text is a field error, never a 500', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId, { title: 'Leak at grid C4' })
  const cases: Array<[string, string, unknown, string]> = [
    ['POST', '/api/projects', { title: 'nul\u0000byte' }, 'title'],
    ['PATCH', `/api/items/${item.id}`, { description: 'bell\u0007' }, 'description'],
    ['POST', '/api/views', { name: 'x', scope: 'personal', query: 'a=b', extra: { deep: ['\u001b[31m'] } }, 'extra.deep.0'],
  ]
  for (const [method, path, json, field] of cases) {
    const problem = await expectProblem(await org.writer.request(path, { method, json }), 400, 'KR_VALIDATION')
    expect(problem.errors?.[field], `${method} ${path}`).toEqual(['Remove control characters (such as NUL) from this text.'])
  }
  for (const path of ['/auth/login', '/auth/password/reset/request']) {
    const problem = await expectProblem(await client(t).post(path, { email: `nul\u0000${uniqueEmail()}`, password: 'whatever' }), 400, 'KR_VALIDATION')
    expect(problem.errors?.email, path).toBeDefined()
  }
  const query = await org.writer.get('/api/items/outstanding?packageKey=a%00b')
  expect((await expectProblem(query, 400, 'KR_VALIDATION')).errors?.packageKey).toBeDefined()
  // Field names from the request are names, never the prototype of the errors object.
  for (const name of ['valueOf', '__proto__', 'constructor']) {
    const odd = await org.writer.get(`/api/items/outstanding?${name}=a%00b`)
    expect((await expectProblem(odd, 400, 'KR_VALIDATION')).errors?.[name], name).toBeDefined()
  }
  const param = await org.writer.get('/api/items/%00')
  await expectProblem(param, 400, 'KR_VALIDATION')
  const surrogate = await expectProblem(await org.writer.request(`/api/items/${item.id}`, { method: 'PATCH', json: { description: 'half \ud800 pair' } }), 400, 'KR_VALIDATION')
  expect(surrogate.errors?.description).toEqual(['This text has a broken character (half of an emoji or symbol): type it again.'])
  // Tab, line breaks and whole emoji are text: a textarea posts CR LF.
  const fine = await org.writer.request(`/api/items/${item.id}`, { method: 'PATCH', json: { description: 'Line one\r\nLine two\tindented 👷' } })
  expect(fine.status).toBe(200)
})

test('a logged query error names the SQL but never the values it ran with', () => {
  const lines: string[] = []
  const logger = createLogger('info', new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString()), done()) }))
  const cause = Object.assign(new Error('duplicate key value violates unique constraint "users_email_key"'), {
    code: '23505',
    detail: 'Key (email)=(secret.person@example.com) already exists.',
  })
  logger.error({ err: new DrizzleQueryError('insert into users (email) values ($1)', ['secret.person@example.com'], cause) }, 'unhandled error')
  const line = lines.join('')
  expect(line).toContain('insert into users (email) values ($1)')
  expect(line).toContain('23505')
  expect(line).not.toContain('secret.person@example.com')
})

test('every GET of the contract answers with nosniff, and private data with Cache-Control private or no-store', async () => {
  const org = await createOrg(t)
  const document = (await (await t.fetch('/api/openapi.json')).json()) as OpenApiDocument
  const someId = '0190d7f1-5a3e-7c2b-9d4e-1f2a3b4c5d6e'
  const gets = Object.entries(document.paths).filter(([, methods]) => methods.get)
  expect(gets.length).toBeGreaterThan(15)
  for (const [path, methods] of gets) {
    const url = path.replace(/\{[^}]+\}/g, someId)
    for (const c of [org.writer, client(t)]) {
      const response = await c.get(url)
      expect(response.headers.get('x-content-type-options'), `GET ${url}`).toBe('nosniff')
      const cacheControl = response.headers.get('cache-control') ?? ''
      if (methods.get?.security.length) expect(cacheControl, `GET ${url}`).toMatch(/private|no-store/)
      else expect(cacheControl, `GET ${url}`).not.toBe('')
      await response.arrayBuffer()
    }
  }
  const session = await client(t).get('/auth/session')
  expect(session.headers.get('x-content-type-options')).toBe('nosniff')
})
