import { expect, test } from 'vitest'
import { createApiError, fetchError, readResponse, timeoutError, toProblemDetails } from '~/lib/api/errors'

const problemHeaders = { 'content-type': 'application/problem+json' }

test('a JSON success carries status, data and headers', async () => {
  const result = await readResponse<{ id: number }>(
    new Response('{"id":1}', { status: 200, headers: { 'content-type': 'application/json', 'x-extra': 'y' } }),
  )
  expect(result).toMatchObject({ ok: true, status: 200, data: { id: 1 } })
  expect(result.ok && result.headers.get('x-extra')).toBe('y')
})

test('204 and empty bodies succeed with undefined data', async () => {
  expect(await readResponse(new Response(null, { status: 204 }))).toMatchObject({ ok: true, status: 204, data: undefined })
  expect(await readResponse(new Response('', { status: 200 }))).toMatchObject({ ok: true, status: 200, data: undefined })
  expect(await readResponse(new Response('  ', { status: 201 }))).toMatchObject({ ok: true, status: 201, data: undefined })
})

test('a success that is not JSON is a PARSING_ERROR keeping the status and the raw text', async () => {
  const result = await readResponse(new Response('<html>oops</html>', { status: 200, headers: { 'content-type': 'text/html' } }))
  expect(result).toEqual({
    ok: false,
    error: {
      kind: 'PARSING_ERROR',
      status: 200,
      data: '<html>oops</html>',
      problem: undefined,
      correlationId: undefined,
      message: 'Received an invalid response from the server.',
    },
  })
})

test('an error response that claims JSON but is not is a PARSING_ERROR with its status', async () => {
  const result = await readResponse(new Response('{broken', { status: 500, headers: problemHeaders }))
  expect(result.ok).toBe(false)
  expect(!result.ok && result.error).toMatchObject({ kind: 'PARSING_ERROR', status: 500, data: '{broken' })
})

test('an error status with a non-JSON body stays an HTTP error with the text', async () => {
  const result = await readResponse(
    new Response('Bad gateway', { status: 502, headers: { 'content-type': 'text/plain', 'x-correlation-id': 'cid-502' } }),
  )
  expect(!result.ok && result.error).toEqual({
    kind: 502,
    status: 502,
    data: 'Bad gateway',
    problem: undefined,
    correlationId: 'cid-502',
    message: 'The server encountered an error. Please retry or contact support if it continues.',
  })
})

test('an HTTP error carries the status as its kind, the parsed problem and its correlation id', async () => {
  const body = {
    type: 'about:blank',
    title: 'Invalid request',
    status: 400,
    detail: 'Fix the fields.',
    instance: '/api/projects',
    correlationId: 'cid-problem',
    code: 'KR_VALIDATION',
    remediation: 'Correct the fields.',
    retryAfterSeconds: 3,
    errors: { title: ['Required'] },
    expectedOffset: 42,
  }
  const result = await readResponse(
    new Response(JSON.stringify(body), { status: 400, headers: { ...problemHeaders, 'x-correlation-id': 'cid-header' } }),
  )
  expect(!result.ok && result.error).toEqual({
    kind: 400,
    status: 400,
    data: body,
    problem: body,
    correlationId: 'cid-problem',
    message: 'Request failed. Review details and retry.',
  })
})

test('the correlation id falls back to the response header', async () => {
  const result = await readResponse(
    new Response('{"title":"Not found"}', { status: 404, headers: { 'content-type': 'application/json', 'x-correlation-id': 'cid-h' } }),
  )
  expect(!result.ok && result.error).toMatchObject({ kind: 404, correlationId: 'cid-h', message: 'The requested resource was not found.' })
})

test('an error body that is not a problem has no problem', async () => {
  const result = await readResponse(new Response('[1,2]', { status: 409, headers: { 'content-type': 'application/json' } }))
  expect(!result.ok && result.error).toMatchObject({ kind: 409, data: [1, 2], problem: undefined })
})

test('toProblemDetails drops members of the wrong type and keeps extensions', () => {
  const problem = toProblemDetails({ status: '500', title: 7, code: 'KR_X', errors: { a: ['x', 3], b: 'y' }, extra: true })
  expect(problem).toEqual({ code: 'KR_X', errors: { a: ['x'], b: ['y'] }, extra: true })
  expect(toProblemDetails({ foo: 1 })).toBeUndefined()
  expect(toProblemDetails({ foo: 1 }, 'application/problem+json')).toEqual({ foo: 1 })
  expect(toProblemDetails('text')).toBeUndefined()
  expect(toProblemDetails(null)).toBeUndefined()
})

test('a __proto__ member cannot replace the problem prototype', () => {
  const problem = toProblemDetails(JSON.parse('{"title":"x","__proto__":{"polluted":true}}'))
  expect(Object.getPrototypeOf(problem)).toBe(Object.prototype)
  expect((problem as Record<string, unknown>).polluted).toBeUndefined()
})

test('the named error kinds carry their catalogue text', () => {
  expect(fetchError(new TypeError('fetch failed'))).toEqual({
    kind: 'FETCH_ERROR',
    status: undefined,
    data: 'fetch failed',
    problem: undefined,
    correlationId: undefined,
    message: 'Network request failed. Check your connection and retry.',
  })
  expect(timeoutError()).toMatchObject({ kind: 'TIMEOUT_ERROR', status: undefined, message: 'The request timed out. Please try again.' })
  expect(createApiError({ kind: 403, status: 403, problem: { correlationId: 'c' } })).toMatchObject({
    correlationId: 'c',
    message: 'You do not have permission to perform this action.',
  })
})
