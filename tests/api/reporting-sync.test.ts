import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { projects, reportItems } from '#server/db/schema-reporting'
import { withTenant } from '#server/db/tenancy'
import { CHANGE_LOG_RETENTION_DAYS, recordChange } from '#server/domain/tenancy/change-log'
import { compactChangeLogs } from '#server/jobs/change-log-compaction'
import { SYNC_MOBILE_CLOSED_DAYS, SYNC_PAGE_SIZE, type SyncChange, type SyncChanges, type SyncSnapshot } from '#server/domain/reporting/sync'
import { encodeCursor, syncCursorKey } from '#server/domain/reporting/sync-cursor'
import type { Item, Project, Report } from '~/lib/reporting/types'
import { createMember, createTenant, expectProblem, signedInClient, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import {
  asTestMember,
  changeLogOf,
  createItem,
  createOrg,
  createProject,
  createReport,
  json,
  patch,
  signedInMember,
  type Org,
} from '#tests/helpers/reporting-b'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2025-03-10T08:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

const DAY_MS = 24 * 60 * 60_000
const FULL = '/api/sync/changes'
const MOBILE = '/api/sync/changes-mobile'
const PATHS = [FULL, MOBILE]

function url(path: string, cursor: string | undefined, limit?: number): string {
  const query = new URLSearchParams()
  if (cursor !== undefined) query.set('cursor', cursor)
  if (limit !== undefined) query.set('limit', String(limit))
  const text = query.toString()
  return text ? `${path}?${text}` : path
}

async function snapshotPage(c: TestClient, cursor?: string, limit?: number, path = '/api/sync/changes'): Promise<SyncSnapshot> {
  return json<SyncSnapshot>(await c.get(url(path, cursor, limit)))
}

async function changesAfter(c: TestClient, cursor: string, limit?: number, path = '/api/sync/changes'): Promise<SyncChanges> {
  return json<SyncChanges>(await c.get(url(path, cursor, limit)))
}

/** The revision cursor a client holds once the whole snapshot is in (one page for a small tenant). */
async function currentCursor(c: TestClient): Promise<string> {
  const answer = await snapshotPage(c)
  expect(answer.hasMore).toBe(false)
  return answer.cursor.value
}

type Entity = Project | Report | Item
/** The client side of spec §4: keyed by entity and id; Deleted removes, anything else upserts. */
class Replica {
  readonly rows = new Map<string, Entity>()
  applySnapshot(page: SyncSnapshot) {
    for (const p of page.snapshot.projects) this.rows.set(`Project:${p.id}`, p)
    for (const r of page.snapshot.reports) this.rows.set(`Report:${r.id}`, r)
    for (const i of page.snapshot.reportItems) this.rows.set(`ReportItem:${i.id}`, i)
  }
  applyChanges(changes: SyncChange[]) {
    for (const c of changes) {
      if (c.changeType === 'Deleted') this.rows.delete(`${c.entity}:${c.entityId}`)
      else if (c.data) this.rows.set(`${c.entity}:${c.entityId}`, c.data)
      else throw new Error(`${c.changeType} ${c.entityId} without data`)
    }
  }
}

/** The server's state now, as one fresh full snapshot (default page size: one page for these tenants). */
async function serverState(c: TestClient): Promise<Map<string, Entity>> {
  const fresh = new Replica()
  const answer = await snapshotPage(c)
  expect(answer.hasMore).toBe(false)
  fresh.applySnapshot(answer)
  return fresh.rows
}

/** An organisation whose first revision comes after the returned cursor (revision 0). */
async function emptyOrg(): Promise<{ org: Org; start: string; mobileStart: string }> {
  const tenant = await createTenant(t.db)
  const admin = await signedInMember(t, tenant, 'admin')
  const writer = await signedInMember(t, tenant, 'read-write')
  const other = await signedInMember(t, tenant, 'read-write')
  const reader = await signedInMember(t, tenant, 'read-only')
  const start = await currentCursor(reader)
  const mobileStart = (await snapshotPage(reader, undefined, undefined, MOBILE)).cursor.value
  const projectId = await createProject(t, admin.member)
  const reportId = await createReport(t, admin.member, projectId)
  return { org: { tenant, admin, writer, other, reader, projectId, reportId }, start, mobileStart }
}

test('without a cursor, a small tenant: the whole snapshot in one page, hasMore false, and a cursor at the current revision', async () => {
  const org = await createOrg(t)
  const kept = await createItem(org.writer, org.reportId, { title: 'Kept' })
  const gone = await createItem(org.writer, org.reportId)
  expect((await org.writer.delete(`/api/items/${gone.id}`)).status).toBe(204)
  const archived = await createProject(t, org.admin.member, { status: 'archived', title: null })

  const answer = await snapshotPage(org.reader)
  expect(answer.hasMore).toBe(false)
  expect(answer.cursor.expiresAtUtc).toBe(new Date(t.now().getTime() + DAY_MS).toISOString())
  expect(answer.cursor.value).toMatch(/^[0-9A-Za-z._-]+$/)
  expect(answer.snapshot.projects.map((p) => [p.id, p.status, p.title === null])).toEqual(
    expect.arrayContaining([
      [org.projectId, 'active', false],
      [archived, 'archived', true],
    ]),
  )
  expect(answer.snapshot.projects).toHaveLength(2)
  expect(answer.snapshot.reports).toHaveLength(1)
  expect(answer.snapshot.reports[0]).toMatchObject({
    id: org.reportId,
    projectId: org.projectId,
    itemCounts: { open: 1, closeRequested: 0, closed: 0 },
    createdBy: { id: org.admin.member.user.id },
  })
  expect(answer.snapshot.reportItems).toEqual([await json<Item>(await org.reader.get(`/api/items/${kept.id}`))])

  // The cursor is at the current revision: nothing after it yet; the next change is the first after it.
  expect((await changesAfter(org.reader, answer.cursor.value)).changes).toEqual([])
  const log = await changeLogOf(t, org.tenant.id)
  const next = await createItem(org.writer, org.reportId)
  const after = await changesAfter(org.reader, answer.cursor.value)
  const nextRevision = (log.at(-1)?.revision ?? 0) + 1
  // The item, then its report (its itemCounts changed), at the item's revision.
  expect(after.changes.map((c) => [c.revision, c.entityId])).toEqual([
    [nextRevision, next.id],
    [nextRevision, org.reportId],
  ])
  expect((after.changes[1]?.data as Report).itemCounts.open).toBe(2)

  // The mobile feed leaves the archived project out.
  const mobile = await snapshotPage(org.reader, undefined, undefined, MOBILE)
  expect(mobile.snapshot.projects.map((p) => p.id)).toEqual([org.projectId])
})

test('a snapshot in pages: projects, then reports, then items, keyset by id, a continuation per page and a revision cursor at the end', async () => {
  const { org } = await emptyOrg()
  const second = await createProject(t, org.admin.member)
  const items: Item[] = []
  for (let i = 0; i < 5; i++) items.push(await createItem(org.writer, org.reportId))
  const whole = await snapshotPage(org.reader)

  const pages: SyncSnapshot[] = []
  let cursor: string | undefined
  do {
    const page = await snapshotPage(org.reader, cursor, 2)
    pages.push(page)
    cursor = page.cursor.value
    if (pages.length > 10) throw new Error('snapshot paging does not end')
  } while (pages.at(-1)?.hasMore)
  // 2 projects | 1 report + 1 item | 2 items | 2 items: the last page is full, yet says hasMore false.
  expect(pages.map((p) => [p.snapshot.projects.length, p.snapshot.reports.length, p.snapshot.reportItems.length, p.hasMore])).toEqual([
    [2, 0, 0, true],
    [0, 1, 1, true],
    [0, 0, 2, true],
    [0, 0, 2, false],
  ])
  const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1)
  expect(pages.flatMap((p) => p.snapshot.projects)).toEqual([...whole.snapshot.projects].sort(byId))
  expect(pages.flatMap((p) => p.snapshot.projects.map((x) => x.id)).sort()).toEqual([org.projectId, second].sort())
  expect(pages.flatMap((p) => p.snapshot.reports)).toEqual(whole.snapshot.reports)
  expect(pages.flatMap((p) => p.snapshot.reportItems)).toEqual(whole.snapshot.reportItems)
  expect(whole.snapshot.reportItems.map((i) => i.id)).toEqual(items.map((i) => i.id).sort())
  // Continuations are not revision cursors and the last one is: it is the same as a one-page snapshot's.
  expect(pages.at(-1)?.cursor).toEqual(whole.cursor)
  expect(new Set(pages.map((p) => p.cursor.value)).size).toBe(pages.length)
  // A continuation does not answer changes with an ETag; a revision cursor does.
  expect((await org.reader.get(url('/api/sync/changes', pages[0]?.cursor.value, 2))).headers.get('etag')).toBeNull()
  expect((await org.reader.get(url('/api/sync/changes', whole.cursor.value))).headers.get('etag')).toMatch(/^W\/".+"$/)
})

