import { afterAll, beforeAll, expect, test } from 'vitest'
import { z } from 'zod'
import { operation } from '#server/http/contract'
import { NO_SUCH_CALL } from '#server/api/app'
import type { OpenApiDocument } from '#server/http/openapi'
import { openApiPath } from '#server/http/openapi'
import { client } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { settleSchemaIncidents } from '#server/domain/observability/schema-incidents'
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

type Json = Record<string, unknown>

function operations(): Array<{ key: string; op: OpenApiDocument['paths'][string][string] }> {
  return Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })))
}

function walk(value: unknown, visit: (node: Json) => void): void {
  if (Array.isArray(value)) value.forEach((item) => walk(item, visit))
  else if (value !== null && typeof value === 'object') {
    visit(value as Json)
    Object.values(value).forEach((inner) => walk(inner, visit))
  }
}

test('every answer with a body declares its content, every 4xx and 5xx is a Problem, and the document has a server', () => {
  expect(document.servers?.length).toBeGreaterThan(0)
  const undeclared: string[] = []
  const notProblems: string[] = []
  for (const { key, op } of operations()) {
    for (const [status, answer] of Object.entries(op.responses)) {
      if (/^2\d\d$/.test(status) && status !== '204' && !answer.content) undeclared.push(`${key} ${status}`)
      if ((/^[45]\d\d$/.test(status) || status === 'default') && !answer.content?.['application/problem+json'] && !answer.content?.['application/json']) notProblems.push(`${key} ${status}`)
    }
  }
  expect(undeclared).toEqual([])
  expect(notProblems).toEqual([])
})

test('answers reuse named components, every reference resolves, and only standard formats are used', () => {
  const schemas = document.components.schemas
  for (const name of ['Problem', 'Project', 'Report', 'ReportItem', 'Photo', 'Document', 'Revision', 'Folder', 'Transmittal', 'Set', 'Workflow', 'Party', 'AdminUser', 'Invite', 'Device']) {
    expect(schemas[name], name).toBeDefined()
  }
  const broken: string[] = []
  const formats = new Set<string>()
  walk(document, (node) => {
    if (typeof node.$ref === 'string' && !(node.$ref.replace('#/components/schemas/', '') in schemas)) broken.push(node.$ref)
    if (typeof node.format === 'string') formats.add(node.format)
  })
  expect(broken).toEqual([])
  expect([...formats].filter((format) => !['uuid', 'date-time', 'date', 'email', 'uri', 'binary', 'int64', 'int32', 'float', 'double', 'password', 'duration', 'time', 'ipv4', 'ipv6', 'hostname', 'regex', 'byte'].includes(format))).toEqual([])
  expect(document.paths['/api/projects/{id}']?.get?.responses['200']?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/Project' })
})

test('an id in a path is a UUID; a photo’s variant is one of its values', () => {
  const bare = operations().flatMap(({ key, op }) =>
    op.parameters.filter((p) => p.in === 'path' && /^(id|[a-z][A-Za-z]*Id)$/.test(p.name) && p.name !== 'deviceId' && p.schema.format !== 'uuid' && (p.schema.maxLength as number | undefined ?? 0) <= 100).map((p) => `${key} ${p.name}`),
  )
  expect(bare).toEqual([])
  const variant = document.paths['/api/photos/{photoId}/{variant}']?.get?.parameters.find((p) => p.name === 'variant')
  expect(variant?.schema.enum).toEqual(['display', 'thumbnail', 'original'])
  expect(document.paths['/api/photos/{photoId}/{variant}']?.get?.responses['200']?.content).toHaveProperty(['image/*'])
})

/** A schema's shape for comparing: its keys in order, descriptions left out (the same shape may be worded per call). */
function shapeOf(node: Json): string {
  return JSON.stringify(node, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value as Json).filter(([key]) => key !== 'description').sort(([a], [b]) => a.localeCompare(b)))
      : value,
  )
}

