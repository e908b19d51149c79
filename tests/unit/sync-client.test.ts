import 'fake-indexeddb/auto'
import { expect, test } from 'vitest'
import { clearLocalCopy, openLocalCopy, type Owner } from '~/islands/sync/local-copy'
import { SYNC_PATH, SyncClient } from '~/islands/sync/sync-client'
import { createApiClient } from '~/lib/api/client'
import type { Item, Project, Report } from '~/lib/reporting/types'

/**
 * The sync loop against a fake feed (the real one is tested in tests/api/reporting-sync.test.ts)
 * and IndexedDB from fake-indexeddb: pages, the copy, back-off, a stale cursor, a revoked device.
 */

const item = (id: string, title = id, assignee: string | null = null) =>
  ({ id, title, assignee: assignee ? { id: assignee, displayName: 'A' } : null, updatedAtUtc: `2026-11-24T00:00:0${id.length % 10}.000Z` }) as unknown as Item
const project = (id: string) => ({ id, title: id }) as unknown as Project
const report = (id: string) => ({ id, projectId: 'p1' }) as unknown as Report
const cursor = (value: string) => ({ value, expiresAtUtc: '2026-11-25T00:00:00.000Z' })

type Answer = { status: number; body: unknown }
let ownerSeq = 0

function setup(answers: Record<string, Answer | Answer[]>) {
  const calls: { method: string; path: string; device: string | null }[] = []
  const timers: { work: () => void; ms: number }[] = []
  const api = createApiClient({
    transport: async (request) => {
      const url = new URL(request.url)
      const path = url.pathname + url.search
      calls.push({ method: request.method, path, device: request.headers.get('x-device-id') })
      const key = `${request.method} ${path}`
      const entry = answers[key]
      const answer = Array.isArray(entry) ? entry.shift() : entry
      if (!answer) throw new TypeError(`Failed to fetch (${key} not scripted)`)
      return new Response(JSON.stringify(answer.body), {
        status: answer.status,
        headers: { 'content-type': answer.status >= 400 ? 'application/problem+json' : 'application/json' },
      })
    },
    origin: 'https://portal.test',
    getCsrfToken: () => 'token',
    clientId: 'client-1',
    os: 'Android',
    sleep: () => Promise.resolve(),
  })
  const owner: Owner = { userId: 'u1', tenantId: `t${++ownerSeq}` }
  const client = new SyncClient({
    api,
    openCopy: openLocalCopy,
    clearCopy: clearLocalCopy,
    deviceId: 'device-1',
    setTimer: (work, ms) => timers.push({ work, ms }),
  })
  return { client, calls, timers, owner }
}

const registered: Answer = { status: 201, body: { deviceId: 'device-1' } }
const at = (c?: string) => (c ? `GET ${SYNC_PATH}?cursor=${c}` : `GET ${SYNC_PATH}`)

async function settled(client: SyncClient): Promise<void> {
  for (let i = 0; i < 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5))
    const s = client.getSnapshot()
    if (s.status !== 'loading' && s.status !== 'idle') return
  }
  throw new Error(`still ${client.getSnapshot().status}`)
}

test('a first start: registers the device, pulls the snapshot page by page with X-Device-Id, keeps it with the cursor; later changes apply by entity', async () => {
  const { client, calls, owner } = setup({
    'POST /auth/devices/register': registered,
    [at()]: {
      status: 200,
      body: {
        snapshot: { projects: [project('p1')], reports: [report('r1')], reportItems: [item('i1', 'One', 'u1')] },
        cursor: cursor('cont1'),
        hasMore: true,
      },
    },
    [at('cont1')]: {
      status: 200,
      body: { snapshot: { projects: [], reports: [], reportItems: [item('i2'), item('i3')] }, cursor: cursor('rev10'), hasMore: false },
    },
    [at('rev10')]: {
      status: 200,
      body: {
        changes: [
          { entity: 'ReportItem', changeType: 'Updated', revision: 11, entityId: 'i1', data: item('i1', 'One, edited', 'u1') },
          { entity: 'ReportItem', changeType: 'Deleted', revision: 12, entityId: 'i2', data: null },
        ],
        cursor: cursor('rev12'),
        hasMore: false,
      },
    },
  })
  await client.start(owner)
  await settled(client)
  expect(client.getSnapshot()).toMatchObject({ status: 'succeeded', cursor: cursor('rev10'), entities: 3, failures: 0 })
  expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /auth/devices/register', at(), at('cont1')])
  expect(calls.filter((c) => c.method === 'GET').every((c) => c.device === 'device-1')).toBe(true)

  client.pull('realtime')
  await settled(client)
  const copy = await openLocalCopy(owner)
  expect((await copy.getItem('i1'))?.title).toBe('One, edited')
  expect(await copy.getItem('i2')).toBeUndefined()
  expect((await copy.assignedItems()).map((i) => i.id)).toEqual(['i1'])
  expect(await copy.cursor()).toEqual(cursor('rev12'))
  expect(await copy.getProject('p1')).toEqual(project('p1'))
  copy.close()
  await client.stop()
})

