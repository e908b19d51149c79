import { afterEach, beforeEach, expect, test, vi, type MockInstance } from 'vitest'
import { createErrorBatcher, describe, type FrontendErrorEvent } from '~/islands/telemetry/error-batcher'
import { startTelemetry, type TelemetryHost } from '~/islands/telemetry/start'
import { ERROR_FLUSH_EVENTS, ERROR_FLUSH_MS, ERROR_MAX_PER_SEND, ERROR_REPEAT_MAX, STACK_TRACE_MAX } from '~/lib/constants'

/** Spec §3 "Frontend error event", §7 "Telemetry", §8 "Behaviour", §9 "Error batch" and "Stack trace length". */

let warn: MockInstance<typeof console.warn>

beforeEach(() => {
  vi.useFakeTimers()
  vi.setSystemTime(new Date('2025-03-01T10:00:00Z'))
  warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
})

afterEach(() => {
  vi.useRealTimers()
  warn.mockRestore()
})

type Sent = { url: string; init: RequestInit; events: FrontendErrorEvent[] }

/** A fetch that answers with `status` (0: a network error), or waits while `hold` is set. */
function fakeFetch(status = 202) {
  const sent: Sent[] = []
  const waiting: (() => void)[] = []
  const state = { hold: false }
  const fetch = vi.fn((url: string | URL | Request, init?: RequestInit) => {
    sent.push({ url: String(url), init: init ?? {}, events: JSON.parse(String(init?.body)).events })
    if (status === 0) return Promise.reject(new TypeError('Failed to fetch'))
    const response = new Response(null, { status })
    if (!state.hold) return Promise.resolve(response)
    return new Promise<Response>((resolve) => waiting.push(() => resolve(response)))
  })
  const release = () => waiting.splice(0).forEach((go) => go())
  return { fetch: fetch as unknown as typeof globalThis.fetch, sent, state, release }
}

function batcher(fetch: typeof globalThis.fetch) {
  return createErrorBatcher({ release: '0.1.0+abc', correlationId: 'visitor0001', userAgent: 'TestAgent/1.0', path: () => '/reports/r1', fetch })
}

test('the batch constants are those of spec §9 and the issue', () => {
  expect(ERROR_FLUSH_EVENTS).toBe(20)
  expect(ERROR_FLUSH_MS).toBe(3000)
  expect(ERROR_MAX_PER_SEND).toBe(50)
  expect(STACK_TRACE_MAX).toBe(4000)
  expect(ERROR_REPEAT_MAX).toBe(5)
})

test('an error becomes the event of spec §3, sent 3000 ms after the first one as POST /telemetry/public-errors', async () => {
  const { fetch, sent } = fakeFetch()
  const errors = batcher(fetch)
  const error = new Error('Cannot read properties of undefined')
  errors.report(error, 'route-load')
  await vi.advanceTimersByTimeAsync(2000)
  errors.report('a thrown string')
  await vi.advanceTimersByTimeAsync(999)
  expect(sent).toHaveLength(0)
  await vi.advanceTimersByTimeAsync(1)
  expect(sent).toHaveLength(1)
  expect(sent[0]?.url).toBe('/telemetry/public-errors')
  expect(sent[0]?.init).toMatchObject({
    method: 'POST',
    keepalive: true,
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json' },
  })
  expect(Object.keys(JSON.parse(String(sent[0]?.init.body)))).toEqual(['events'])
  expect(sent[0]?.events).toEqual([
    {
      name: 'web.error.route-load',
      timestampUtc: '2025-03-01T10:00:00.000Z',
      message: 'Cannot read properties of undefined',
      stack: error.stack,
      path: '/reports/r1',
      userAgent: 'TestAgent/1.0',
      release: '0.1.0+abc',
      correlationId: 'visitor0001',
    },
    expect.objectContaining({ name: 'web.error.boundary', message: 'a thrown string', stack: '', timestampUtc: '2025-03-01T10:00:02.000Z' }),
  ])
  expect(warn).not.toHaveBeenCalled()
})