test('paging while others write: pages plus every change after R give exactly the server state, deletes of sent and unsent rows included', async () => {
  const { org } = await emptyOrg()
  const spare = [await createProject(t, org.admin.member), await createProject(t, org.admin.member)]
  const items: Item[] = []
  for (let i = 0; i < 8; i++) items.push(await createItem(org.writer, org.reportId))
  const client = new Replica()

  // Page 1 (one project) fixes R; then a sent project changes and an unsent empty one goes.
  const first = await snapshotPage(org.reader, undefined, 1)
  client.applySnapshot(first)
  expect(first.hasMore).toBe(true)
  const sentProject = first.snapshot.projects[0]?.id ?? ''
  const unsentSpare = spare.find((id) => id !== sentProject) ?? ''
  await asTestMember(t, org.admin.member, async (ctx) => {
    const revision = await recordChange(ctx, 'Project', sentProject, 'Updated')
    await ctx.tx.update(projects).set({ title: 'Renamed while paging', revision }).where(eq(projects.id, sentProject))
    await recordChange(ctx, 'Project', unsentSpare, 'Deleted')
    await ctx.tx.delete(projects).where(eq(projects.id, unsentSpare))
  })

  // Pages of 3 until some items are in; then items change on both sides of the keyset position.
  let page = first
  while (page.snapshot.reportItems.length === 0) {
    page = await snapshotPage(org.reader, page.cursor.value, 3)
    client.applySnapshot(page)
  }
  expect(page.hasMore).toBe(true)
  const sent = new Set([...client.rows.keys()].filter((k) => k.startsWith('ReportItem:')).map((k) => k.slice('ReportItem:'.length)))
  const unsent = items.map((i) => i.id).filter((id) => !sent.has(id))
  const sentIds = [...sent]
  expect(sentIds.length).toBeGreaterThanOrEqual(1)
  expect(unsent.length).toBeGreaterThanOrEqual(3)
  expect((await org.writer.delete(`/api/items/${sentIds[0]}`)).status).toBe(204)
  if (sentIds[1]) await json<Item>(await patch(org.writer, `/api/items/${sentIds[1]}`, { title: 'Sent, then renamed' }))
  expect((await org.writer.delete(`/api/items/${unsent[0]}`)).status).toBe(204)
  await json<Item>(await patch(org.other, `/api/items/${unsent[1]}`, { title: 'Unsent, renamed' }))
  const created = [await createItem(org.writer, org.reportId), await createItem(org.other, org.reportId)]
  expect((await org.other.delete(`/api/items/${created[1]?.id}`)).status).toBe(204)

  while (page.hasMore) {
    page = await snapshotPage(org.reader, page.cursor.value, 3)
    client.applySnapshot(page)
  }
  // Pages read rows as they are now: the deleted unsent item never arrived, the renamed one arrived renamed.
  expect(client.rows.has(`ReportItem:${unsent[0]}`)).toBe(false)
  expect((client.rows.get(`ReportItem:${unsent[1]}`) as Item).title).toBe('Unsent, renamed')
  // ... and the client is not yet equal to the server (it still holds the deleted sent item).
  expect(client.rows.has(`ReportItem:${sentIds[0]}`)).toBe(true)

  let cursor = page.cursor.value
  let replayed = 0
  for (;;) {
    const answer = await changesAfter(org.reader, cursor, 2)
    client.applyChanges(answer.changes)
    replayed += answer.changes.length
    cursor = answer.cursor.value
    if (!answer.hasMore) break
  }
  expect(replayed).toBeGreaterThan(0)
  expect(client.rows).toEqual(await serverState(org.reader))
  expect(client.rows.has(`ReportItem:${sentIds[0]}`)).toBe(false)
  expect(client.rows.has(`Project:${unsentSpare}`)).toBe(false)
  expect((client.rows.get(`Project:${sentProject}`) as Project).title).toBe('Renamed while paging')
  expect(client.rows.has(`ReportItem:${created[0]?.id}`)).toBe(true)
})

