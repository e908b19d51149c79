import { expect, test } from 'vitest'
import { createAnswerChecker, mismatches, SCHEMA_INCIDENT_REPORT_PATH } from '~/lib/api/answer-check'
import { createApiClient } from '~/lib/api/client'
import { callPath } from '~/lib/api/typed'
import type { WebSchemaIncident } from '~/lib/schemas/web-schema-incidents'

/** The typed surface of the one API client (decision 025) and the browser's answer check. */

function recorder(answer: () => Response) {
  const requests: Request[] = []
  const heard: unknown[] = []
  const api = createApiClient({
    transport: async (request) => {
      requests.push(request)
      return answer()
    },
    origin: 'https://portal.test',
    getCsrfToken: () => 'csrf-token',
    clientId: 'client-1',
    os: 'Linux',
    sleep: () => Promise.resolve(),
    onAnswer: (call) => heard.push(call),
  })
  return { api, requests, heard }
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'x-correlation-id': 'cid-7' } })

test('callPath fills each {name} encoded, and appends the defined query values in order', () => {
  expect(callPath('/api/projects/{id}/reports', { id: 'a b/c' }, undefined)).toBe('/api/projects/a%20b%2Fc/reports')
  expect(callPath('/api/items', undefined, { limit: 50, after: undefined, status: null, q: 'R&D', ids: ['1', '2'] })).toBe('/api/items?limit=50&q=R%26D&ids=1&ids=2')
  expect(callPath('/api/items', undefined, {})).toBe('/api/items')
  expect(callPath('/api/admin/users', undefined, new URLSearchParams({ q: 'ann', page: '2' }))).toBe('/api/admin/users?q=ann&page=2')
  expect(() => callPath('/api/projects/{id}', {}, undefined)).toThrow(/needs its path parameter id/)
})

test('a typed call is the same request as before: method, URL, JSON body, CSRF and idempotency key', async () => {
  const { api, requests, heard } = recorder(() => json(201, { id: 'f1', name: 'Drawings' }))
  const result = await api.POST('/api/projects/{id}/folders', { path: { id: 'p1' }, body: { name: 'Drawings' }, idempotencyKey: 'key-1' })
  expect(result.ok && result.data).toMatchObject({ id: 'f1' })
  const [request] = requests
  expect(request?.method).toBe('POST')
  expect(request?.url).toBe('https://portal.test/api/projects/p1/folders')
  expect(await request?.text()).toBe('{"name":"Drawings"}')
  expect(request?.headers.get('x-csrf-token')).toBe('csrf-token')
  expect(request?.headers.get('idempotency-key')).toBe('key-1')
  // The answer is heard with its template, for the browser's check.
  expect(heard).toEqual([{ method: 'POST', template: '/api/projects/{id}/folders', status: 201, data: { id: 'f1', name: 'Drawings' }, correlationId: 'cid-7' }])
})

test('a failed typed call is heard by nobody and answers the usual error', async () => {
  const { api, heard } = recorder(() => new Response(JSON.stringify({ status: 404, title: 'Not found' }), { status: 404, headers: { 'content-type': 'application/problem+json' } }))
  const result = await api.GET('/api/projects/{id}', { path: { id: 'nope' } })
  expect(result.ok).toBe(false)
  expect(heard).toEqual([])
})

const document = {
  paths: {
    '/api/projects/{id}': {
      get: { responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Project' } } } } } },
    },
  },
  components: {
    schemas: {
      Project: {
        type: 'object',
        properties: {
          id: { type: 'string', format: 'uuid' },
          title: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          status: { type: 'string', enum: ['active', 'archived'] },
          tags: { type: 'array', items: { type: 'string' } },
          createdBy: { anyOf: [{ $ref: '#/components/schemas/UserRef' }, { type: 'null' }] },
        },
        required: ['id', 'title', 'status'],
      },
      UserRef: { type: 'object', properties: { id: { type: 'string' }, displayName: { type: 'string' } }, required: ['id', 'displayName'] },
    },
  },
}

test('mismatches name each field the schema refuses, by type, never by value', () => {
  const schema = { $ref: '#/components/schemas/Project' }
  expect(mismatches(document, schema, { id: 'p', title: null, status: 'active', tags: ['a'], createdBy: { id: 'u', displayName: 'Ann' } })).toEqual([])
  expect(mismatches(document, schema, { id: 'p', title: 42, status: 'gone', tags: ['a', 7], createdBy: { id: 'u' } })).toEqual([
    { field: 'title', expected: 'string or null', got: 'number' },
    { field: 'status', expected: 'one of "active", "archived"', got: 'string of 4 characters' },
    { field: 'tags.1', expected: 'string', got: 'number' },
    { field: 'createdBy', expected: 'UserRef or null', got: 'object' },
  ])
  expect(mismatches(document, schema, { title: 'x', status: 'active' })).toEqual([{ field: 'id', expected: 'string', got: 'missing' }])
})

test('the checker loads the document once, reports a call and field once a page, and never checks its own report', async () => {
  const reports: WebSchemaIncident[][] = []
  let loads = 0
  const check = createAnswerChecker({
    loadDocument: async () => {
      loads++
      return document
    },
    report: async (incidents) => reports.push(incidents),
    later: (work) => work(),
  })
  const broken = { method: 'GET', template: '/api/projects/{id}', status: 200, data: { id: 'p', title: 1, status: 'active' }, correlationId: 'cid-1' }
  check(broken)
  check(broken)
  check({ ...broken, data: { id: 'p', title: 'fine', status: 'active' } })
  check({ ...broken, template: SCHEMA_INCIDENT_REPORT_PATH, method: 'POST' })
  check({ ...broken, template: '/api/unknown' })
  await new Promise((resolve) => setTimeout(resolve, 10))
  expect(loads).toBe(1)
  expect(reports).toEqual([[{ method: 'GET', path: '/api/projects/{id}', status: 200, field: 'title', expected: 'string or null', got: 'number', correlationId: 'cid-1' }]])
})
