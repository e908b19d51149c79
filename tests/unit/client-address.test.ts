import { expect, test } from 'vitest'
import { clientAddress } from '#server/http/client-address'

const request = (forwarded?: string) => new Request('http://portal.test/', forwarded ? { headers: { 'x-forwarded-for': forwarded } } : {})

test('without TRUST_PROXY the socket address counts, whatever X-Forwarded-For says', () => {
  expect(clientAddress(request('198.51.100.1'), '10.0.0.2', false)).toBe('10.0.0.2')
})

test('behind a trusted proxy the last X-Forwarded-For entry counts: earlier ones were sent by the client', () => {
  expect(clientAddress(request('198.51.100.1'), '10.0.0.2', true)).toBe('198.51.100.1')
  expect(clientAddress(request('203.0.113.66, 198.51.100.1'), '10.0.0.2', true)).toBe('198.51.100.1')
  expect(clientAddress(request(), '10.0.0.2', true)).toBe('10.0.0.2')
  expect(clientAddress(request(' , '), '10.0.0.2', true)).toBe('10.0.0.2')
})
