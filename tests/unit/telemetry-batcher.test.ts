import { afterEach, beforeEach, expect, test, vi, type MockInstance } from 'vitest'
import { createTelemetryBatcher, type TelemetryEvent } from '~/islands/telemetry/telemetry-batcher'
import { startTelemetry, type TelemetryHost } from '~/islands/telemetry/start'
import { TELEMETRY_FLUSH_EVENTS, TELEMETRY_FLUSH_MS, TELEMETRY_PATHS, TELEMETRY_QUEUE_MAX } from '~/lib/constants'

/** Spec §7 "Telemetry", §8 "Behaviour" and §9 "Telemetry batch", with faked timers and fetch. */

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

type Sent = { url: string; init: RequestInit; body: { source: string; events: TelemetryEvent[] } }

/** A fetch that answers each call with the next status (the last one repeats); 0 is a network error. */
function fakeFetch(...statuses: number[]) {
  const sent: Sent[] = []
  const fetch = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
    sent.push({ url: String(url), init: init ?? {}, body: JSON.parse(String(init?.body)) })
    const status = statuses[Math.min(sent.length, statuses.length) - 1] ?? 204
    if (status === 0) throw new TypeError('Failed to fetch')
    return new Response(null, { status })
  })
  return { fetch: fetch as unknown as typeof globalThis.fetch, sent }
}

function batcher(fetch: typeof globalThis.fetch, enabled = true, sendBeacon?: (url: string, data: Blob) => boolean) {
  return createTelemetryBatcher({ enabled, correlationId: 'visitor0001', fetch, sendBeacon })
}

test('the batch constants are those of spec §9 and the issue', () => {
  expect(TELEMETRY_FLUSH_EVENTS).toBe(40)
  expect(TELEMETRY_FLUSH_MS).toBe(5000)
  expect(TELEMETRY_QUEUE_MAX).toBe(500)
  expect(TELEMETRY_PATHS).toEqual({
    events: '/telemetry/events',
    publicEvents: '/telemetry/public-events',
    publicErrors: '/telemetry/public-errors',
  })
})

test('the 40th event flushes at once as one credentialed POST /telemetry/events', async () => {
  const { fetch, sent } = fakeFetch(202)
  const t = batcher(fetch)
  for (let i = 0; i < 39; i++) t.track('web.sync.state', { i })
  expect(sent).toHaveLength(0)
  t.track('web.sync.state', { i: 39 })
  await vi.advanceTimersByTimeAsync(0)
  expect(sent).toHaveLength(1)
  const [request] = sent
  expect(request?.url).toBe('/telemetry/events')
  expect(request?.init).toMatchObject({ method: 'POST', credentials: 'include', headers: { 'Content-Type': 'application/json' } })
  expect(request?.body.source).toBe('web')
  expect(request?.body.events).toHaveLength(40)
  expect(request?.body.events[0]).toEqual({
    name: 'web.sync.state',
    properties: { i: 0 },
    source: 'web',
    timestampUtc: '2025-03-01T10:00:00.000Z',
    correlationId: 'visitor0001',
  })
  expect(t.queued).toBe(0)
  expect(t.failures).toMatchObject({ failureCount: 0, consecutiveFailures: 0, lastSuccessUtc: '2025-03-01T10:00:00.000Z' })
  expect(warn).not.toHaveBeenCalled()
})

test('fewer events go 5000 ms after the first one was queued', async () => {
  const { fetch, sent } = fakeFetch(204)
  const t = batcher(fetch)
  t.track('web.auth.guard.redirect', { to: '/auth/login' })
  await vi.advanceTimersByTimeAsync(3000)
  // A later event does not push the deadline back.
  t.track('web.realtime.state', { state: 'connected' }, 'request-corr-1')
  await vi.advanceTimersByTimeAsync(1999)
  expect(sent).toHaveLength(0)
  await vi.advanceTimersByTimeAsync(1)
  expect(sent).toHaveLength(1)
  expect(sent[0]?.body.events.map((e) => [e.name, e.correlationId])).toEqual([
    ['web.auth.guard.redirect', 'visitor0001'],
    ['web.realtime.state', 'request-corr-1'],
  ])
})

