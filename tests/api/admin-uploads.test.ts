import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { uploadSessions } from '#server/db/schema-photos'
import { withTenant } from '#server/db/tenancy'
import type { AdminUpload, AdminUploadStats } from '~/lib/admin/uploads'
import type { UploadSession } from '#server/domain/uploads/engine'
import { blobStoreFor } from '#server/storage/blob-stores'
import { auditOf, expectProblem } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { createUpload, getUpload, pngImage, putChunk, uploadPhoto } from '#tests/helpers/photos'
import { changeLogOf } from '#tests/helpers/reporting-a'
import { createItem, createOrg, json } from '#tests/helpers/reporting-b'

/** docs/admin/packages-and-uploads.md "Uploads": the organisation's upload sessions, their figures, and an administrator's abort. Through HTTP. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-16T09:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

type List = { items: AdminUpload[]; nextCursor: string | null }

/** Whether the session's staged bytes are in the store (the data folder or the bucket). */
const staged = async (tenantId: string, sessionId: string) => (await blobStoreFor(t.config).stat(`staging/${tenantId}/upload-${sessionId}`)) !== undefined

/** Moves a session's last progress back in time, as an upload that stalled would leave it. */
async function stall(tenantId: string, sessionId: string, hours: number) {
  const at = new Date(t.now().getTime() - hours * 60 * 60_000)
  await withTenant(t.db, tenantId, (tx) =>
    tx
      .update(uploadSessions)
      .set({ updatedAt: at })
      .where(and(eq(uploadSessions.tenantId, tenantId), eq(uploadSessions.id, sessionId))),
  )
}

test('an admin lists every member’s upload sessions with who, progress and state, filters them, pages them, and reads the figures', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const image = pngImage(10, 10, 3)
  const done = await uploadPhoto(org.writer, item.id, image, { fileName: 'done.png' })
  t.now.advance(1000)
  const open = await createUpload(org.other, item.id, image, { fileName: 'half.png' })
  await json<UploadSession>(await putChunk(org.other, open.id, 0, image.subarray(0, 20)))
  t.now.advance(1000)
  const stalled = await createUpload(org.writer, item.id, image, { fileName: 'stalled.png' })
  await stall(org.tenant.id, stalled.id, 2)
  t.now.advance(1000)
  const aborted = await createUpload(org.writer, item.id, image, { fileName: 'gone.png' })
  expect((await org.writer.delete(`/api/uploads/${aborted.id}`)).status).toBe(204)

  const all = await json<List>(await org.admin.get('/api/admin/uploads'))
  expect(all.nextCursor).toBeNull()
  expect(all.items.map((u) => [u.fileName, u.state, u.stuck])).toEqual([
    ['gone.png', 'aborted', false],
    ['stalled.png', 'open', true],
    ['half.png', 'open', false],
    ['done.png', 'completed', false],
  ])
  const half = all.items.find((u) => u.id === open.id)
  expect(half).toMatchObject({
    purpose: 'photo',
    size: image.length,
    offset: 20,
    who: { id: org.other.member.user.id, displayName: org.other.member.user.displayName },
    failureReason: null,
  })
  expect(half?.expiresAtUtc).toBe(open.expiresAtUtc)
  expect(all.items.find((u) => u.fileName === 'done.png')).toMatchObject({ state: 'completed', offset: image.length, completedAtUtc: expect.any(String) })
  expect(done.id).toBeDefined()

  expect((await json<List>(await org.admin.get('/api/admin/uploads?state=open'))).items.map((u) => u.fileName)).toEqual(['stalled.png', 'half.png'])
  expect((await json<List>(await org.admin.get(`/api/admin/uploads?userId=${org.other.member.user.id}`))).items.map((u) => u.id)).toEqual([open.id])
  expect((await json<List>(await org.admin.get('/api/admin/uploads?purpose=revision'))).items).toEqual([])
  expect((await json<List>(await org.admin.get('/api/admin/uploads?state=&purpose=&userId='))).items).toHaveLength(4)

  const first = await json<List>(await org.admin.get('/api/admin/uploads?limit=3'))
  expect(first.items).toHaveLength(3)
  const second = await json<List>(await org.admin.get(`/api/admin/uploads?limit=3&after=${encodeURIComponent(first.nextCursor ?? '')}`))
  expect([...first.items, ...second.items].map((u) => u.id)).toEqual(all.items.map((u) => u.id))
  expect(second.nextCursor).toBeNull()

  const bad = await expectProblem(await org.admin.get('/api/admin/uploads?state=stuck&limit=500&userId=x&after=%%%'), 400, 'KR_VALIDATION')
  expect(Object.keys(bad.errors ?? {})).toEqual(expect.arrayContaining(['state', 'limit', 'userId']))

  const stats = await json<AdminUploadStats>(await org.admin.get('/api/admin/uploads/stats'))
  expect(stats).toEqual({ open: 2, completing: 0, completed: 1, failed: 0, aborted: 1, expired: 0, stuck: 1, bytesCompleted: image.length, bytesInProgress: 20 })

  // Past its expiry an open session reads expired, in the list, its filter and the figures.
  await withTenant(t.db, org.tenant.id, (tx) =>
    tx
      .update(uploadSessions)
      .set({ expiresAt: new Date(t.now().getTime() - 1000) })
      .where(and(eq(uploadSessions.tenantId, org.tenant.id), eq(uploadSessions.state, 'open'))),
  )
  expect((await json<List>(await org.admin.get('/api/admin/uploads?state=expired'))).items.map((u) => u.fileName)).toEqual(['stalled.png', 'half.png'])
  expect(await json<AdminUploadStats>(await org.admin.get('/api/admin/uploads/stats'))).toMatchObject({ open: 0, expired: 2, stuck: 0, bytesInProgress: 0 })
})