test('after a cursor: one entry per entity at its last change, in revision order, Deleted with data null, and a cursor that moves', async () => {
  const org = await createOrg(t)
  const start = await currentCursor(org.reader)
  const mobileStart = (await snapshotPage(org.reader, undefined, undefined, MOBILE)).cursor.value
  const first = ((await changeLogOf(t, org.tenant.id)).at(-1)?.revision ?? 0) + 1
  const item = await createItem(org.writer, org.reportId)
  const edited = await json<Item>(await patch(org.other, `/api/items/${item.id}`, { title: 'Renamed' }))
  const doomed = await createItem(org.writer, org.reportId)
  expect((await org.writer.delete(`/api/items/${doomed.id}`)).status).toBe(204)
  const projectId = await createProject(t, org.admin.member)

  const answer = await changesAfter(org.reader, start)
  expect(answer.hasMore).toBe(false)
  expect(answer.changes.map((c) => [c.revision, c.entity, c.changeType, c.entityId])).toEqual([
    [first + 1, 'ReportItem', 'Updated', item.id],
    [first + 3, 'ReportItem', 'Deleted', doomed.id],
    [first + 3, 'Report', 'Updated', org.reportId],
    [first + 4, 'Project', 'Created', projectId],
  ])
  expect(answer.changes[0]?.data).toEqual(edited)
  expect(answer.changes[1]?.data).toBeNull()
  expect((answer.changes[2]?.data as Report).itemCounts).toEqual({ open: 1, closeRequested: 0, closed: 0 })
  expect((answer.changes[3]?.data as Project).id).toBe(projectId)
  expect(answer.cursor.expiresAtUtc).toBe(new Date(t.now().getTime() + DAY_MS).toISOString())

  // Nothing new: no changes, the same cursor.
  const idle = await changesAfter(org.reader, answer.cursor.value)
  expect(idle).toEqual({ changes: [], cursor: answer.cursor, hasMore: false })
  // Within its scope the mobile feed says the same; a cursor of one feed is stale on the other.
  expect((await changesAfter(org.reader, mobileStart, undefined, MOBILE)).changes).toEqual(answer.changes)
  await expectProblem(await org.reader.get(url(MOBILE, start)), 410, 'KR_SYNC_CURSOR_STALE')
  await expectProblem(await org.reader.get(url(FULL, mobileStart)), 410, 'KR_SYNC_CURSOR_STALE')

  // An entity changed in this page and deleted after it reads Deleted (it is gone now), and its Deleted follows.
  const later = await createItem(org.writer, org.reportId)
  await json<Item>(await patch(org.writer, `/api/items/${later.id}`, { title: 'Then deleted' }))
  expect((await org.writer.delete(`/api/items/${later.id}`)).status).toBe(204)
  const one = await changesAfter(org.reader, answer.cursor.value, 1)
  expect(one.changes.map((c) => [c.changeType, c.entityId])).toEqual([
    ['Deleted', later.id],
    ['Updated', org.reportId],
  ])
  expect(one.changes[0]?.data).toBeNull()
  expect(one.hasMore).toBe(true)
})

