import { expect, test } from 'vitest'
import { displayFileName } from '#server/domain/photos/file-name'
import { WorkQueue } from '#server/domain/photos/work-queue'
import { Problem } from '#server/http/problem'

function gate() {
  let open = () => {}
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { opened, open }
}

test('the work queue runs at most `concurrency` jobs at once, the others in the order they came', async () => {
  const queue = new WorkQueue(2, 10)
  const gates = Array.from({ length: 5 }, gate)
  const started: number[] = []
  let running = 0
  let most = 0
  const jobs = gates.map((g, i) =>
    queue.run(async () => {
      started.push(i)
      running++
      most = Math.max(most, running)
      await g.opened
      running--
      return i
    }),
  )
  await new Promise((resolve) => setImmediate(resolve))
  expect(started).toEqual([0, 1])
  expect(queue.size).toEqual({ running: 2, waiting: 3 })
  gates[1]?.open()
  await jobs[1]
  await new Promise((resolve) => setImmediate(resolve))
  expect(started).toEqual([0, 1, 2])
  for (const g of gates) g.open()
  expect(await Promise.all(jobs)).toEqual([0, 1, 2, 3, 4])
  expect(started).toEqual([0, 1, 2, 3, 4])
  expect(most).toBe(2)
  expect(queue.size).toEqual({ running: 0, waiting: 0 })
})

test('a failing job frees its slot, and a full wait list is refused with 503 KR_PHOTO_PROCESSING_BUSY', async () => {
  const queue = new WorkQueue(1, 1)
  const g = gate()
  const first = queue.run(() => g.opened)
  const second = queue.run(() => Promise.reject(new Error('corrupt image')))
  const third = queue.run(() => Promise.resolve('x'))
  await expect(third).rejects.toSatisfy((e) => e instanceof Problem && e.init.status === 503 && e.init.code === 'KR_PHOTO_PROCESSING_BUSY')
  g.open()
  await first
  await expect(second).rejects.toThrow('corrupt image')
  expect(await queue.run(() => Promise.resolve('after'))).toBe('after')
  expect(queue.size).toEqual({ running: 0, waiting: 0 })
})

test('display names: basename, no control or bidi characters, trimmed, at most 120 characters, never empty', () => {
  expect(displayFileName('../../tmp/x.jpg')).toBe('x.jpg')
  expect(displayFileName('a\\b\\c.png')).toBe('c.png')
  expect(displayFileName('line\r\nbreak.jpg')).toBe('linebreak.jpg')
  expect(displayFileName(' \t ')).toBe('photo')
  expect(displayFileName('dir/')).toBe('photo')
  expect(displayFileName('..')).toBe('photo')
  expect(displayFileName('\u202egpj.exe')).toBe('gpj.exe')
  expect(displayFileName('😀'.repeat(130))).toBe('😀'.repeat(120))
})
