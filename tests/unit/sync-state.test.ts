import { expect, test } from 'vitest'
import {
  applyChanges,
  applySnapshot,
  initialSyncState,
  isStaleCursor,
  shouldStartInitialSync,
  syncReducer,
  syncRetryDelayMs,
  type Collections,
  type EntityKind,
  type EntityOf,
  type SyncEntry,
} from '~/islands/sync/state'
import type { Item, Project, Report } from '~/lib/reporting/types'

const project = (id: string, title = 'P') => ({ id, title }) as unknown as Project
const report = (id: string) => ({ id, projectId: 'p1' }) as unknown as Report
const item = (id: string, title = 'I') => ({ id, title }) as unknown as Item
/** The spec's "keyed by id" collections, in Maps. */
function memoryCollections(): Collections & { [K in EntityKind]: Map<string, EntityOf[K]> } {
  const maps = { projects: new Map<string, Project>(), reports: new Map<string, Report>(), reportItems: new Map<string, Item>() }
  return {
    ...maps,
    upsert(kind, value) {
      ;(maps[kind] as Map<string, EntityOf[typeof kind]>).set(value.id, value)
    },
    remove(kind, id) {
      maps[kind].delete(id)
    },
    clear() {
      for (const map of Object.values(maps)) map.clear()
    },
  }
}

const cursor = { value: 'c1', expiresAtUtc: '2026-11-25T00:00:00.000Z' }

test('spec §3: the state starts idle, with no cursor, no pending origin, no request token and no error', () => {
  expect(initialSyncState).toMatchObject({ status: 'idle', cursor: null, pendingOrigin: null, requestToken: null, error: null })
})

test('spec §4: sync starts only when signed in, mobile sync is on, and there is no cursor', () => {
  expect(shouldStartInitialSync({ signedIn: true, mobileSync: true, cursor: null })).toBe(true)
  expect(shouldStartInitialSync({ signedIn: false, mobileSync: true, cursor: null })).toBe(false)
  expect(shouldStartInitialSync({ signedIn: true, mobileSync: false, cursor: null })).toBe(false)
  expect(shouldStartInitialSync({ signedIn: true, mobileSync: true, cursor })).toBe(false)
})

test('a snapshot page upserts every entity by id', () => {
  const c = memoryCollections()
  applySnapshot(c, { projects: [project('p1')], reports: [report('r1')], reportItems: [item('i1'), item('i2')] })
  applySnapshot(c, { projects: [project('p1', 'Renamed')], reports: [], reportItems: [item('i3')] })
  expect([...c.projects.values()]).toEqual([project('p1', 'Renamed')])
  expect([...c.reports.keys()]).toEqual(['r1'])
  expect([...c.reportItems.keys()]).toEqual(['i1', 'i2', 'i3'])
})

test('changes by entity: Deleted removes the entry, Created and Updated upsert it; an unknown entity type is skipped', () => {
  const c = memoryCollections()
  applySnapshot(c, { projects: [project('p1')], reports: [report('r1')], reportItems: [item('i1'), item('i2')] })
  const changes: SyncEntry[] = [
    { entity: 'ReportItem', changeType: 'Updated', revision: 5, entityId: 'i1', data: item('i1', 'Edited') },
    { entity: 'ReportItem', changeType: 'Deleted', revision: 6, entityId: 'i2', data: null },
    { entity: 'ReportItem', changeType: 'Created', revision: 7, entityId: 'i9', data: item('i9') },
    { entity: 'Project', changeType: 'Deleted', revision: 8, entityId: 'p1', data: null },
    { entity: 'ReportItem', changeType: 'Deleted', revision: 9, entityId: 'never-had', data: null },
    { entity: 'Package' as SyncEntry['entity'], changeType: 'Updated', revision: 10, entityId: 'x', data: item('x') },
  ]
  applyChanges(c, changes)
  expect([...c.reportItems.values()]).toEqual([item('i1', 'Edited'), item('i9')])
  expect(c.projects.size).toBe(0)
  expect(c.reports.size).toBe(1)
})

test('a pull: loading with its origin and token; success stores the cursor and clears the rest; a stale token is ignored', () => {
  let s = syncReducer(initialSyncState, { type: 'pullStarted', origin: 'start', requestToken: 't1' })
  expect(s).toMatchObject({ status: 'loading', pendingOrigin: 'start', requestToken: 't1', error: null })
  expect(syncReducer(s, { type: 'pullSucceeded', requestToken: 'other', cursor, at: 'now' })).toBe(s)
  s = syncReducer(s, { type: 'pullSucceeded', requestToken: 't1', cursor, at: '2026-11-24T01:00:00.000Z' })
  expect(s).toMatchObject({
    status: 'succeeded',
    cursor,
    pendingOrigin: null,
    requestToken: null,
    error: null,
    failures: 0,
    lastSyncedAt: '2026-11-24T01:00:00.000Z',
  })
})

test('a failure: failed with the message, one more failure in a row; success puts the count back to 0', () => {
  let s = syncReducer({ ...initialSyncState, cursor }, { type: 'pullStarted', origin: 'timer', requestToken: 't1' })
  s = syncReducer(s, { type: 'pullFailed', requestToken: 't1', status: 503, code: undefined, message: 'The service is down' })
  expect(s).toMatchObject({ status: 'failed', error: 'The service is down', failures: 1, cursor, requestToken: null })
  s = syncReducer(syncReducer(s, { type: 'pullStarted', origin: 'retry', requestToken: 't2' }), {
    type: 'pullFailed',
    requestToken: 't2',
    status: undefined,
    code: undefined,
    message: 'offline',
  })
  expect(s.failures).toBe(2)
  s = syncReducer(syncReducer(s, { type: 'pullStarted', origin: 'retry', requestToken: 't3' }), { type: 'pullSucceeded', requestToken: 't3', cursor, at: 'x' })
  expect(s.failures).toBe(0)
})

test('spec §4/§8: a stale cursor (410 or KR_SYNC_CURSOR_STALE) resets sync: no cursor, idle, so a full pull follows', () => {
  expect(isStaleCursor(410, undefined)).toBe(true)
  expect(isStaleCursor(400, 'KR_SYNC_CURSOR_STALE')).toBe(true)
  expect(isStaleCursor(500, undefined)).toBe(false)
  const loading = syncReducer({ ...initialSyncState, cursor, lastSyncedAt: 'yesterday' }, { type: 'pullStarted', origin: 'timer', requestToken: 't1' })
  const reset = syncReducer(loading, { type: 'pullFailed', requestToken: 't1', status: 410, code: 'KR_SYNC_CURSOR_STALE', message: 'Gone' })
  expect(reset).toEqual({ ...initialSyncState, lastSyncedAt: 'yesterday' })
  expect(shouldStartInitialSync({ signedIn: true, mobileSync: true, cursor: reset.cursor })).toBe(true)
})

test('spec §9: the retry waits 1 s, doubling, at most 30 s', () => {
  expect([1, 2, 3, 4, 5, 6, 7, 20].map(syncRetryDelayMs)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000])
})

test('reset (sign-out, revoked device) forgets everything', () => {
  expect(syncReducer({ ...initialSyncState, cursor, lastSyncedAt: 'x', failures: 3 }, { type: 'reset' })).toEqual(initialSyncState)
})
