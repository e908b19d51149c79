import { expect, test } from 'vitest'
import { MESSAGES, messageFor, screenMessageFor } from '~/lib/api/messages'

test('the catalogue of spec §8 is word for word', () => {
  expect(MESSAGES).toEqual({
    serverError: 'The server encountered an error. Please retry or contact support if it continues.',
    unauthorized: 'Session expired or unauthorized. Please sign in again.',
    forbidden: 'You do not have permission to perform this action.',
    notFound: 'The requested resource was not found.',
    requestFailed: 'Request failed. Review details and retry.',
    timeout: 'The request timed out. Please try again.',
    parsing: 'Received an invalid response from the server.',
    network: 'Network request failed. Check your connection and retry.',
    defaultTitle: 'Unexpected error',
    generic: 'Something went wrong. Please try again.',
    serviceUnavailable: 'The service is temporarily unavailable. Please try again soon.',
  })
})

test('messageFor picks the text of each error kind and status', () => {
  expect(messageFor({ kind: 500 })).toBe('The server encountered an error. Please retry or contact support if it continues.')
  expect(messageFor({ kind: 503 })).toBe('The server encountered an error. Please retry or contact support if it continues.')
  expect(messageFor({ kind: 401 })).toBe('Session expired or unauthorized. Please sign in again.')
  expect(messageFor({ kind: 403 })).toBe('You do not have permission to perform this action.')
  expect(messageFor({ kind: 404 })).toBe('The requested resource was not found.')
  expect(messageFor({ kind: 400 })).toBe('Request failed. Review details and retry.')
  expect(messageFor({ kind: 409 })).toBe('Request failed. Review details and retry.')
  expect(messageFor({ kind: 429 })).toBe('Request failed. Review details and retry.')
  expect(messageFor({ kind: 'TIMEOUT_ERROR' })).toBe('The request timed out. Please try again.')
  expect(messageFor({ kind: 'PARSING_ERROR' })).toBe('Received an invalid response from the server.')
  expect(messageFor({ kind: 'FETCH_ERROR' })).toBe('Network request failed. Check your connection and retry.')
})

test('screenMessageFor uses the softer text for 5xx only', () => {
  expect(screenMessageFor({ kind: 500 })).toBe('The service is temporarily unavailable. Please try again soon.')
  expect(screenMessageFor({ kind: 502 })).toBe('The service is temporarily unavailable. Please try again soon.')
  expect(screenMessageFor({ kind: 404 })).toBe('The requested resource was not found.')
  expect(screenMessageFor({ kind: 'FETCH_ERROR' })).toBe('Network request failed. Check your connection and retry.')
})