test('report changes carry the Report with its item counts', async () => {
  const { org, start } = await emptyOrg()
  const log = await changeLogOf(t, org.tenant.id)
  const answer = await changesAfter(org.reader, start)
  expect(answer.changes.map((c) => c.revision)).toEqual(log.map((l) => l.revision))
  const report = answer.changes.find((c) => c.entity === 'Report')?.data as Report
  expect(report).toMatchObject({ id: org.reportId, projectId: org.projectId, status: 'active', itemCounts: { open: 0, closeRequested: 0, closed: 0 } })
})

test(`changes come at most ${SYNC_PAGE_SIZE} change-log rows at a time (fewer with limit), with hasMore until the end`, async () => {
  const org = await createOrg(t)
  const start = await currentCursor(org.reader)
  const base = (await changeLogOf(t, org.tenant.id)).at(-1)?.revision ?? 0
  await asTestMember(t, org.admin.member, async (ctx) => {
    let revision = 0
    for (let i = 0; i < SYNC_PAGE_SIZE + 3; i++) revision = await recordChange(ctx, 'Project', org.projectId, 'Updated')
    await ctx.tx.update(projects).set({ revision }).where(eq(projects.id, org.projectId))
  })
  const page1 = await changesAfter(org.reader, start)
  expect(page1.changes.map((c) => c.revision)).toEqual([base + SYNC_PAGE_SIZE])
  expect(page1.hasMore).toBe(true)
  const page2 = await changesAfter(org.reader, page1.cursor.value)
  expect(page2.changes.map((c) => c.revision)).toEqual([base + SYNC_PAGE_SIZE + 3])
  expect(page2.hasMore).toBe(false)
  expect((page2.changes[0]?.data as Project).revision).toBe(base + SYNC_PAGE_SIZE + 3)

  const items = [await createItem(org.writer, org.reportId), await createItem(org.writer, org.reportId), await createItem(org.writer, org.reportId)]
  const small = await changesAfter(org.reader, page2.cursor.value, 2)
  expect([small.changes.map((c) => c.entityId), small.hasMore]).toEqual([[items[0]?.id, items[1]?.id, org.reportId], true])
  const rest = await changesAfter(org.reader, small.cursor.value, 2)
  expect([rest.changes.map((c) => c.entityId), rest.hasMore]).toEqual([[items[2]?.id, org.reportId], false])
  await expectProblem(await org.reader.get(url('/api/sync/changes', start, SYNC_PAGE_SIZE + 1)), 400)
})

