import { afterEach, beforeEach, expect, test, vi } from 'vitest'
import { canShrink, DOWNSCALE_SETTING_KEY, fileSize, keepShrunk, readDownscaleSetting, shrunkName, targetSize, writeDownscaleSetting } from '~/islands/upload/upload-downscale'
import { UploadQueue, type UploadFile } from '~/islands/upload/upload-queue'
import { fakeEnvironment, fakeServer, photo } from './upload-fake-server'

beforeEach(() => {
  vi.useFakeTimers()
})

afterEach(() => {
  vi.useRealTimers()
})

test('the longest side comes down to 2048 px, proportions kept, and a small photo is left alone', () => {
  expect(targetSize(4032, 3024)).toEqual({ width: 2048, height: 1536 })
  expect(targetSize(3024, 4032)).toEqual({ width: 1536, height: 2048 })
  expect(targetSize(5000, 5000)).toEqual({ width: 2048, height: 2048 })
  expect(targetSize(20_000, 3)).toEqual({ width: 2048, height: 1 })
  expect(targetSize(2048, 1000)).toBeUndefined()
  expect(targetSize(640, 480)).toBeUndefined()
  expect(targetSize(0, 480)).toBeUndefined()
  expect(targetSize(Number.NaN, 480)).toBeUndefined()
})

test('only JPEG and WebP are re-encoded; PNG and HEIC go as they are', () => {
  expect(canShrink('image/jpeg')).toBe(true)
  expect(canShrink('IMAGE/WEBP')).toBe(true)
  expect(canShrink('image/png')).toBe(false)
  expect(canShrink('image/heic')).toBe(false)
  expect(canShrink('')).toBe(false)
})

test('the shrunk photo keeps its name with a .jpg extension, and is kept only when smaller', () => {
  expect(shrunkName('IMG_0001.JPEG')).toBe('IMG_0001.jpg')
  expect(shrunkName('site.visit.webp')).toBe('site.visit.jpg')
  expect(shrunkName('scan')).toBe('scan.jpg')
  expect(shrunkName('.hidden')).toBe('.hidden.jpg')
  expect(shrunkName('')).toBe('photo.jpg')
  expect(keepShrunk(1000, 999)).toBe(true)
  expect(keepShrunk(1000, 1000)).toBe(false)
  expect(keepShrunk(1000, 0)).toBe(false)
})

test('sizes read as KB or MB', () => {
  expect(fileSize(4.2 * 1024 * 1024)).toBe('4.2 MB')
  expect(fileSize(610 * 1024)).toBe('610 KB')
  expect(fileSize(10)).toBe('1 KB')
})

test('the setting is off by default, remembered per device, and off when storage is blocked', () => {
  const data = new Map<string, string>()
  const storage = { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v) }
  expect(readDownscaleSetting(storage)).toBe(false)
  writeDownscaleSetting(storage, true)
  expect(data.get(DOWNSCALE_SETTING_KEY)).toBe('1')
  expect(readDownscaleSetting(storage)).toBe(true)
  writeDownscaleSetting(storage, false)
  expect(readDownscaleSetting(storage)).toBe(false)
  const blocked = {
    getItem: () => {
      throw new Error('SecurityError')
    },
    setItem: () => {
      throw new Error('QuotaExceededError')
    },
  }
  expect(readDownscaleSetting(blocked)).toBe(false)
  expect(() => writeDownscaleSetting(blocked, true)).not.toThrow()
  expect(readDownscaleSetting(undefined)).toBe(false)
})

test('with shrinking on, the shrunk photo is what is sent, and the entry shows both sizes', async () => {
  const server = fakeServer()
  const queue = new UploadQueue(server.api, 'item-1', fakeEnvironment())
  const shrink = vi.fn(async (file: UploadFile) => photo(shrunkName(file.name), 40))
  queue.add([photo('a.webp', 400, 'image/webp')], shrink)
  await vi.advanceTimersByTimeAsync(0)
  expect(shrink).toHaveBeenCalledTimes(1)
  expect(queue.getSnapshot()[0]).toMatchObject({ fileName: 'a.jpg', status: 'done', size: 40, originalSize: 400, sent: 40 })
  expect(server.sessions.get('s1')).toMatchObject({ size: 40, name: 'a.jpg' })
})

test('a shrink that fails or gives nothing smaller sends the original: a photo is never lost', async () => {
  const server = fakeServer()
  const queue = new UploadQueue(server.api, 'item-1', fakeEnvironment())
  const shrink = async (file: UploadFile): Promise<UploadFile | undefined> => {
    if (file.name === 'broken.jpg') throw new Error('decode failed')
    if (file.name === 'bigger.jpg') return photo('bigger.jpg', 500)
    return undefined
  }
  queue.add([photo('broken.jpg', 100), photo('bigger.jpg', 100), photo('plain.png', 100, 'image/png')], shrink)
  await vi.advanceTimersByTimeAsync(0)
  expect(queue.getSnapshot().map((e) => [e.fileName, e.status, e.size, e.originalSize])).toEqual([
    ['broken.jpg', 'done', 100, null],
    ['bigger.jpg', 'done', 100, null],
    ['plain.png', 'done', 100, null],
  ])
  expect(queue.photoIds()).toHaveLength(3)
})

test('a JPEG over 50 MB is shrunk before the limit is checked; a PNG over it fails at once', async () => {
  const server = fakeServer()
  const queue = new UploadQueue(server.api, 'item-1', fakeEnvironment())
  const huge = (name: string, type: string) => ({ name, type, size: 60 * 1024 * 1024, slice: () => new Blob() }) as unknown as File
  let shrinks = 0
  const shrink = async (file: UploadFile) => (shrinks++ === 0 ? photo(shrunkName(file.name), 30) : file)
  queue.add([huge('big.jpg', 'image/jpeg'), huge('big.png', 'image/png'), huge('still.jpg', 'image/jpeg')], shrink)
  expect(queue.getSnapshot()[1]?.error).toBe('big.png is 60 MB; a photo may be at most 50 MB. Send a smaller photo.')
  await vi.advanceTimersByTimeAsync(0)
  const [big, , still] = queue.getSnapshot()
  expect(big).toMatchObject({ fileName: 'big.jpg', status: 'done', size: 30 })
  expect(still).toMatchObject({ status: 'failed', error: 'still.jpg is 60 MB; a photo may be at most 50 MB. Send a smaller photo.' })
})

test('without the setting nothing is shrunk', async () => {
  const server = fakeServer()
  const queue = new UploadQueue(server.api, 'item-1', fakeEnvironment())
  queue.add([photo('a.jpg', 100)])
  await vi.advanceTimersByTimeAsync(0)
  expect(queue.getSnapshot()[0]).toMatchObject({ status: 'done', size: 100, originalSize: null })
})
