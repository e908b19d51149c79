import { afterEach, beforeEach, expect, test, vi } from 'vitest'
import { inSample } from '~/islands/telemetry/sampling'
import { connectTelemetry, reportError, track, type TelemetrySink, type UsageDecision } from '~/lib/telemetry'
import { guardRedirectOf, TELEMETRY_EVENT_NAMES } from '~/lib/telemetry-events'

/** Issue 15: the events the product sends, and the page's door to the batchers (app/lib/telemetry.ts). */

beforeEach(() => {
  vi.stubGlobal('window', {})
})

afterEach(() => {
  connectTelemetry(undefined)
  vi.unstubAllGlobals()
})

test('the product’s event names: the web namespace, an area prefix, each once', () => {
  expect(TELEMETRY_EVENT_NAMES).toEqual([
    'web.auth.sign-in.step',
    'web.auth.guard.redirect',
    'web.sync.state',
    'web.realtime.state',
    'web.uploads.started',
    'web.uploads.resumed',
    'web.uploads.failed',
  ])
  for (const name of TELEMETRY_EVENT_NAMES) expect(name).toMatch(/^web\.(auth|sync|realtime|uploads)\.[a-z.-]+$/)
  expect(new Set(TELEMETRY_EVENT_NAMES).size).toBe(TELEMETRY_EVENT_NAMES.length)
})

test('a guard redirect is read from where the browser landed, naming the area only (no ids, no query)', () => {
  expect(guardRedirectOf('/auth/login', new URLSearchParams({ redirectTo: '/items/9f1c?status=open' }))).toEqual({ outcome: 'login', area: 'items' })
  expect(guardRedirectOf('/auth/login', new URLSearchParams({ redirectTo: '/admin/users', mode: 'admin' }))).toEqual({ outcome: 'step-up', area: 'admin' })
  expect(guardRedirectOf('/forbidden/admin', new URLSearchParams({ from: '/admin' }))).toEqual({ outcome: 'forbidden', area: 'admin' })
  expect(guardRedirectOf('/auth/login', new URLSearchParams({ redirectTo: '/%E6%97%A5' }))).toEqual({ outcome: 'login', area: 'other' })
  expect(guardRedirectOf('/auth/login', new URLSearchParams())).toBeNull()
  expect(guardRedirectOf('/dashboard', new URLSearchParams({ redirectTo: '/items' }))).toBeNull()
})

test('sampling is decided per visitor: the same id always the same way, about the configured share of ids in', () => {
  expect(inSample('visitor-a1b2c3', 100)).toBe(true)
  expect(inSample('visitor-a1b2c3', 0)).toBe(false)
  const ids = Array.from({ length: 2000 }, (_, i) => `v${i.toString(36)}x${(i * 7919).toString(36)}`)
  const first = ids.map((id) => inSample(id, 25))
  expect(ids.map((id) => inSample(id, 25))).toEqual(first)
  const share = first.filter(Boolean).length / ids.length
  expect(share).toBeGreaterThan(0.2)
  expect(share).toBeLessThan(0.3)
  // A visitor in at 25 % stays in at 50 %.
  ids.forEach((id, i) => {
    if (first[i]) expect(inSample(id, 50)).toBe(true)
  })
})

function sink(usage: UsageDecision) {
  const tracked: Array<[string, Record<string, unknown>, string]> = []
  const reported: Array<[unknown, string]> = []
  const value: TelemetrySink = { usage, track: (name, properties, at) => tracked.push([name, properties, at]), report: (error, source) => reported.push([error, source]) }
  return { value, tracked, reported }
}

test('before the batchers start, events and errors wait (with their time), then go to them; usage off drops the events', () => {
  vi.useFakeTimers()
  vi.setSystemTime(new Date('2026-01-02T03:04:05Z'))
  track('web.auth.sign-in.step', { step: 'credentials' })
  const boom = new Error('early')
  reportError(boom, 'route-load')
  vi.setSystemTime(new Date('2026-01-02T03:05:00Z'))

  // Signed out: errors go, events still wait for an organisation's answer.
  const signedOut = sink('undecided')
  connectTelemetry(signedOut.value)
  expect(signedOut.reported).toEqual([[boom, 'route-load']])
  expect(signedOut.tracked).toEqual([])
  track('web.auth.sign-in.step', { step: 'mfa' })
  expect(signedOut.tracked).toEqual([])

  const on = sink('on')
  connectTelemetry(on.value)
  expect(on.tracked).toEqual([
    ['web.auth.sign-in.step', { step: 'credentials' }, '2026-01-02T03:04:05.000Z'],
    ['web.auth.sign-in.step', { step: 'mfa' }, '2026-01-02T03:05:00.000Z'],
  ])
  track('web.sync.state', { status: 'succeeded' })
  expect(on.tracked).toHaveLength(3)

  const off = sink('off')
  connectTelemetry(off.value)
  track('web.sync.state', { status: 'failed' })
  connectTelemetry(on.value)
  expect(on.tracked).toHaveLength(3)
  vi.useRealTimers()
})

test('what waits is bounded: the oldest go', () => {
  for (let i = 0; i < 100; i++) track('web.realtime.state', { i })
  const on = sink('on')
  connectTelemetry(on.value)
  expect(on.tracked).toHaveLength(40)
  expect(on.tracked[0]?.[1]).toEqual({ i: 60 })
})

test('on the server both do nothing', () => {
  vi.unstubAllGlobals()
  const on = sink('on')
  track('web.sync.state')
  reportError(new Error('server'))
  connectTelemetry(on.value)
  expect(on.tracked).toEqual([])
  expect(on.reported).toEqual([])
})

test('error boundaries report render errors and failed route loads, not the 4xx answers the app means', async () => {
  const { routeErrorReport } = await import('~/components/errors/route-error')
  const render = new TypeError('x is undefined')
  expect(routeErrorReport(render)).toEqual({ error: render, source: 'boundary' })
  const chunk = new TypeError('Failed to fetch dynamically imported module: https://portal.test/assets/items-Ab1.js')
  expect(routeErrorReport(chunk)).toEqual({ error: chunk, source: 'route-load' })
  const { isRouteErrorResponse, UNSAFE_ErrorResponseImpl: ErrorResponse } = await import('react-router')
  const failed = new ErrorResponse(503, 'Service Unavailable', null)
  expect(isRouteErrorResponse(failed)).toBe(true)
  expect(routeErrorReport(failed)).toEqual({ error: new Error('Route load failed with status 503'), source: 'route-load' })
  expect(routeErrorReport(new ErrorResponse(404, 'Not Found', null))).toBeNull()
})