test('the optional extra headers ride on the credentialed send only', async () => {
  const { fetch, sent } = fakeFetch(401, 204)
  const t = createTelemetryBatcher({ enabled: true, correlationId: 'visitor0001', fetch, headers: () => ({ Authorization: 'Bearer x' }) })
  t.track('web.sync.state')
  await t.flush()
  expect(sent[0]?.init.headers).toEqual({ 'Content-Type': 'application/json', Authorization: 'Bearer x' })
  expect(sent[1]?.init.headers).toEqual({ 'Content-Type': 'application/json' })
})

test.each([401, 403])('a %i is retried once as POST /telemetry/public-events without credentials', async (status) => {
  const { fetch, sent } = fakeFetch(status, 204)
  const t = batcher(fetch)
  t.track('web.auth.sign-in.step', { step: 'password' })
  await t.flush()
  expect(sent.map((s) => [s.url, s.init.credentials])).toEqual([
    ['/telemetry/events', 'include'],
    ['/telemetry/public-events', 'omit'],
  ])
  expect(sent[1]?.body).toEqual(sent[0]?.body)
  expect(t.failures.failureCount).toBe(0)
  expect(t.queued).toBe(0)
  expect(warn).not.toHaveBeenCalled()
})

test('a refused public retry is a failure with its status; there is no third try', async () => {
  const { fetch, sent } = fakeFetch(401, 403)
  const t = batcher(fetch)
  t.track('web.sync.state')
  await t.flush()
  expect(sent).toHaveLength(2)
  expect(warn).toHaveBeenCalledWith('Telemetry ingest failed with status 403')
})

test('a failure logs its status, raises the failure tracking and re-queues the events at the front', async () => {
  const { fetch, sent } = fakeFetch(500, 0, 204)
  const t = batcher(fetch)
  t.track('web.uploads.started', { n: 1 })
  await t.flush()
  expect(warn).toHaveBeenLastCalledWith('Telemetry ingest failed with status 500')
  expect(t.failures).toEqual({
    failureCount: 1,
    consecutiveFailures: 1,
    lastFailureUtc: '2025-03-01T10:00:00.000Z',
    lastSuccessUtc: null,
    lastError: 'Telemetry ingest failed with status 500',
  })
  expect(t.queued).toBe(1)

  // A network error counts as status 0; the failed event stays in front of the newer one.
  vi.setSystemTime(new Date('2025-03-01T10:01:00Z'))
  t.track('web.uploads.resumed', { n: 2 })
  await t.flush()
  expect(warn).toHaveBeenLastCalledWith('Telemetry ingest failed with status 0')
  expect(t.failures).toMatchObject({ failureCount: 2, consecutiveFailures: 2, lastFailureUtc: '2025-03-01T10:01:00.000Z' })

  vi.setSystemTime(new Date('2025-03-01T10:02:00Z'))
  t.track('web.uploads.failed', { n: 3 })
  await t.flush()
  expect(sent[2]?.body.events.map((e) => e.properties.n)).toEqual([1, 2, 3])
  expect(t.failures).toEqual({
    failureCount: 2,
    consecutiveFailures: 0,
    lastFailureUtc: '2025-03-01T10:01:00.000Z',
    lastSuccessUtc: '2025-03-01T10:02:00.000Z',
    lastError: 'Telemetry ingest failed with status 0',
  })
  expect(warn).toHaveBeenCalledTimes(2)
})

test('the re-queue keeps at most 500 events and drops the oldest; a recovered ingest drains them 40 a request', async () => {
  const { fetch, sent } = fakeFetch(503, 503, 204)
  const t = batcher(fetch)
  for (let i = 0; i < 30; i++) t.track('web.sync.state', { i })
  await t.flush()
  expect(t.queued).toBe(30)
  for (let i = 30; i < 520; i++) t.track('web.sync.state', { i })
  expect(t.queued).toBe(500)
  await t.flush()
  expect(sent[1]?.body.events.map((e) => e.properties.i)).toEqual(Array.from({ length: 40 }, (_, k) => 20 + k))
  expect(t.queued).toBe(500)
  await t.flush()
  await vi.advanceTimersByTimeAsync(TELEMETRY_FLUSH_MS)
  const drained = sent.slice(2)
  expect(drained.map((s) => s.body.events.length)).toEqual([...Array<number>(12).fill(40), 20])
  expect(drained.flatMap((s) => s.body.events.map((e) => e.properties.i))).toEqual(Array.from({ length: 500 }, (_, k) => 20 + k))
  expect(t.queued).toBe(0)
})

