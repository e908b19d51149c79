import { afterAll, beforeAll, expect, test } from 'vitest'
import { NO_SUCH_CALL } from '#server/api/app'
import type { OpenApiDocument } from '#server/http/openapi'
import { openApiPath } from '#server/http/openapi'
import { client } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { organisation } from '#tests/helpers/reporting-a'
import { SPEC_CALLS, UNSPECIFIED_AREAS } from './spec-calls'

let t: TestBackend
let document: OpenApiDocument

beforeAll(async () => {
  t = await createTestBackend()
  const response = await t.fetch('/api/openapi.json')
  expect(response.status).toBe(200)
  document = (await response.json()) as OpenApiDocument
})

afterAll(async () => {
  await t.close()
})

/** One spelling for comparing paths: no trailing slash, every parameter `{}`. */
function shape(path: string): string {
  return path.replace(/\/$/, '').replace(/\{[^}]+\}/g, '{}')
}

function documented(method: string, path: string): boolean {
  const wanted = shape(path)
  return Object.entries(document.paths).some(([candidate, methods]) => shape(candidate) === wanted && method.toLowerCase() in methods)
}

const SOME_ID = '0190d7f1-5a3e-7c2b-9d4e-1f2a3b4c5d6e'

test('GET /api/openapi.json is an OpenAPI 3.1 document of the contract version, with the Problem schema', () => {
  expect(document.openapi).toBe('3.1.0')
  expect(document.info.version).toBe('0.3.0')
  expect(document.components.schemas.Problem).toMatchObject({ type: 'object', required: expect.arrayContaining(['type', 'title', 'status', 'instance', 'correlationId']) })
  const createProject = document.paths['/api/projects']?.post
  expect(createProject?.requestBody?.content['application/json']?.schema).toMatchObject({
    type: 'object',
    properties: {
      title: { anyOf: [{ type: 'string', maxLength: 200 }, { type: 'null' }] },
      code: { anyOf: [{ type: 'string', maxLength: 40 }, { type: 'null' }] },
    },
  })
  expect(createProject?.['x-max-body-bytes']).toBe(1024 * 1024)
  expect(createProject?.responses['413']).toBeDefined()
  expect(document.paths['/api/items/outstanding']?.get?.parameters.map((p) => p.name)).toEqual(
    expect.arrayContaining(['limit', 'before', 'projectId', 'packageKey']),
  )
})

test('every spec §7 call marked built is routed (as the spec spells it) and in the document; none marked not built is', async () => {
  const anonymous = client(t)
  const missing: string[] = []
  for (const call of SPEC_CALLS) {
    const inDocument = documented(call.method, call.path)
    if (!call.built) {
      if (inDocument) missing.push(`${call.method} ${call.path} is in the document: mark it built in tests/api/spec-calls.ts`)
      continue
    }
    if (!inDocument) missing.push(`${call.method} ${call.path} is not in the document`)
    const response = await anonymous.request(call.path.replace(/\{[^}]+\}/g, SOME_ID), {
      method: call.method,
      headers: { 'content-type': 'application/json' },
      ...(call.method !== 'GET' && call.method !== 'DELETE' && { body: '{}' }),
    })
    const text = await response.text()
    if (response.status === 404 && (JSON.parse(text) as { detail?: string }).detail === NO_SUCH_CALL) missing.push(`${call.method} ${call.path} is not routed`)
  }
  expect(missing).toEqual([])

  const built = SPEC_CALLS.filter((call) => call.built).length
  console.info(`spec §7: ${built} of ${SPEC_CALLS.length} calls with paths are built; without paths in the spec: ${UNSPECIFIED_AREAS.length} areas`)
})

test('every routed call is in the document, and the document names no call that is not routed', () => {
  const routed = new Set(
    t.backend.app.routes.filter((route) => route.method !== 'ALL').map((route) => `${route.method} ${openApiPath(route.path)}`),
  )
  const inDocument = new Set(Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`)))
  expect([...routed].filter((key) => !inDocument.has(key))).toEqual([])
  expect([...inDocument].filter((key) => !routed.has(key))).toEqual([])
})

test('a trailing slash reaches the same call: GET /api/projects/?limit=5 answers as /api/projects?limit=5', async () => {
  const { writer } = await organisation(t)
  await writer.c.post('/api/projects', { title: 'Slash' })
  const withSlash = await writer.c.get('/api/projects/?limit=5')
  const without = await writer.c.get('/api/projects?limit=5')
  expect(withSlash.status).toBe(200)
  expect(await withSlash.json()).toEqual(await without.json())
  const item = await writer.c.get(`/api/items/${SOME_ID}/`)
  expect(((await item.json()) as { detail?: string }).detail).not.toBe(NO_SUCH_CALL)
})

test('a path no call answers is a 404 problem that says so', async () => {
  const response = await t.fetch('/api/no-such-thing')
  expect(response.status).toBe(404)
  expect(response.headers.get('content-type')).toBe('application/problem+json')
  expect(((await response.json()) as { detail: string }).detail).toBe(NO_SUCH_CALL)
})

test('GET /api/reference is a readable page of the same document, without script', async () => {
  const response = await t.fetch('/api/reference')
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toContain('text/html')
  expect(response.headers.get('content-security-policy')).toContain("default-src 'none'")
  const html = await response.text()
  expect(html).not.toContain('<script')
  expect(html).toContain('/api/items/outstanding')
  expect(html).toContain('Outstanding items')
})