test.each([['abc'], ['0'], ['-1'], ['1.5'], [' 1'], ['99999999999999999999'], ['1.lzx.AAAA']])(
  'a cursor the server did not issue answers 410 KR_SYNC_CURSOR_STALE (%j)',
  async (cursor) => {
    const org = await createOrg(t)
    for (const path of PATHS) {
      const problem = await expectProblem(await org.reader.get(url(path, cursor)), 410, 'KR_SYNC_CURSOR_STALE')
      expect(problem.remediation).toBeDefined()
    }
  },
)

test('a tampered cursor, a cursor ahead of the tenant and an expired cursor answer 410; a well-signed current one works', async () => {
  const org = await createOrg(t)
  const cursor = await currentCursor(org.reader)
  const [revision, ...rest] = cursor.split('.')
  const tampered = [String(Number(revision) - 1), ...rest].join('.')
  await expectProblem(await org.reader.get(url('/api/sync/changes', tampered)), 410, 'KR_SYNC_CURSOR_STALE')
  // Flip the signature's first character (its last one carries padding bits a decoder may ignore).
  const at0 = cursor.lastIndexOf('.') + 1
  const flipped = cursor.slice(0, at0) + (cursor[at0] === 'A' ? 'B' : 'A') + cursor.slice(at0 + 1)
  await expectProblem(await org.reader.get(url('/api/sync/changes', flipped)), 410, 'KR_SYNC_CURSOR_STALE')

  const key = syncCursorKey(t.config.sessionSecret)
  const expiresAt = t.now().getTime() + DAY_MS
  const at = (r: number) => encodeCursor(key, org.tenant.id, { revision: r, expiresAt })
  expect((await changesAfter(org.reader, at(Number(revision)))).changes).toEqual([])
  for (const path of PATHS) await expectProblem(await org.reader.get(url(path, at(Number(revision) + 1))), 410, 'KR_SYNC_CURSOR_STALE')

  const continuation = (await snapshotPage(org.reader, undefined, 1)).cursor.value
  try {
    t.now.advance(DAY_MS + 1000)
    const later = await signedInClient(t, org.reader.member)
    for (const path of PATHS) {
      await expectProblem(await later.get(url(path, cursor)), 410, 'KR_SYNC_CURSOR_STALE')
      await expectProblem(await later.get(url(path, continuation, 1)), 410, 'KR_SYNC_CURSOR_STALE')
    }
    expect((await snapshotPage(later)).hasMore).toBe(false)
  } finally {
    t.now.reset()
  }
})