test('while the ingest fails, a full queue waits for the timer instead of sending on every event', async () => {
  const { fetch, sent } = fakeFetch(500, 500, 204)
  const t = batcher(fetch)
  for (let i = 0; i < 40; i++) t.track('web.sync.state', { i })
  await vi.advanceTimersByTimeAsync(0)
  expect(sent).toHaveLength(1)
  for (let i = 40; i < 50; i++) t.track('web.sync.state', { i })
  await vi.advanceTimersByTimeAsync(4999)
  expect(sent).toHaveLength(1)
  await vi.advanceTimersByTimeAsync(1)
  expect(sent).toHaveLength(2)
  await vi.advanceTimersByTimeAsync(5000)
  expect(sent).toHaveLength(3)
  expect(sent[2]?.body.events.map((e) => e.properties.i)).toEqual(Array.from({ length: 40 }, (_, k) => k))
  await vi.advanceTimersByTimeAsync(5000)
  expect(sent[3]?.body.events.map((e) => e.properties.i)).toEqual(Array.from({ length: 10 }, (_, k) => 40 + k))
  expect(t.queued).toBe(0)
})

test('events tracked while a send is in flight wait for it, then follow the usual rules', async () => {
  let answer: (response: Response) => void = () => {}
  const sent: number[] = []
  const fetch = vi.fn((_url: string | URL | Request, init?: RequestInit) => {
    sent.push(JSON.parse(String(init?.body)).events.length)
    return sent.length === 1 ? new Promise<Response>((resolve) => (answer = resolve)) : Promise.resolve(new Response(null, { status: 204 }))
  }) as unknown as typeof globalThis.fetch
  const t = batcher(fetch)
  for (let i = 0; i < 40; i++) t.track('web.sync.state')
  for (let i = 0; i < 45; i++) t.track('web.sync.state')
  await vi.advanceTimersByTimeAsync(10_000)
  expect(sent).toEqual([40])
  answer(new Response(null, { status: 204 }))
  await vi.advanceTimersByTimeAsync(0)
  expect(sent).toEqual([40, 40])
  await vi.advanceTimersByTimeAsync(TELEMETRY_FLUSH_MS)
  expect(sent).toEqual([40, 40, 5])
})

test('page hide hands the queue to sendBeacon as a JSON blob for /telemetry/events', async () => {
  const { fetch, sent } = fakeFetch(204)
  const beacons: { url: string; data: Blob }[] = []
  const t = batcher(fetch, true, (url, data) => beacons.push({ url, data }) > 0)
  t.track('web.sync.state', { last: true })
  t.flushBeacon()
  expect(beacons).toHaveLength(1)
  expect(beacons[0]?.url).toBe('/telemetry/events')
  expect(beacons[0]?.data.type).toBe('application/json')
  const body = JSON.parse(await beacons[0]!.data.text())
  expect(body).toMatchObject({ source: 'web', events: [{ name: 'web.sync.state', properties: { last: true } }] })
  expect(t.queued).toBe(0)
  await vi.advanceTimersByTimeAsync(TELEMETRY_FLUSH_MS)
  expect(sent).toHaveLength(0)
  // Nothing queued, no beacon.
  t.flushBeacon()
  expect(beacons).toHaveLength(1)
})

test('a long queue goes as several beacons of at most 40; a refused one leaves the rest queued', async () => {
  // The first 40 hang in a fetch, so 90 are still queued at page hide.
  const hanging = vi.fn(() => new Promise<Response>(() => {})) as unknown as typeof globalThis.fetch
  const beacons: Blob[] = []
  let accept = 2
  const t = batcher(hanging, true, (_url, data) => accept-- > 0 && beacons.push(data) > 0)
  for (let i = 0; i < 130; i++) t.track('web.sync.state', { i })
  expect(t.queued).toBe(90)
  t.flushBeacon()
  expect(t.queued).toBe(10)
  accept = 5
  t.flushBeacon()
  const sent = await Promise.all(beacons.map(async (blob) => JSON.parse(await blob.text()).events.map((e: TelemetryEvent) => e.properties.i)))
  expect(sent.map((events) => events.length)).toEqual([40, 40, 10])
  expect(sent.flat()).toEqual(Array.from({ length: 90 }, (_, k) => 40 + k))
  expect(t.queued).toBe(0)
})

