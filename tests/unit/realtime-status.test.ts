import { expect, test } from 'vitest'
import { type RealtimeEvent, indicatorText, initialRealtimeState, realtimeReducer, retriesOnItsOwn, retriesOnReturn } from '~/islands/realtime/status'

const run = (...events: RealtimeEvent[]) => events.reduce(realtimeReducer, initialRealtimeState)

test('a first connect goes idle → connecting → connected, and the indicator stays quiet until it is up', () => {
  expect(initialRealtimeState.status).toBe('idle')
  expect(indicatorText(initialRealtimeState)).toBeNull()
  const connecting = run({ type: 'connecting' })
  expect(connecting.status).toBe('connecting')
  expect(indicatorText(connecting)).toBeNull()
  const connected = realtimeReducer(connecting, { type: 'connected' })
  expect(connected).toEqual({ status: 'connected', hadConnection: true })
  expect(indicatorText(connected)).toBe('Live')
})

test('a drop reconnects, and after giving up the connection is disconnected, shown as Offline and retried', () => {
  const reconnecting = run({ type: 'connecting' }, { type: 'connected' }, { type: 'reconnecting' })
  expect(reconnecting.status).toBe('reconnecting')
  expect(indicatorText(reconnecting)).toBe('Reconnecting…')
  const gaveUp = realtimeReducer(reconnecting, { type: 'ended', reason: 'dropped' })
  expect(gaveUp.status).toBe('disconnected')
  expect(indicatorText(gaveUp)).toBe('Offline')
  expect(retriesOnItsOwn(gaveUp)).toBe(true)
  expect(retriesOnReturn(gaveUp)).toBe(true)
  // A new try after a drop says "Reconnecting…", not nothing.
  const again = realtimeReducer(gaveUp, { type: 'connecting' })
  expect(again.status).toBe('connecting')
  expect(indicatorText(again)).toBe('Reconnecting…')
  expect(realtimeReducer(again, { type: 'connected' }).status).toBe('connected')
})

test('a first connect that fails is disconnected too, and tried again', () => {
  const failed = run({ type: 'connecting' }, { type: 'ended', reason: 'dropped' })
  expect(failed).toEqual({ status: 'disconnected', hadConnection: false })
  expect(indicatorText(failed)).toBe('Offline')
  expect(retriesOnItsOwn(failed)).toBe(true)
})

test('a 401 means signed out: disabled, silent, and not retried by the timer', () => {
  const signedOut = run({ type: 'connecting' }, { type: 'connected' }, { type: 'reconnecting' }, { type: 'ended', reason: 'signed-out' })
  expect(signedOut.status).toBe('disabled')
  expect(indicatorText(signedOut)).toBeNull()
  expect(retriesOnItsOwn(signedOut)).toBe(false)
  // The user may have signed in again in another tab: coming back is worth one try.
  expect(retriesOnReturn(signedOut)).toBe(true)
  const neverUp = run({ type: 'connecting' }, { type: 'ended', reason: 'signed-out' })
  expect(retriesOnReturn(neverUp)).toBe(false)
})

test('a refusal is an error: Offline, retried only when the user comes back', () => {
  const refused = run({ type: 'connecting' }, { type: 'connected' }, { type: 'ended', reason: 'refused' })
  expect(refused.status).toBe('error')
  expect(indicatorText(refused)).toBe('Offline')
  expect(retriesOnItsOwn(refused)).toBe(false)
  expect(retriesOnReturn(refused)).toBe(true)
})

test('no WebSocket: disabled, silent, never retried', () => {
  const unsupported = run({ type: 'unsupported' })
  expect(unsupported.status).toBe('disabled')
  expect(indicatorText(unsupported)).toBeNull()
  expect(retriesOnItsOwn(unsupported)).toBe(false)
  expect(retriesOnReturn(unsupported)).toBe(false)
})

test('reconnecting only follows a live connection, and stopping returns to idle whatever came before', () => {
  expect(run({ type: 'connecting' }, { type: 'reconnecting' }).status).toBe('connecting')
  expect(run({ type: 'connecting' }, { type: 'connected' }, { type: 'stopped' })).toEqual(initialRealtimeState)
  // A close reported after the stop changes nothing.
  expect(run({ type: 'connecting' }, { type: 'stopped' }, { type: 'ended', reason: 'dropped' }).status).toBe('idle')
})

test('every status the reducer reaches is one of spec §4', () => {
  const seen = new Set([
    run().status,
    run({ type: 'unsupported' }).status,
    run({ type: 'connecting' }).status,
    run({ type: 'connecting' }, { type: 'connected' }).status,
    run({ type: 'connecting' }, { type: 'connected' }, { type: 'reconnecting' }).status,
    run({ type: 'connecting' }, { type: 'ended', reason: 'dropped' }).status,
    run({ type: 'connecting' }, { type: 'ended', reason: 'refused' }).status,
  ])
  expect([...seen].sort()).toEqual(['connected', 'connecting', 'disabled', 'disconnected', 'error', 'idle', 'reconnecting'])
})