test('the copy outlives the tab: a new start pulls only the changes after the stored cursor', async () => {
  const first = setup({
    'POST /auth/devices/register': registered,
    [at()]: { status: 200, body: { snapshot: { projects: [], reports: [], reportItems: [item('i1')] }, cursor: cursor('rev5'), hasMore: false } },
  })
  await first.client.start(first.owner)
  await settled(first.client)
  await first.client.stop()

  const again = setup({
    'POST /auth/devices/register': registered,
    [at('rev5')]: { status: 200, body: { changes: [], cursor: cursor('rev5'), hasMore: false } },
  })
  await again.client.start(first.owner)
  await settled(again.client)
  expect(again.calls.map((c) => c.path)).toEqual(['/auth/devices/register', `${SYNC_PATH}?cursor=rev5`])
  expect(again.client.getSnapshot()).toMatchObject({ status: 'succeeded', entities: 1 })
  await again.client.stop()
})

test('a failure backs off 1 s, then 2 s; the retry that works puts the count back', async () => {
  const { client, timers, owner } = setup({
    'POST /auth/devices/register': registered,
    [at()]: [
      { status: 503, body: { status: 503, title: 'Unavailable', code: 'KR_UNAVAILABLE' } },
      { status: 503, body: { status: 503, title: 'Unavailable', code: 'KR_UNAVAILABLE' } },
      { status: 200, body: { snapshot: { projects: [], reports: [], reportItems: [item('i1')] }, cursor: cursor('rev1'), hasMore: false } },
    ],
  })
  await client.start(owner)
  await settled(client)
  expect(client.getSnapshot()).toMatchObject({ status: 'failed', failures: 1 })
  expect(timers.map((t) => t.ms)).toEqual([1000])
  timers[0]?.work()
  await new Promise((resolve) => setTimeout(resolve, 20))
  await settled(client)
  expect(timers.map((t) => t.ms)).toEqual([1000, 2000])
  timers[1]?.work()
  await new Promise((resolve) => setTimeout(resolve, 20))
  await settled(client)
  expect(client.getSnapshot()).toMatchObject({ status: 'succeeded', failures: 0, entities: 1 })
  await client.stop()
})

test('a stale cursor (410): the copy is emptied and the whole scope is pulled again, by itself', async () => {
  const { client, calls, owner } = setup({
    'POST /auth/devices/register': registered,
    [at()]: [
      { status: 200, body: { snapshot: { projects: [], reports: [], reportItems: [item('i1'), item('gone')] }, cursor: cursor('rev1'), hasMore: false } },
      { status: 200, body: { snapshot: { projects: [], reports: [], reportItems: [item('i1')] }, cursor: cursor('rev9'), hasMore: false } },
    ],
    [at('rev1')]: { status: 410, body: { status: 410, title: 'Gone', code: 'KR_SYNC_CURSOR_STALE' } },
  })
  await client.start(owner)
  await settled(client)
  client.pull('timer')
  await new Promise((resolve) => setTimeout(resolve, 50))
  await settled(client)
  expect(calls.map((c) => c.path)).toEqual(['/auth/devices/register', SYNC_PATH, `${SYNC_PATH}?cursor=rev1`, SYNC_PATH])
  expect(client.getSnapshot()).toMatchObject({ status: 'succeeded', cursor: cursor('rev9'), entities: 1 })
  const copy = await openLocalCopy(owner)
  expect(await copy.getItem('gone')).toBeUndefined()
  copy.close()
  await client.stop()
})

test('a revoked device (403 KR_DEVICE_REVOKED): the copy is deleted and sync stops', async () => {
  const { client, calls, owner } = setup({
    'POST /auth/devices/register': registered,
    [at()]: [{ status: 200, body: { snapshot: { projects: [], reports: [], reportItems: [item('i1')] }, cursor: cursor('rev1'), hasMore: false } }],
    [at('rev1')]: { status: 403, body: { status: 403, title: 'Forbidden', code: 'KR_DEVICE_REVOKED' } },
  })
  await client.start(owner)
  await settled(client)
  client.pull('timer')
  for (let i = 0; i < 100 && !client.getSnapshot().revoked; i++) await new Promise((resolve) => setTimeout(resolve, 5))
  expect(client.getSnapshot()).toMatchObject({ revoked: true, cursor: null, entities: 0 })
  const reopened = await openLocalCopy(owner)
  expect(await reopened.count('reportItems')).toBe(0)
  reopened.close()
  const before = calls.length
  client.pull('timer')
  await new Promise((resolve) => setTimeout(resolve, 20))
  expect(calls.length).toBe(before)
})