test('disabled telemetry (the default of spec §7) queues and sends nothing at all', async () => {
  const { fetch, sent } = fakeFetch(204)
  const beacon = vi.fn(() => true)
  const t = batcher(fetch, false, beacon)
  for (let i = 0; i < 100; i++) t.track('web.sync.state', { i })
  expect(t.queued).toBe(0)
  await vi.advanceTimersByTimeAsync(60_000)
  await t.flush()
  t.flushBeacon()
  expect(sent).toHaveLength(0)
  expect(beacon).not.toHaveBeenCalled()
})

/** A window-like host whose listeners the test can fire. */
function fakeHost(sendBeacon: (url: string, data: Blob) => boolean) {
  const listeners = new Map<string, Set<(event: Event) => void>>()
  const on = (type: string, listener: (event: Event) => void) => void (listeners.get(type) ?? listeners.set(type, new Set()).get(type))?.add(listener)
  const off = (type: string, listener: (event: Event) => void) => void listeners.get(type)?.delete(listener)
  const host = {
    addEventListener: on,
    removeEventListener: off,
    location: { pathname: '/projects/p1', protocol: 'https:' },
    navigator: { userAgent: 'TestAgent/1.0', sendBeacon },
    document: { cookie: '', visibilityState: 'visible', addEventListener: on, removeEventListener: off },
  } satisfies TelemetryHost
  const fire = (type: string, fields: object = {}) => {
    for (const listener of listeners.get(type) ?? []) listener({ type, ...fields } as unknown as Event)
  }
  return { host, fire, listeners }
}

test('startTelemetry beacons on pagehide and on visibilitychange to hidden, and stop removes its listeners', () => {
  const { fetch, sent } = fakeFetch(204)
  const beacon = vi.fn((_url: string, _data: Blob) => true)
  const { host, fire, listeners } = fakeHost(beacon)
  const started = startTelemetry({ telemetryEnabled: true, release: '0.1.0', fetch, host })
  expect(started.visitorId).toMatch(/^[A-Za-z0-9]{8,36}$/)
  started.telemetry.track('web.sync.state')
  fire('visibilitychange')
  expect(beacon).not.toHaveBeenCalled()
  host.document.visibilityState = 'hidden'
  fire('visibilitychange')
  expect(beacon).toHaveBeenCalledTimes(1)
  started.telemetry.track('web.sync.state')
  fire('pagehide')
  expect(beacon).toHaveBeenCalledTimes(2)
  expect(sent).toHaveLength(0)
  started.stop()
  expect([...listeners.values()].every((set) => set.size === 0)).toBe(true)
})

test('startTelemetry with telemetry off sends no telemetry, not even a beacon', () => {
  const { fetch, sent } = fakeFetch(204)
  const beacon = vi.fn((_url: string, _data: Blob) => true)
  const { host, fire } = fakeHost(beacon)
  const started = startTelemetry({ telemetryEnabled: false, release: '0.1.0', fetch, host })
  started.telemetry.track('web.sync.state')
  fire('pagehide')
  expect(beacon).not.toHaveBeenCalled()
  expect(sent).toHaveLength(0)
  started.stop()
})

test('startTelemetry samples per visitor: at 0 % no usage events however telemetry is set; frontend errors off adds no error listeners', async () => {
  const { fetch, sent } = fakeFetch(202)
  const beacon = vi.fn((_url: string, _data: Blob) => true)
  const { host, fire, listeners } = fakeHost(beacon)
  const none = startTelemetry({ telemetryEnabled: true, samplingPercent: 0, errorsEnabled: false, release: '0.1.0', fetch, host })
  expect(none.sampled).toBe(false)
  none.telemetry.track('web.sync.state')
  expect(none.telemetry.queued).toBe(0)
  expect(listeners.get('error')?.size ?? 0).toBe(0)
  expect(listeners.get('unhandledrejection')?.size ?? 0).toBe(0)
  fire('error', { error: new Error('not collected') })
  none.errors.report(new Error('not collected either'))
  await vi.advanceTimersByTimeAsync(10_000)
  expect(sent).toHaveLength(0)
  none.stop()

  const all = startTelemetry({ telemetryEnabled: true, samplingPercent: 100, release: '0.1.0', fetch, host })
  expect(all.sampled).toBe(true)
  expect(all.visitorId).toBe(none.visitorId)
  all.stop()
})