test('an admin aborts a stuck upload: its staged bytes are freed, its owner can send no more, it is audited and announced; completed ones are refused', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const image = pngImage(12, 12, 4)
  const session = await createUpload(org.writer, item.id, image, { fileName: 'stuck.png' })
  await json<UploadSession>(await putChunk(org.writer, session.id, 0, image.subarray(0, 30)))
  await stall(org.tenant.id, session.id, 3)
  expect(await staged(org.tenant.id, session.id)).toBe(true)
  const log = await changeLogOf(t, org.tenant.id)

  expect((await org.admin.delete(`/api/admin/uploads/${session.id}`)).status).toBe(204)
  expect(await staged(org.tenant.id, session.id)).toBe(false)
  expect((await getUpload(org.writer, session.id)).state).toBe('aborted')
  await expectProblem(await putChunk(org.writer, session.id, 30, image.subarray(30)), 409, 'KR_UPLOAD_STATE')
  await expectProblem(await org.writer.post(`/api/uploads/${session.id}/complete`), 409, 'KR_UPLOAD_STATE')
  expect((await changeLogOf(t, org.tenant.id)).slice(log.length).map((c) => [c.entity, c.entityId, c.changeType])).toEqual([['UploadSession', session.id, 'Updated']])
  const audit = await auditOf(t.db, { action: 'admin.upload.aborted', tenantId: org.tenant.id })
  expect(audit).toEqual([
    expect.objectContaining({
      actorUserId: org.admin.member.user.id,
      ip: expect.any(String),
      correlationId: expect.any(String),
      data: expect.objectContaining({ fileName: 'stuck.png', ownerUserId: org.writer.member.user.id, offset: 30, purpose: 'photo' }),
    }),
  ])

  // Again: already over, nothing more to do, nothing more recorded.
  expect((await org.admin.delete(`/api/admin/uploads/${session.id}`)).status).toBe(204)
  expect(await auditOf(t.db, { action: 'admin.upload.aborted', tenantId: org.tenant.id })).toHaveLength(1)

  const photo = await uploadPhoto(org.writer, item.id, image)
  const [completed] = (await json<List>(await org.admin.get('/api/admin/uploads?state=completed'))).items
  expect(photo.id).toBeDefined()
  await expectProblem(await org.admin.delete(`/api/admin/uploads/${completed?.id}`), 409, 'KR_UPLOAD_STATE')
  await expectProblem(await org.admin.delete('/api/admin/uploads/not-a-uuid'), 404, 'KR_NOT_FOUND')
  await expectProblem(await org.admin.delete('/api/admin/uploads/00000000-0000-4000-8000-000000000000'), 404, 'KR_NOT_FOUND')
})

test('role matrix: only administrators list, count or abort uploads', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const session = await createUpload(org.writer, item.id, pngImage())
  for (const c of [org.writer, org.reader]) {
    await expectProblem(await c.get('/api/admin/uploads'), 403, 'KR_FORBIDDEN')
    await expectProblem(await c.get('/api/admin/uploads/stats'), 403, 'KR_FORBIDDEN')
    await expectProblem(await c.delete(`/api/admin/uploads/${session.id}`), 403, 'KR_FORBIDDEN')
  }
  expect((await getUpload(org.writer, session.id)).state).toBe('open')
  expect((await t.fetch('/api/admin/uploads')).status).toBe(401)
})

test('cross-tenant: another organisation’s sessions are neither listed, counted nor aborted', async () => {
  const a = await createOrg(t)
  const b = await createOrg(t)
  const item = await createItem(a.writer, a.reportId)
  const session = await createUpload(a.writer, item.id, pngImage())
  await expectProblem(await b.admin.delete(`/api/admin/uploads/${session.id}`), 404, 'KR_NOT_FOUND')
  expect((await json<List>(await b.admin.get('/api/admin/uploads'))).items).toEqual([])
  expect((await json<List>(await b.admin.get(`/api/admin/uploads?userId=${a.writer.member.user.id}`))).items).toEqual([])
  expect(await json<AdminUploadStats>(await b.admin.get('/api/admin/uploads/stats'))).toMatchObject({ open: 0, completed: 0 })
  expect((await getUpload(a.writer, session.id)).state).toBe('open')
})
