import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { devices } from '#server/db/schema'
import { withTenant } from '#server/db/tenancy'
import { auditOf, client, createMember, show, expectProblem, signedInClient, uniqueSuffix, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend()
})

afterAll(async () => {
  await t.close()
})

type Device = { deviceId: string; platform: string; name: string | null; registeredAtUtc: string; lastSeenAtUtc: string; revokedAtUtc: string | null }

async function list(c: TestClient, query = ''): Promise<Device[]> {
  const response = await c.get(`/auth/devices${query}`)
  expect(response.status, await show(response)).toBe(200)
  return ((await response.json()) as { items: Device[] }).items
}

function deviceId(): string {
  return `device-${uniqueSuffix()}`
}

test('POST /auth/devices/register answers 201 with the device, which the list then shows', async () => {
  const member = await createMember(t.db)
  const c = await signedInClient(t, member)
  const id = deviceId()
  const now = t.now().toISOString()

  const response = await c.post('/auth/devices/register', { deviceId: id, platform: 'android', name: 'Site tablet', pushToken: 'push-1' })

  expect(response.status, await show(response)).toBe(201)
  const device = { deviceId: id, platform: 'android', name: 'Site tablet', registeredAtUtc: now, lastSeenAtUtc: now, revokedAtUtc: null }
  expect(await response.json()).toEqual(device)
  expect(await list(c)).toEqual([device])
  expect(await auditOf(t.db, { action: 'auth.device.registered', actorUserId: member.user.id })).toEqual([
    expect.objectContaining({ tenantId: member.tenant.id }),
  ])
})

test('registering the same device again updates it instead of adding another', async () => {
  const member = await createMember(t.db)
  const c = await signedInClient(t, member)
  const id = deviceId()
  const first = t.now().toISOString()
  await c.post('/auth/devices/register', { deviceId: id, platform: 'android', name: 'Old name' })

  t.now.advance(60_000)
  const response = await c.post('/auth/devices/register', { deviceId: id, platform: 'ios', name: 'New name' })

  expect(response.status, await show(response)).toBe(201)
  expect(await list(c)).toEqual([
    { deviceId: id, platform: 'ios', name: 'New name', registeredAtUtc: first, lastSeenAtUtc: t.now().toISOString(), revokedAtUtc: null },
  ])
})

test('DELETE /auth/devices/{id} revokes the device: 204, gone from the list, shown with includeRevoked, a second delete is 404', async () => {
  const member = await createMember(t.db)
  const c = await signedInClient(t, member)
  const kept = deviceId()
  const revoked = deviceId()
  await c.post('/auth/devices/register', { deviceId: kept, platform: 'ios' })
  await c.post('/auth/devices/register', { deviceId: revoked, platform: 'android' })

  const response = await c.delete(`/auth/devices/${revoked}`)

  expect(response.status, await show(response)).toBe(204)
  expect((await list(c)).map((d) => d.deviceId)).toEqual([kept])
  const all = await list(c, '?includeRevoked=true')
  expect(all.map((d) => d.deviceId).sort()).toEqual([kept, revoked].sort())
  expect(all.find((d) => d.deviceId === revoked)?.revokedAtUtc).toBe(t.now().toISOString())
  expect(all.find((d) => d.deviceId === kept)?.revokedAtUtc).toBeNull()
  await expectProblem(await c.delete(`/auth/devices/${revoked}`), 404, 'KR_NOT_FOUND')
  expect(await auditOf(t.db, { action: 'auth.device.revoked', actorUserId: member.user.id })).toHaveLength(1)

  const back = await c.post('/auth/devices/register', { deviceId: revoked, platform: 'android' })
  expect(await back.json()).toMatchObject({ deviceId: revoked, revokedAtUtc: null })
  expect((await list(c)).map((d) => d.deviceId).sort()).toEqual([kept, revoked].sort())
})

test('deleting a device that does not exist answers 404', async () => {
  const c = await signedInClient(t, await createMember(t.db))

  await expectProblem(await c.delete(`/auth/devices/${deviceId()}`), 404, 'KR_NOT_FOUND')
})

