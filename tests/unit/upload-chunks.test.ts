import { expect, test } from 'vitest'
import { nextChunk, percent, retryDelay, UPLOAD_RETRY_DELAYS_MS } from '~/islands/upload/upload-chunks'
import { failureMessage } from '~/islands/upload/upload-messages'

test('chunks go from the offset, no larger than the smaller of the server and client sizes', () => {
  expect(nextChunk(0, 10, 4, 100)).toEqual({ start: 0, end: 4 })
  expect(nextChunk(8, 10, 4, 100)).toEqual({ start: 8, end: 10 })
  expect(nextChunk(3, 10, 100, 5)).toEqual({ start: 3, end: 8 })
  expect(nextChunk(10, 10, 4)).toBeUndefined()
})

test('the back-off starts like the API client and stays at its longest wait without giving up', () => {
  expect(retryDelay(0)).toBe(300)
  expect(retryDelay(2)).toBe(3000)
  expect(retryDelay(50)).toBe(UPLOAD_RETRY_DELAYS_MS.at(-1))
})

test('progress is a whole percentage', () => {
  expect(percent(1, 3)).toBe(33)
  expect(percent(0, 0)).toBe(0)
})

test('each refusal of the backend reads as a sentence naming the file', () => {
  expect(failureMessage('a.jpg', 415, { code: 'KR_UPLOAD_TYPE' })).toBe('a.jpg is not a photo: send a JPEG, PNG, WebP, HEIC or HEIF image.')
  expect(failureMessage('a.jpg', 413, { code: 'KR_UPLOAD_TOO_LARGE', sizeBytes: 60 * 1024 * 1024 })).toBe('a.jpg is 60 MB; a photo may be at most 50 MB. Send a smaller photo.')
  expect(failureMessage('a.jpg', 413, { code: 'KR_QUOTA_EXCEEDED' })).toContain('photo storage is full')
  expect(failureMessage('a.jpg', 403, undefined)).toBe('a.jpg was not stored: you may not add photos to this item.')
})
