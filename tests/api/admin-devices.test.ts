import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { sessions } from '#server/db/schema'
import { auditOf, expectProblem, signedInClient, uniqueSuffix } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, changeLogOf, organisation, signedMember } from '#tests/helpers/reporting-a'

/** Devices in the Administration area (issue 13, docs/admin/join-requests-and-devices.md), through HTTP. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-16T09:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

type AdminDevice = {
  deviceId: string
  platform: string
  name: string | null
  user: { id: string; displayName: string; email: string }
  registeredAtUtc: string
  lastSeenAtUtc: string
  revokedAtUtc: string | null
  activeSessions: number
}
type Page = { items: AdminDevice[]; nextCursor: string | null; platforms: string[] }

function deviceId(): string {
  return `device-${uniqueSuffix()}`
}

test('registering ties the session to the device; an admin revokes it: that session is refused, another session of the same person keeps working', async () => {
  const { tenant, admin, writer } = await organisation(t)
  const phone = await signedInClient(t, writer)
  const laptop = writer.c
  const id = deviceId()
  expect((await phone.post('/auth/devices/register', { deviceId: id, platform: 'android', name: 'Site phone' })).status).toBe(201)
  const [tied] = await t.db.select({ deviceId: sessions.deviceId }).from(sessions).where(eq(sessions.id, phone.session.id))
  expect(tied?.deviceId).toBe(id)

  const listed = await body<Page>(await admin.c.get('/api/admin/devices'))
  expect(listed.items).toEqual([
    {
      deviceId: id,
      platform: 'android',
      name: 'Site phone',
      user: { id: writer.user.id, displayName: writer.user.displayName, email: writer.user.email },
      registeredAtUtc: t.now().toISOString(),
      lastSeenAtUtc: t.now().toISOString(),
      revokedAtUtc: null,
      activeSessions: 1,
    },
  ])
  expect(listed.platforms).toEqual(['android'])

  const response = await admin.c.delete(`/api/admin/devices/${writer.user.id}/${id}`)
  expect(response.status).toBe(204)

  await expectProblem(await phone.get('/api/projects'), 401)
  expect((await laptop.get('/api/projects')).status).toBe(200)
  expect((await body<Page>(await admin.c.get('/api/admin/devices'))).items).toEqual([])
  const all = await body<Page>(await admin.c.get('/api/admin/devices?includeRevoked=true'))
  expect(all.items).toEqual([expect.objectContaining({ deviceId: id, revokedAtUtc: t.now().toISOString(), activeSessions: 0 })])
  expect(await auditOf(t.db, { action: 'admin.device.revoked', tenantId: tenant.id })).toEqual([
    expect.objectContaining({ actorUserId: admin.user.id, data: { userId: writer.user.id, sessionsEnded: 1 } }),
  ])
  expect((await changeLogOf(t, tenant.id)).some((c) => c.entity === 'Device')).toBe(true)

  // A second revoke is 204 again and changes nothing (no second audit entry).
  expect((await admin.c.delete(`/api/admin/devices/${writer.user.id}/${id}`)).status).toBe(204)
  expect(await auditOf(t.db, { action: 'admin.device.revoked', tenantId: tenant.id })).toHaveLength(1)
  // Its sync is refused too (the header names the revoked device).
  await expectProblem(await laptop.get('/api/sync/changes', { headers: { 'x-device-id': id } }), 403, 'KR_DEVICE_REVOKED')
})

test('a user revoking their own device ends its other sessions and keeps the calling one', async () => {
  const { writer } = await organisation(t)
  const phone = await signedInClient(t, writer)
  const id = deviceId()
  expect((await phone.post('/auth/devices/register', { deviceId: id, platform: 'ios' })).status).toBe(201)
  expect((await writer.c.post('/auth/devices/register', { deviceId: id, platform: 'ios' })).status).toBe(201)
  expect((await writer.c.delete(`/auth/devices/${id}`)).status).toBe(204)
  expect((await writer.c.get('/api/projects')).status).toBe(200)
  await expectProblem(await phone.get('/api/projects'), 401)
})

test('filters: by person, platform, revoked; paging with a cursor; bad filters are 400', async () => {
  const { admin, writer, reader } = await organisation(t)
  const ids: string[] = []
  for (const [member, platform] of [
    [writer, 'android'],
    [writer, 'ios'],
    [reader, 'ios'],
  ] as const) {
    const id = deviceId()
    ids.push(id)
    expect((await member.c.post('/auth/devices/register', { deviceId: id, platform })).status).toBe(201)
    t.now.advance(1000)
  }
  const byWriter = await body<Page>(await admin.c.get(`/api/admin/devices?userId=${writer.user.id}`))
  expect(byWriter.items.map((d) => d.deviceId).sort()).toEqual([ids[0], ids[1]].sort())
  const ios = await body<Page>(await admin.c.get('/api/admin/devices?platform=IOS'))
  expect(ios.items.map((d) => d.deviceId).sort()).toEqual([ids[1], ids[2]].sort())
  expect(ios.platforms).toEqual(['android', 'ios'])

  const first = await body<Page>(await admin.c.get('/api/admin/devices?limit=2'))
  expect(first.items.map((d) => d.deviceId)).toEqual([ids[2], ids[1]])
  const second = await body<Page>(await admin.c.get(`/api/admin/devices?limit=2&after=${first.nextCursor}`))
  expect(second.items.map((d) => d.deviceId)).toEqual([ids[0]])
  expect(second.nextCursor).toBeNull()

  const bad = await expectProblem(await admin.c.get('/api/admin/devices?includeRevoked=yes&userId=nobody&limit=0'), 400, 'KR_VALIDATION')
  expect(Object.keys(bad.errors ?? {}).sort()).toEqual(['includeRevoked', 'limit', 'userId'])
})

test('role matrix: only administrators list and revoke; another organisation’s device is 404', async () => {
  const { admin, writer, reader } = await organisation(t)
  const id = deviceId()
  expect((await reader.c.post('/auth/devices/register', { deviceId: id, platform: 'web' })).status).toBe(201)
  for (const member of [writer, reader]) {
    await expectProblem(await member.c.get('/api/admin/devices'), 403, 'KR_FORBIDDEN')
    await expectProblem(await member.c.delete(`/api/admin/devices/${reader.user.id}/${id}`), 403, 'KR_FORBIDDEN')
  }

  const other = await signedMember(t, 'admin')
  expect((await body<Page>(await other.c.get('/api/admin/devices?includeRevoked=true'))).items).toEqual([])
  await expectProblem(await other.c.delete(`/api/admin/devices/${reader.user.id}/${id}`), 404, 'KR_NOT_FOUND')
  await expectProblem(await admin.c.delete(`/api/admin/devices/${reader.user.id}/${deviceId()}`), 404, 'KR_NOT_FOUND')
  await expectProblem(await admin.c.delete(`/api/admin/devices/${randomUUID()}/${id}`), 404, 'KR_NOT_FOUND')
  await expectProblem(await admin.c.delete(`/api/admin/devices/not-a-user/${id}`), 400, 'KR_VALIDATION')
  // Still live for its owner.
  expect((await body<Page>(await admin.c.get('/api/admin/devices'))).items.map((d) => d.deviceId)).toEqual([id])
})
