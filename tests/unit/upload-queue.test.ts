import { afterEach, beforeEach, expect, test, vi } from 'vitest'
import { UploadQueue } from '~/islands/upload/upload-queue'
import { fakeEnvironment, fakeServer, photo, problem } from './upload-fake-server'

beforeEach(() => {
  vi.useFakeTimers()
})

afterEach(() => {
  vi.useRealTimers()
})

/** Lets the queue's promises run, moving the fake clock by `ms`. */
async function settle(ms = 0) {
  await vi.advanceTimersByTimeAsync(ms)
}

test('two photos upload one after the other, in chunks, and their ids come out in order', async () => {
  const server = fakeServer(1000)
  const queue = new UploadQueue(server.api, 'item-1', fakeEnvironment())
  queue.add([photo('a.jpg', 2500), photo('b.jpg', 10)])
  expect(queue.pending()).toBe(2)
  await settle()
  expect(queue.getSnapshot().map((e) => [e.fileName, e.status, e.sent])).toEqual([
    ['a.jpg', 'done', 2500],
    ['b.jpg', 'done', 10],
  ])
  expect(queue.photoIds()).toEqual(['photo-of-a.jpg', 'photo-of-b.jpg'])
  expect(server.calls.filter((c) => c.startsWith('PUT'))).toEqual(['PUT /api/uploads/s1/chunk?offset=0', 'PUT /api/uploads/s1/chunk?offset=1000', 'PUT /api/uploads/s1/chunk?offset=2000', 'PUT /api/uploads/s2/chunk?offset=0'])
})

test('a dropped connection waits, asks the server for its offset and resumes from the last byte that arrived', async () => {
  const server = fakeServer(1000)
  let drops = 4 // the client's own three retries, and one more: the queue must take over
  server.keepOnDrop = 300
  server.intercept = (method, path) => (method === 'PUT' && path.endsWith('offset=1000') && drops-- > 0 ? 'drop' : undefined)
  const queue = new UploadQueue(server.api, 'item-1', fakeEnvironment())
  queue.add([photo('a.jpg', 2500)])
  await settle()
  expect(queue.getSnapshot()[0]).toMatchObject({ status: 'waiting', sent: 1000 })
  await settle(300)
  expect(queue.getSnapshot()[0]).toMatchObject({ status: 'done', sent: 2500 })
  const afterDrop = server.calls.slice(server.calls.lastIndexOf('PUT /api/uploads/s1/chunk?offset=1000') + 1)
  // 4 drops kept 1200 bytes (capped at the chunk): the GET says 2200 and only the rest is sent.
  expect(afterDrop).toEqual(['GET /api/uploads/s1', 'PUT /api/uploads/s1/chunk?offset=2200', 'POST /api/uploads/s1/complete'])
  expect(queue.photoIds()).toEqual(['photo-of-a.jpg'])
})

test('offline, the queue keeps retrying with a growing back-off and resumes at once on the online event', async () => {
  const server = fakeServer()
  let offline = true
  server.intercept = () => (offline ? 'drop' : undefined)
  const env = fakeEnvironment()
  const queue = new UploadQueue(server.api, 'item-1', env)
  queue.add([photo('a.jpg', 50)])
  await settle()
  expect(queue.getSnapshot()[0]).toMatchObject({ status: 'waiting', attempt: 1 })
  await settle(300 + 1000 + 3000 + 5000 + 10_000 + 30_000 * 3)
  const attempts = queue.getSnapshot()[0]?.attempt ?? 0
  expect(attempts).toBe(9)
  expect(queue.getSnapshot()[0]?.status).toBe('waiting')
  offline = false
  env.goOnline()
  await settle()
  expect(queue.getSnapshot()[0]).toMatchObject({ status: 'done' })
})