test('the 20th error flushes at once', async () => {
  const { fetch, sent } = fakeFetch()
  const errors = batcher(fetch)
  for (let i = 0; i < 19; i++) errors.report(new Error(`e${i}`))
  await vi.advanceTimersByTimeAsync(0)
  expect(sent).toHaveLength(0)
  errors.report(new Error('e19'))
  await vi.advanceTimersByTimeAsync(0)
  expect(sent).toHaveLength(1)
  expect(sent[0]?.events).toHaveLength(20)
  expect(errors.queued).toBe(0)
})

test('a queue of more than 50 goes out in sends of at most 50', async () => {
  const { fetch, sent, state, release } = fakeFetch()
  const errors = batcher(fetch)
  state.hold = true
  for (let i = 0; i < 20; i++) errors.report(new Error(`first ${i}`))
  await vi.advanceTimersByTimeAsync(0)
  expect(sent).toHaveLength(1)
  // While that send hangs, 120 more pile up and nothing else starts.
  for (let i = 0; i < 120; i++) errors.report(new Error(`later ${i}`))
  await vi.advanceTimersByTimeAsync(ERROR_FLUSH_MS * 2)
  expect(sent).toHaveLength(1)
  state.hold = false
  release()
  await vi.advanceTimersByTimeAsync(0)
  expect(sent.map((s) => s.events.length)).toEqual([20, 50, 50, 20])
  expect(sent[1]?.events[0]?.message).toBe('later 0')
  expect(sent[3]?.events.at(-1)?.message).toBe('later 119')
})

test('an explicit flush splits too', async () => {
  const { fetch, sent } = fakeFetch()
  const errors = batcher(fetch)
  errors.report(new Error('only one'))
  await errors.flush()
  expect(sent.map((s) => s.events.length)).toEqual([1])
  await errors.flush()
  expect(sent).toHaveLength(1)
})

test('the stack is cut at 4000 characters', () => {
  const error = new Error('deep')
  error.stack = 'x'.repeat(10_000)
  expect(describe(error).stack).toHaveLength(4000)
  const short = new Error('short')
  expect(describe(short).stack).toBe(short.stack)
  expect(describe({ message: 'plain object' })).toEqual({ message: 'plain object', stack: '' })
  expect(describe(undefined)).toEqual({ message: 'undefined', stack: '' })
  expect(describe(42)).toEqual({ message: '42', stack: '' })
})

test('the stack sent is cut at 4000 characters', async () => {
  const { fetch, sent } = fakeFetch()
  const errors = batcher(fetch)
  const error = new Error('deep')
  error.stack = `Error: deep\n${'    at f (app.js:1:1)\n'.repeat(500)}`
  errors.report(error)
  await errors.flush()
  expect(sent[0]?.events[0]?.stack).toBe(error.stack.slice(0, 4000))
})

test.each([
  [500, 'Public error ingest failed 500'],
  [0, 'Public error ingest failed 0'],
])('a failed send (%i) is swallowed with its message and the events dropped', async (status, message) => {
  const { fetch, sent } = fakeFetch(status)
  const errors = batcher(fetch)
  errors.report(new Error('boom'))
  await expect(errors.flush()).resolves.toBeUndefined()
  expect(warn).toHaveBeenCalledExactlyOnceWith(message)
  expect(errors.queued).toBe(0)
  await vi.advanceTimersByTimeAsync(60_000)
  expect(sent).toHaveLength(1)
})

test('the same message and stack more than 5 times is counted, not sent', async () => {
  const { fetch, sent } = fakeFetch()
  const errors = batcher(fetch)
  const error = new Error('same every frame')
  for (let i = 0; i < 12; i++) errors.report(error)
  errors.report(new Error('another one'))
  await errors.flush()
  for (let i = 0; i < 3; i++) errors.report(error)
  await errors.flush()
  expect(sent.map((s) => s.events.length)).toEqual([6])
  expect(sent[0]?.events.filter((e) => e.message === 'same every frame')).toHaveLength(5)
  expect(errors.suppressed).toBe(10)
})