test('no object shape of a 2xx answer is repeated inline in two operations: it is a named component, referenced', () => {
  const seenIn = new Map<string, Set<string>>()
  for (const { key, op } of operations()) {
    for (const [status, answer] of Object.entries(op.responses)) {
      if (!/^2\d\d$/.test(status)) continue
      walk(answer.content?.['application/json']?.schema, (node) => {
        if (node.type !== 'object' || typeof node.properties !== 'object' || node.properties === null || Object.keys(node.properties).length === 0) return
        const shape = shapeOf(node)
        seenIn.set(shape, (seenIn.get(shape) ?? new Set()).add(key))
      })
    }
  }
  const repeated = [...seenIn].filter(([, keys]) => keys.size > 1).map(([shape, keys]) => `{${Object.keys((JSON.parse(shape) as { properties: Json }).properties).join(', ')}} in ${[...keys].join(' | ')}`)
  expect(repeated).toEqual([])
  for (const name of ['Notification', 'DiagnosticRun', 'DiagnosticAttempt', 'Licence', 'SeatCounts', 'CheckoutSession', 'StoreSubscription', 'NewUploadSession', 'FrontendErrorGroup', 'SchemaIncidentGroup', 'CspReportGroup', 'LogLine', 'AppearanceSettings']) {
    expect(document.components.schemas[name], name).toBeDefined()
  }
  expect(document.paths['/api/tenants/{tenantId}/license']?.get?.responses['200']?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/Licence' })
})

test('every path parameter says its format (uuid), its values (enum) or its pattern, and an opaque one says what it is', () => {
  const parameters = operations().flatMap(({ key, op }) => op.parameters.filter((p) => p.in === 'path').map((p) => ({ key, ...p })))
  const bare = parameters.filter((p) => p.schema.type === 'string' && p.schema.format === undefined && p.schema.enum === undefined && p.schema.pattern === undefined)
  expect(bare.map((p) => `${p.key} ${p.name}`)).toEqual([])
  const undescribed = parameters.filter((p) => p.schema.pattern !== undefined && p.schema.format === undefined && p.schema.enum === undefined && typeof p.schema.description !== 'string')
  expect(undescribed.map((p) => `${p.key} ${p.name}`)).toEqual([])
  const key = document.paths['/api/admin/email-templates/{key}']?.get?.parameters.find((p) => p.name === 'key')
  expect(key?.schema.enum).toEqual(expect.arrayContaining(['invite', 'reset-password', 'digest']))
  const token = document.paths['/api/shared/transmittals/{token}']?.get?.parameters.find((p) => p.name === 'token')
  expect(new RegExp(token?.schema.pattern as string).test('eyJ0IjoiYSJ9.' + 'A'.repeat(43))).toBe(true)
})

// A backend of its own: a route can be added only before the first request builds the router.
test('an answer with a status its call does not declare is a schema incident (and so fails the test file that meets it)', async () => {
  const own = await createTestBackend({ allowSchemaIncidents: true })
  const before = t.schemaIncidents().length
  try {
    own.backend.app.get(
      '/contract-test/undeclared-status',
      operation({ summary: 'A call for this test', tag: 'Contract', access: 'public', responses: { 200: { description: 'Fine.', schema: z.object({ ok: z.boolean() }) } } }),
      (c) => c.json({ ok: false }, 409),
    )
    const response = await own.fetch('/contract-test/undeclared-status')
    expect(response.status).toBe(409)
    await settleSchemaIncidents()
    expect(own.schemaIncidents()).toEqual([expect.objectContaining({ path: '/contract-test/undeclared-status', status: 409, field: '(status)', got: 'status 409' })])
  } finally {
    await own.close()
    // Every backend of the process hears every incident: this one was met on purpose, so it is taken
    // back out of the file's backend too, whose close() still fails the file on any other.
    ;(t.schemaIncidents() as unknown[]).splice(before)
  }
})