test('pause stops sending; resume asks the server where the file stands and continues', async () => {
  const server = fakeServer(1000)
  const queue = new UploadQueue(server.api, 'item-1', fakeEnvironment())
  server.intercept = (method, path) => {
    if (method === 'PUT' && path.endsWith('offset=1000')) queue.pause('u0')
    return undefined
  }
  queue.add([photo('a.jpg', 3000)])
  await settle()
  const paused = queue.getSnapshot()[0]
  expect(paused?.status).toBe('paused')
  expect(queue.pending()).toBe(1)
  server.intercept = () => undefined
  queue.resume('u0')
  await settle()
  expect(queue.getSnapshot()[0]).toMatchObject({ status: 'done', sent: 3000 })
  expect(server.calls).toContain('GET /api/uploads/s1')
  expect(server.sessions.get('s1')?.offset).toBe(3000)
})

test('a refused file fails with its own message; the others go on; retry starts it afresh', async () => {
  const server = fakeServer()
  let refuse = true
  server.intercept = (method, path) => (refuse && method === 'POST' && path.includes('/complete') && server.sessions.get('s1')?.state === 'open' && !path.includes('s2') ? problem(415, 'KR_UPLOAD_TYPE') : undefined)
  const queue = new UploadQueue(server.api, 'item-1', fakeEnvironment())
  queue.add([photo('notes.jpg', 20), photo('wall.jpg', 20)])
  await settle()
  expect(queue.getSnapshot().map((e) => [e.fileName, e.status, e.error])).toEqual([
    ['notes.jpg', 'failed', 'notes.jpg is not a photo: send a JPEG, PNG, WebP, HEIC or HEIF image.'],
    ['wall.jpg', 'done', null],
  ])
  expect(queue.pending()).toBe(0)
  refuse = false
  queue.resume('u0')
  await settle()
  expect(queue.getSnapshot()[0]).toMatchObject({ status: 'done', error: null })
  expect(server.sessions.size).toBe(3)
})

test('quota and size refusals say so; files over 50 MB or not images fail before any call', async () => {
  const server = fakeServer()
  server.intercept = (method, path) => (method === 'POST' && path.endsWith('/uploads') ? problem(413, 'KR_QUOTA_EXCEEDED') : undefined)
  const queue = new UploadQueue(server.api, 'item-1', fakeEnvironment())
  const huge = { name: 'huge.jpg', type: 'image/jpeg', size: 60 * 1024 * 1024, slice: () => new Blob() } as unknown as File
  queue.add([photo('a.jpg', 10), huge, photo('notes.txt', 10, 'text/plain')])
  await settle()
  const errors = queue.getSnapshot().map((e) => e.error)
  expect(errors[0]).toContain('photo storage is full')
  expect(errors[1]).toBe('huge.jpg is 60 MB; a photo may be at most 50 MB. Send a smaller photo.')
  expect(errors[2]).toBe('notes.txt is not a photo: send a JPEG, PNG, WebP, HEIC or HEIF image.')
  expect(server.calls).toEqual(['POST /api/items/item-1/uploads'])
})

test('a completion whose answer was lost is found on the server: the photo is not sent twice', async () => {
  const server = fakeServer()
  let lose = true
  server.intercept = (method, path) => {
    if (method === 'POST' && path.endsWith('/complete') && lose) {
      const s = server.sessions.get('s1')
      if (s) Object.assign(s, { state: 'completed', photoId: 'p-1' })
      lose = false
      return 'drop'
    }
    return undefined
  }
  const queue = new UploadQueue(server.api, 'item-1', fakeEnvironment())
  queue.add([photo('a.jpg', 10)])
  await settle()
  await settle(300)
  expect(queue.photoIds()).toEqual(['p-1'])
  expect(server.sessions.size).toBe(1)
})

test('remove aborts the file’s session and leaves it out of the ids', async () => {
  const server = fakeServer()
  server.intercept = (method) => (method === 'PUT' ? 'drop' : undefined)
  const queue = new UploadQueue(server.api, 'item-1', fakeEnvironment())
  queue.add([photo('a.jpg', 10)])
  await settle()
  queue.remove('u0')
  await settle()
  expect(queue.getSnapshot()).toEqual([])
  expect(server.sessions.get('s1')?.state).toBe('aborted')
  expect(queue.pending()).toBe(0)
})