test('device registration input is checked field by field', async () => {
  const c = await signedInClient(t, await createMember(t.db))

  const empty = await expectProblem(await c.post('/auth/devices/register', {}), 400, 'KR_VALIDATION')
  const blank = await expectProblem(await c.post('/auth/devices/register', { deviceId: ' ', platform: 'x'.repeat(41) }), 400, 'KR_VALIDATION')

  expect(Object.keys(empty.errors ?? {}).sort()).toEqual(['deviceId', 'platform'])
  expect(Object.keys(blank.errors ?? {}).sort()).toEqual(['deviceId', 'platform'])
})

test('the device calls need a session', async () => {
  const c = client(t)

  await expectProblem(await c.get('/auth/devices'), 401, 'KR_UNAUTHENTICATED')
  await expectProblem(await c.post('/auth/devices/register', { deviceId: deviceId(), platform: 'ios' }), 401, 'KR_UNAUTHENTICATED')
  await expectProblem(await c.delete(`/auth/devices/${deviceId()}`), 401, 'KR_UNAUTHENTICATED')
})

test('a device is invisible and untouchable for a user of another tenant and for another user of the same tenant', async () => {
  const owner = await createMember(t.db)
  const colleague = await createMember(t.db, { tenant: owner.tenant })
  const outsider = await createMember(t.db)
  const ownerClient = await signedInClient(t, owner)
  const colleagueClient = await signedInClient(t, colleague)
  const outsiderClient = await signedInClient(t, outsider)
  const id = deviceId()
  await ownerClient.post('/auth/devices/register', { deviceId: id, platform: 'ios', name: 'Owner phone' })

  expect(await list(outsiderClient, '?includeRevoked=true')).toEqual([])
  expect(await list(colleagueClient, '?includeRevoked=true')).toEqual([])
  await expectProblem(await outsiderClient.delete(`/auth/devices/${id}`), 404, 'KR_NOT_FOUND')
  await expectProblem(await colleagueClient.delete(`/auth/devices/${id}`), 404, 'KR_NOT_FOUND')

  expect(await list(ownerClient)).toEqual([expect.objectContaining({ deviceId: id, revokedAtUtc: null })])
})

test('another tenant registering the same device id gets a device of its own', async () => {
  const owner = await createMember(t.db)
  const outsider = await createMember(t.db)
  const ownerClient = await signedInClient(t, owner)
  const outsiderClient = await signedInClient(t, outsider)
  const id = deviceId()
  await ownerClient.post('/auth/devices/register', { deviceId: id, platform: 'ios', name: 'Owner phone' })

  const response = await outsiderClient.post('/auth/devices/register', { deviceId: id, platform: 'android', name: 'Outsider phone' })
  expect(response.status).toBe(201)
  expect((await outsiderClient.delete(`/auth/devices/${id}`)).status).toBe(204)

  expect(await list(ownerClient)).toEqual([expect.objectContaining({ deviceId: id, platform: 'ios', name: 'Owner phone', revokedAtUtc: null })])
})

test('row-level security: inside tenant B, the device rows of tenant A do not exist', async () => {
  const a = await createMember(t.db)
  const b = await createMember(t.db)
  const id = deviceId()
  await (await signedInClient(t, a)).post('/auth/devices/register', { deviceId: id, platform: 'ios' })

  const seenByA = await withTenant(t.db, a.tenant.id, (tx) => tx.select({ deviceId: devices.deviceId }).from(devices).where(eq(devices.deviceId, id)))
  const seenByB = await withTenant(t.db, b.tenant.id, (tx) => tx.select({ deviceId: devices.deviceId }).from(devices))
  const askedByB = await withTenant(t.db, b.tenant.id, (tx) =>
    tx.select({ deviceId: devices.deviceId }).from(devices).where(and(eq(devices.tenantId, a.tenant.id), eq(devices.deviceId, id))),
  )
  const revokedByB = await withTenant(t.db, b.tenant.id, (tx) =>
    tx.update(devices).set({ revokedAt: t.now() }).where(eq(devices.deviceId, id)).returning({ deviceId: devices.deviceId }),
  )

  expect(seenByA).toEqual([{ deviceId: id }])
  expect(seenByB).toEqual([])
  expect(askedByB).toEqual([])
  expect(revokedByB).toEqual([])
  const [row] = await t.db.select({ revokedAt: devices.revokedAt }).from(devices).where(eq(devices.deviceId, id))
  expect(row?.revokedAt).toBeNull()
})