test("another tenant's cursor is stale, even at a revision this tenant has reached; tenants never see each other", async () => {
  const busy = await createOrg(t)
  const quiet = await emptyOrg()
  for (let i = 0; i < 3; i++) await createItem(busy.writer, busy.reportId)
  const busyCursor = await currentCursor(busy.reader)
  const busyContinuation = (await snapshotPage(busy.reader, undefined, 1)).cursor.value
  for (const path of PATHS) {
    await expectProblem(await quiet.org.reader.get(url(path, busyCursor)), 410, 'KR_SYNC_CURSOR_STALE')
    await expectProblem(await quiet.org.reader.get(url(path, busyContinuation, 1)), 410, 'KR_SYNC_CURSOR_STALE')
    // Same revision (0) as the quiet tenant's own start cursor, yet signed for the other tenant.
    const key = syncCursorKey(t.config.sessionSecret)
    const foreignZero = encodeCursor(key, busy.tenant.id, { revision: 0, expiresAt: t.now().getTime() + DAY_MS })
    await expectProblem(await quiet.org.reader.get(url(path, foreignZero)), 410, 'KR_SYNC_CURSOR_STALE')
  }

  for (const path of PATHS) {
    const everything = await changesAfter(quiet.org.reader, path === MOBILE ? quiet.mobileStart : quiet.start, undefined, path)
    expect(new Set(everything.changes.map((c) => c.entityId))).toEqual(new Set([quiet.org.projectId, quiet.org.reportId]))
    const seen = new Replica()
    let page: SyncSnapshot | undefined
    do {
      page = await snapshotPage(quiet.org.reader, page?.cursor.value, 1, path)
      seen.applySnapshot(page)
    } while (page.hasMore)
    expect([...seen.rows.keys()].sort()).toEqual([`Project:${quiet.org.projectId}`, `Report:${quiet.org.reportId}`].sort())
  }
})

test('an unchanged poll answers 304 to If-None-Match; a change makes a new answer with a new ETag', async () => {
  const org = await createOrg(t)
  const cursor = await currentCursor(org.reader)
  const first = await org.reader.get(url('/api/sync/changes', cursor))
  expect(first.status).toBe(200)
  const etag = first.headers.get('etag') ?? ''
  expect(etag).toMatch(/^W\/".+"$/)
  expect(first.headers.get('cache-control')).toBe('private, no-cache')

  const again = await org.reader.get(url('/api/sync/changes', cursor), { headers: { 'if-none-match': etag } })
  expect(again.status).toBe(304)
  expect(await again.text()).toBe('')
  expect(again.headers.get('etag')).toBe(etag)
  // Another page size is another answer.
  expect((await org.reader.get(url('/api/sync/changes', cursor, 5), { headers: { 'if-none-match': etag } })).status).toBe(200)
  // Another tenant's poll with a copied ETag does not match (its cursor is not valid there anyway: 410 first).
  const stranger = await createOrg(t)
  await expectProblem(await stranger.reader.get(url('/api/sync/changes', cursor), { headers: { 'if-none-match': etag } }), 410, 'KR_SYNC_CURSOR_STALE')

  const item = await createItem(org.writer, org.reportId)
  const changed = await org.reader.get(url('/api/sync/changes', cursor), { headers: { 'if-none-match': etag } })
  expect(changed.status).toBe(200)
  expect(changed.headers.get('etag')).not.toBe(etag)
  expect(((await changed.json()) as SyncChanges).changes.map((c) => c.entityId)).toEqual([item.id, org.reportId])
})

test('an organisation with no changes yet syncs from revision 0', async () => {
  const fresh = await signedInClient(t, await createMember(t.db))
  const answer = await snapshotPage(fresh)
  expect(answer).toMatchObject({ snapshot: { projects: [], reports: [], reportItems: [] }, hasMore: false })
  expect(await changesAfter(fresh, answer.cursor.value)).toEqual({ changes: [], hasMore: false, cursor: answer.cursor })
})