test('an error thrown while reporting is dropped, never reported again', async () => {
  const { fetch, sent } = fakeFetch()
  const path = vi.fn((): string => {
    // What a window listener would do with an error raised inside report.
    errors.report(new Error('raised while reporting'))
    throw new Error('path unreadable')
  })
  const errors = createErrorBatcher({ release: '1', correlationId: 'visitor0001', userAgent: 'UA', path, fetch })
  expect(() => errors.report(new Error('original'))).not.toThrow()
  expect(path).toHaveBeenCalledTimes(1)
  expect(errors.queued).toBe(0)
  await errors.flush()
  expect(sent).toHaveLength(0)
  // A value whose message cannot be read does not throw either.
  const hostile = new Proxy({}, { get: () => { throw new Error('trap') } })
  expect(() => errors.report(hostile)).not.toThrow()
})

test('a throwing console.warn does not escape a failed send', async () => {
  warn.mockImplementation(() => {
    throw new Error('console gone')
  })
  const { fetch } = fakeFetch(503)
  const errors = batcher(fetch)
  errors.report(new Error('boom'))
  await expect(errors.flush()).resolves.toBeUndefined()
})

function fakeHost() {
  const listeners = new Map<string, Set<(event: Event) => void>>()
  const on = (type: string, listener: (event: Event) => void) => void (listeners.get(type) ?? listeners.set(type, new Set()).get(type))?.add(listener)
  const off = (type: string, listener: (event: Event) => void) => void listeners.get(type)?.delete(listener)
  const host = {
    addEventListener: on,
    removeEventListener: off,
    location: { pathname: '/items', protocol: 'http:' },
    navigator: { userAgent: 'TestAgent/2.0' },
    document: { cookie: 'kr-vis=visitor12345', visibilityState: 'visible', addEventListener: on, removeEventListener: off },
  } satisfies TelemetryHost
  const fire = (type: string, fields: object = {}) => {
    for (const listener of listeners.get(type) ?? []) listener({ type, ...fields } as unknown as Event)
  }
  return { host, fire }
}

test('startTelemetry reports window errors and unhandled rejections even with telemetry off, and sends them on page hide', async () => {
  const { fetch, sent } = fakeFetch()
  const { host, fire } = fakeHost()
  const started = startTelemetry({ telemetryEnabled: false, release: '0.1.0+abc', fetch, host })
  fire('error', { error: new TypeError('x is not a function'), message: 'Uncaught TypeError: x is not a function' })
  // A cross-origin script's error carries only the browser's text.
  fire('error', { error: null, message: 'Script error.' })
  fire('unhandledrejection', { reason: new Error('load failed') })
  host.location.pathname = '/items/i1'
  started.errors.report(new Error('boundary caught'), 'boundary')
  fire('pagehide')
  await vi.advanceTimersByTimeAsync(0)
  expect(sent).toHaveLength(1)
  expect(sent[0]?.events.map((e) => [e.name, e.message, e.path])).toEqual([
    ['web.error.window', 'x is not a function', '/items'],
    ['web.error.window', 'Script error.', '/items'],
    ['web.error.unhandled-rejection', 'load failed', '/items'],
    ['web.error.boundary', 'boundary caught', '/items/i1'],
  ])
  expect(sent[0]?.events[0]).toMatchObject({ userAgent: 'TestAgent/2.0', release: '0.1.0+abc', correlationId: 'visitor12345' })
  started.stop()
  fire('error', { error: new Error('after stop') })
  await vi.advanceTimersByTimeAsync(ERROR_FLUSH_MS)
  expect(sent).toHaveLength(1)
})
