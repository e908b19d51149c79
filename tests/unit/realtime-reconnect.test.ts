import { expect, test } from 'vitest'
import { hubRefusal } from '~/islands/realtime/hub-error'
import { endReasonOf, httpStatusOf, nextRetryDelay } from '~/islands/realtime/reconnect'

const attempt = (previousRetryCount: number, retryReason: Error = new Error('WebSocket closed with status code: 1006 (no reason given).')) => ({
  previousRetryCount,
  elapsedMilliseconds: 0,
  retryReason,
})

test('reconnects after 0, 2, 5 and 10 s (spec §9), then gives up', () => {
  expect([0, 1, 2, 3, 4].map((n) => nextRetryDelay(attempt(n)))).toEqual([0, 2_000, 5_000, 10_000, null])
})

test('delays can be shortened (tests), and an empty list never retries', () => {
  expect([0, 1, 2].map((n) => nextRetryDelay(attempt(n), [10, 20]))).toEqual([10, 20, null])
  expect(nextRetryDelay(attempt(0), [])).toBeNull()
})

test('a 401 stops at once, however the client reports it', () => {
  const asText = new Error("Failed to complete negotiation with the server: Error: Unauthorized: Status code '401'")
  expect(nextRetryDelay(attempt(0, asText))).toBeNull()
  const asHttpError = Object.assign(new Error('Unauthorized'), { statusCode: 401 })
  expect(nextRetryDelay(attempt(1, asHttpError))).toBeNull()
  expect(nextRetryDelay(attempt(0, new Error("Failed to complete negotiation with the server: Error: Bad Gateway: Status code '502'")))).toBe(0)
})

test('why a connection ended decides what the status becomes', () => {
  expect(endReasonOf(new Error("Failed to complete negotiation with the server: Error: Unauthorized: Status code '401'"))).toBe('signed-out')
  expect(endReasonOf(new Error("Failed to complete negotiation with the server: Error: Forbidden: Status code '403'"))).toBe('refused')
  expect(endReasonOf(new Error('Server returned an error on close: Connection closed with an error.'))).toBe('refused')
  expect(endReasonOf(new Error("Failed to complete negotiation with the server: Error: Service Unavailable: Status code '503'"))).toBe('dropped')
  expect(endReasonOf(new Error('Failed to complete negotiation with the server: TypeError: Failed to fetch'))).toBe('dropped')
  expect(endReasonOf(new Error('WebSocket closed with status code: 1006 (no reason given).'))).toBe('dropped')
  expect(endReasonOf(undefined)).toBe('dropped')
  expect(httpStatusOf('nothing here')).toBeUndefined()
})

test("the hub's refusal is the sentence after HubException, and nothing else counts as one", () => {
  expect(hubRefusal(new Error("An unexpected error occurred invoking 'SendMessage' on the server. HubException: Messages are at most 2000 characters."))).toBe(
    'Messages are at most 2000 characters.',
  )
  expect(hubRefusal(new Error("An unexpected error occurred invoking 'SendMessage' on the server."))).toBeUndefined()
  expect(hubRefusal(new Error('Invocation canceled due to the underlying connection being closed.'))).toBeUndefined()
  expect(hubRefusal(new Error('HubException: '))).toBeUndefined()
  expect(hubRefusal('HubException: Slow down.')).toBe('Slow down.')
})
