import { desc, eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { sessions, tenants } from '#server/db/schema'
import type { ConfigCategoryValues } from '~/lib/admin/config'
import type { RetentionPolicy } from '~/lib/schemas/admin-retention'
import { client, createMember, expectProblem, signIn, TEST_PASSWORD, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { setQuota } from '#tests/helpers/photos'
import { body, put } from '#tests/helpers/reporting-a'
import { createItem, createOrg } from '#tests/helpers/reporting-b'

/** docs/admin/configuration.md: each setting takes effect where it says it does. Through HTTP. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-25T09:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

const PATH = '/api/admin/config'
const HOUR = 60 * 60_000
const MIB = 1024 * 1024

async function save(c: TestClient, category: string, values: Record<string, unknown>): Promise<ConfigCategoryValues> {
  const current = await body<ConfigCategoryValues>(await c.get(`${PATH}/${category}`))
  return body<ConfigCategoryValues>(
    await c.request(`${PATH}/${category}`, { method: 'PUT', json: { values: { ...current.values, ...values } }, headers: { 'if-match': `"${current.version}"` } }),
  )
}

async function tenantRow(id: string) {
  const [row] = await t.db.select({ mfaEnforced: tenants.mfaEnforced, quota: tenants.storageQuotaBytes }).from(tenants).where(eq(tenants.id, id))
  if (!row) throw new Error('no tenant')
  return row
}

test('Security › two-step sign-in is the organisation’s MFA rule: required makes sign-in ask for a code; optional lifts it', async () => {
  const org = await createOrg(t)
  const member = await createMember(t.db, { tenant: org.tenant, roleKey: 'read-write' })
  await save(org.admin, 'security', { mfaPolicy: 'required' })
  expect((await tenantRow(org.tenant.id)).mfaEnforced).toBe(true)
  expect(await signIn(client(t), { email: member.user.email, password: TEST_PASSWORD })).toMatchObject({ requiresMfa: true, mfaEnrollment: true })
  await save(org.admin, 'security', { mfaPolicy: 'optional' })
  expect((await tenantRow(org.tenant.id)).mfaEnforced).toBe(false)
  expect(await signIn(client(t), { email: member.user.email, password: TEST_PASSWORD })).toMatchObject({ requiresMfa: false })
  // The organisation's column is the one truth: changed there, the category shows it.
  await t.db.update(tenants).set({ mfaEnforced: true }).where(eq(tenants.id, org.tenant.id))
  expect((await body<ConfigCategoryValues>(await org.admin.get(`${PATH}/security`))).values.mfaPolicy).toBe('required')
})

test('Security › session lifetime caps the sessions signed in afterwards, in this organisation only', async () => {
  const org = await createOrg(t)
  const other = await createOrg(t)
  const member = await createMember(t.db, { tenant: org.tenant, roleKey: 'read-write' })
  const outsider = await createMember(t.db, { tenant: other.tenant, roleKey: 'read-write' })
  const saved = await save(org.admin, 'security', { sessionLifetimeHours: 2 })
  expect(saved.pendingRestart).toEqual([])
  const lastSession = async (userId: string) => {
    const [row] = await t.db
      .select({ max: sessions.maxExpiresAt, issued: sessions.issuedAt })
      .from(sessions)
      .where(eq(sessions.userId, userId))
      .orderBy(desc(sessions.issuedAt))
      .limit(1)
    if (!row) throw new Error('no session')
    return row.max.getTime() - row.issued.getTime()
  }
  await signIn(client(t), { email: member.user.email, password: TEST_PASSWORD })
  expect(await lastSession(member.user.id)).toBe(2 * HOUR)
  await signIn(client(t), { email: outsider.user.email, password: TEST_PASSWORD })
  expect(await lastSession(outsider.user.id)).toBe(14 * 24 * HOUR)
})

test('Security › shortest password applies where a member’s password is set: by an admin, and changing one’s own', async () => {
  const org = await createOrg(t)
  const member = await createMember(t.db, { tenant: org.tenant, roleKey: 'read-write' })
  await save(org.admin, 'security', { passwordMinLength: 20 })
  const short = 'twelve chars'
  const long = 'a much longer pass phrase'
  const refused = await expectProblem(await org.admin.post(`/api/admin/users/${member.user.id}/password/set`, { password: short }), 400, 'KR_VALIDATION')
  expect(refused.errors?.password?.[0]).toContain('at least 20 characters')
  expect((await org.admin.post(`/api/admin/users/${member.user.id}/password/set`, { password: long })).status).toBe(200)

  const own = client(t)
  await signIn(own, { email: member.user.email, password: long })
  const mine = await expectProblem(await own.post('/auth/password/set', { currentPassword: long, newPassword: short }), 400, 'KR_VALIDATION')
  expect(mine.errors?.newPassword?.[0]).toContain('at least 20 characters')
  expect((await own.post('/auth/password/set', { currentPassword: long, newPassword: `${long}!` })).status).toBe(204)
})

test('Storage › quota is the organisation’s quota: uploads that do not fit are refused; a quota set elsewhere stays exact', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const upload = (size: number) => org.writer.post(`/api/items/${item.id}/uploads`, { fileName: 'site.png', size, contentType: 'image/png' })
  expect((await upload(2 * MIB)).status).toBe(201)
  await save(org.admin, 'storage', { quotaMb: 1 })
  expect((await tenantRow(org.tenant.id)).quota).toBe(MIB)
  const full = await expectProblem(await upload(2 * MIB), 413, 'KR_QUOTA_EXCEEDED')
  expect(full.quotaBytes).toBe(MIB)

  // A quota that is no whole number of MB (set by the operator) is shown rounded and left alone by other saves.
  await setQuota(t, org.tenant.id, 5 * MIB + 123)
  const storage = await body<ConfigCategoryValues>(await org.admin.get(`${PATH}/storage`))
  expect(storage.values.quotaMb).toBe(5)
  await save(org.admin, 'storage', { maxPhotoMb: 30 })
  expect((await tenantRow(org.tenant.id)).quota).toBe(5 * MIB + 123)
})

test('Storage › largest photo lowers the upload limit of this organisation', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const upload = (size: number) => org.writer.post(`/api/items/${item.id}/uploads`, { fileName: 'site.png', size, contentType: 'image/png' })
  await save(org.admin, 'storage', { maxPhotoMb: 1 })
  const tooLarge = await expectProblem(await upload(MIB + 1), 413, 'KR_UPLOAD_TOO_LARGE')
  expect(tooLarge).toMatchObject({ maxBytes: MIB, sizeBytes: MIB + 1 })
  expect(tooLarge.detail).toContain('1 MB')
  expect((await upload(MIB)).status).toBe(201)
})

test('Retention is one policy: saved here it is what /admin/retention shows, and the other way round', async () => {
  const org = await createOrg(t)
  const saved = await save(org.admin, 'retention', { enabled: true, archiveAfterDays: 40, purgeAfterDays: 400 })
  expect(saved.values).toMatchObject({ enabled: true, archiveAfterDays: 40, purgeAfterDays: 400 })
  expect(await body<RetentionPolicy>(await org.admin.get('/api/admin/retention'))).toMatchObject({ enabled: true, archiveAfterDays: 40, purgeAfterDays: 400 })
  await body(await put(org.admin, '/api/admin/retention', { enabled: false, archiveAfterDays: 50, purgeAfterDays: 500 }))
  expect((await body<ConfigCategoryValues>(await org.admin.get(`${PATH}/retention`))).values).toEqual({ enabled: false, archiveAfterDays: 50, purgeAfterDays: 500 })
  // A rollback writes the policy back too.
  await body(await org.admin.post(`${PATH}/retention/rollback`, { version: 1 }))
  expect(await body<RetentionPolicy>(await org.admin.get('/api/admin/retention'))).toMatchObject({ enabled: true, archiveAfterDays: 40, purgeAfterDays: 400 })
  // Both screens check the same rule.
  const refused = await expectProblem(
    await org.admin.request(`${PATH}/retention`, { method: 'PUT', json: { values: { enabled: true, archiveAfterDays: 60, purgeAfterDays: 10 } }, headers: { 'if-match': '"2"' } }),
    400,
  )
  expect(refused.errors?.purgeAfterDays).toBeDefined()
  const other = await createOrg(t)
  expect((await body<ConfigCategoryValues>(await other.admin.get(`${PATH}/retention`))).values).toEqual({ enabled: false, archiveAfterDays: 365, purgeAfterDays: 2555 })
})