test.each(PATHS)('%s: a device this user revoked is refused (403 KR_DEVICE_REVOKED); registered ones are marked seen; no header or an unregistered id pass', async (path) => {
  const org = await createOrg(t)
  const device = { 'x-device-id': `phone-${Math.random().toString(36).slice(2)}` }
  // Not registered yet: passes (the client registers it next).
  expect((await org.reader.get(path, { headers: device })).status).toBe(200)
  expect((await org.reader.post('/auth/devices/register', { deviceId: device['x-device-id'], platform: 'web' })).status).toBe(201)
  const seenAt = async () => ((await (await org.reader.get('/auth/devices')).json()) as { items: { deviceId: string; lastSeenAtUtc: string }[] }).items.find((d) => d.deviceId === device['x-device-id'])?.lastSeenAtUtc
  const registered = await seenAt()
  t.now.advance(2 * 60_000)
  expect((await org.reader.get(path, { headers: device })).status).toBe(200)
  expect(await seenAt()).not.toBe(registered)

  expect((await org.reader.delete(`/auth/devices/${encodeURIComponent(device['x-device-id'])}`)).status).toBe(204)
  const refused = await expectProblem(await org.reader.get(path, { headers: device }), 403, 'KR_DEVICE_REVOKED')
  expect(refused.detail).toBe('This device was signed out of sync. Sign in again to use it.')
  const cursor = await currentCursor(org.reader)
  await expectProblem(await org.reader.get(url(path, cursor), { headers: device }), 403, 'KR_DEVICE_REVOKED')
  // The same id is another person's device for another user: theirs is not revoked.
  expect((await org.writer.get(path, { headers: device })).status).toBe(200)
  expect((await org.reader.get(path)).status).toBe(200)
  // Registering again (after signing in again) brings it back.
  expect((await org.reader.post('/auth/devices/register', { deviceId: device['x-device-id'], platform: 'web' })).status).toBe(201)
  expect((await org.reader.get(path, { headers: device })).status).toBe(200)
})

describe('the mobile scope', () => {
  /** Every entity the mobile feed gives a fresh client, as `Kind:id`. */
  async function mobileSnapshot(c: TestClient): Promise<{ keys: string[]; cursor: string }> {
    const replica = new Replica()
    let page: SyncSnapshot | undefined
    do {
      page = await snapshotPage(c, page?.cursor.value, undefined, MOBILE)
      replica.applySnapshot(page)
    } while (page.hasMore)
    return { keys: [...replica.rows.keys()].sort(), cursor: page.cursor.value }
  }

  async function closedAt(tenantId: string, itemId: string, at: Date): Promise<void> {
    await withTenant(t.db, tenantId, (tx) => tx.update(reportItems).set({ closedAt: at }).where(eq(reportItems.id, itemId)))
  }

  test(`open items and items closed in the last ${SYNC_MOBILE_CLOSED_DAYS} days are in it; older closed ones are not, and a change to one reads Deleted`, async () => {
    const org = await createOrg(t)
    const open = await createItem(org.writer, org.reportId)
    const recent = await createItem(org.writer, org.reportId)
    const old = await createItem(org.writer, org.reportId)
    for (const item of [recent, old]) expect((await org.writer.post(`/api/items/${item.id}/confirm-close`, { confirmed: true })).status).toBe(200)
    await closedAt(org.tenant.id, old.id, new Date(t.now().getTime() - (SYNC_MOBILE_CLOSED_DAYS + 1) * DAY_MS))
    const { keys, cursor } = await mobileSnapshot(org.reader)
    expect(keys).toEqual([`Project:${org.projectId}`, `Report:${org.reportId}`, `ReportItem:${open.id}`, `ReportItem:${recent.id}`].sort())

    // The old closed item changes: the full feed has it, the mobile feed says Deleted (no-op for a phone that never had it).
    const fullStart = await currentCursor(org.reader)
    await json<Item>(await patch(org.admin, `/api/items/${old.id}`, { location: 'Archive room' }))
    expect((await changesAfter(org.reader, fullStart)).changes.find((c) => c.entityId === old.id)).toMatchObject({ changeType: 'Updated' })
    const mobile = await changesAfter(org.reader, cursor, undefined, MOBILE)
    expect(mobile.changes.find((c) => c.entityId === old.id)).toMatchObject({ changeType: 'Deleted', data: null })
  })

  test(`an item leaves by time: ${SYNC_MOBILE_CLOSED_DAYS} days after it closed, a polling phone hears it as Deleted`, async () => {
    const org = await createOrg(t)
    const item = await createItem(org.writer, org.reportId)
    expect((await org.writer.post(`/api/items/${item.id}/confirm-close`, { confirmed: true })).status).toBe(200)
    // Closed long enough ago that it leaves the window within the next hour or two.
    await closedAt(org.tenant.id, item.id, new Date(t.now().getTime() - SYNC_MOBILE_CLOSED_DAYS * DAY_MS + 30 * 60_000))
    let { keys, cursor } = await mobileSnapshot(org.reader)
    expect(keys).toContain(`ReportItem:${item.id}`)
    const heard: SyncChange[] = []
    // A phone polling every 25 minutes (its session stays alive) for three hours.
    for (let i = 0; i < 7; i++) {
      t.now.advance(25 * 60_000)
      const answer = await changesAfter(org.reader, cursor, undefined, MOBILE)
      heard.push(...answer.changes)
      cursor = answer.cursor.value
    }
    expect(heard.filter((c) => c.entityId === item.id)).toEqual([expect.objectContaining({ entity: 'ReportItem', changeType: 'Deleted', data: null })])
    ;({ keys } = await mobileSnapshot(org.reader))
    expect(keys).not.toContain(`ReportItem:${item.id}`)
    // The full feed is not scoped by time.
    expect((await snapshotPage(org.reader)).snapshot.reportItems.map((i) => i.id)).toContain(item.id)
  })

  test('archiving or unarchiving a project or report makes mobile cursors stale (410); a fresh snapshot follows the scope; the full feed carries on', async () => {
    const org = await createOrg(t)
    const item = await createItem(org.writer, org.reportId)
    const before = await mobileSnapshot(org.reader)
    const full = await currentCursor(org.reader)
    expect((await org.admin.post(`/api/projects/${org.projectId}/archive`)).status).toBe(200)
    await expectProblem(await org.reader.get(url(MOBILE, before.cursor)), 410, 'KR_SYNC_CURSOR_STALE')
    expect((await changesAfter(org.reader, full)).changes.map((c) => c.entityId)).toEqual([org.projectId])
    expect((await mobileSnapshot(org.reader)).keys).toEqual([])

    const archived = await mobileSnapshot(org.reader)
    expect((await org.admin.post(`/api/projects/${org.projectId}/unarchive`)).status).toBe(200)
    await expectProblem(await org.reader.get(url(MOBILE, archived.cursor)), 410, 'KR_SYNC_CURSOR_STALE')
    const back = await mobileSnapshot(org.reader)
    expect(back.keys).toEqual(before.keys)
    expect(back.keys).toContain(`ReportItem:${item.id}`)

    expect((await org.admin.post(`/api/reports/${org.reportId}/archive`)).status).toBe(200)
    await expectProblem(await org.reader.get(url(MOBILE, back.cursor)), 410, 'KR_SYNC_CURSOR_STALE')
    expect((await mobileSnapshot(org.reader)).keys).toEqual([`Project:${org.projectId}`])
  })
})

test(`the compaction job deletes change-log rows older than ${CHANGE_LOG_RETENTION_DAYS} days; a cursor below the horizon answers 410, a fresh one is served exactly`, async () => {
  const org = await createOrg(t)
  const old = await currentCursor(org.reader)
  const oldMobile = (await snapshotPage(org.reader, undefined, undefined, MOBILE)).cursor.value
  const first = await createItem(org.writer, org.reportId)
  const rows = (await changeLogOf(t, org.tenant.id)).length
  expect(rows).toBeGreaterThan(0)
  // Not old enough yet: nothing goes.
  expect(await compactChangeLogs(t.db, new Date(t.now().getTime() + (CHANGE_LOG_RETENTION_DAYS - 1) * DAY_MS))).toBe(0)
  expect(await changeLogOf(t, org.tenant.id)).toHaveLength(rows)

  expect(await compactChangeLogs(t.db, new Date(t.now().getTime() + (CHANGE_LOG_RETENTION_DAYS + 1) * DAY_MS))).toBeGreaterThanOrEqual(rows)
  expect(await changeLogOf(t, org.tenant.id)).toEqual([])
  for (const [path, cursor] of [
    [FULL, old],
    [MOBILE, oldMobile],
  ] as const) {
    const problem = await expectProblem(await org.reader.get(url(path, cursor)), 410, 'KR_SYNC_CURSOR_STALE')
    expect(problem.detail).toBe('The sync cursor is older than the change log keeps.')
  }
  // A fresh snapshot has everything, and its cursor hears the next change.
  const fresh = await snapshotPage(org.reader)
  expect(fresh.snapshot.reportItems.map((i) => i.id)).toEqual([first.id])
  const next = await createItem(org.writer, org.reportId)
  expect((await changesAfter(org.reader, fresh.cursor.value)).changes.map((c) => c.entityId)).toEqual([next.id, org.reportId])
})

test('sync needs a signed-in member', async () => {
  await expectProblem(await t.fetch('/api/sync/changes', { headers: { accept: 'application/json' } }), 401)
  await expectProblem(await t.fetch('/api/sync/changes-mobile?cursor=0', { headers: { accept: 'application/json' } }), 401)
})
