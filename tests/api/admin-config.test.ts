import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { tenants } from '#server/db/schema'
import { adminConfig, adminConfigVersions } from '#server/db/schema-settings'
import { asAdmin } from '#server/domain/admin/context'
import { effectiveGeneralConfig, effectiveMailConfig } from '#server/domain/config/effective'
import { configEntityId, patchConfigCategory, readConfigCategory } from '#server/domain/config/store'
import type { ConfigCategory, ConfigCategoryValues, ConfigSchemaResponse, ConfigStatusResponse, ConfigVersionsResponse } from '~/lib/admin/config'
import { auditOf, client, expectProblem, show, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, changeLogOf, organisation } from '#tests/helpers/reporting-a'

/** docs/admin/configuration.md: categories, validation, secrets, versions, conflicts, rollback, status. Through HTTP. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-25T09:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

const PATH = '/api/admin/config'

function putConfig(c: TestClient, category: string, values: Record<string, unknown>, version: number | null, extra: { body?: Record<string, unknown>; ifMatch?: string } = {}) {
  const headers: Record<string, string> = {}
  if (extra.ifMatch !== undefined) headers['if-match'] = extra.ifMatch
  else if (version !== null) headers['if-match'] = `"${version}"`
  return c.request(`${PATH}/${category}`, { method: 'PUT', json: { values, ...extra.body }, headers })
}

const MAIL = { host: 'smtp.example.com', port: 587, security: 'starttls', username: 'mailer', fromAddress: 'portal@example.com', fromName: 'Site team' }

test('the schema lists every category as JSON Schema from the zod schemas, with our keywords on each field', async () => {
  const { admin } = await organisation(t)
  const schema = await body<ConfigSchemaResponse>(await admin.c.get(`${PATH}/schema`))
  expect(schema.categories.map((c) => c.key)).toEqual(['general', 'security', 'mail', 'storage', 'telemetry', 'identity-provider', 'realtime', 'retention'])
  const of = (key: string) => {
    const found = schema.categories.find((c) => c.key === key)
    if (!found) throw new Error(key)
    return found
  }
  const mail = of('mail')
  expect(Object.keys(mail.schema.properties)).toEqual(['host', 'port', 'security', 'username', 'password', 'fromAddress', 'fromName'])
  expect(mail.tests).toEqual(['smtp'])
  expect(mail.schema.required?.sort()).toEqual(['fromAddress', 'host'])
  expect(mail.schema.additionalProperties).toBe(false)
  expect(mail.schema.properties.password).toMatchObject({ type: 'string', 'x-secret': true, 'x-applies': 'immediately', title: 'Password' })
  expect(mail.schema.properties.port).toMatchObject({ type: 'integer', minimum: 1, maximum: 65535, default: 587 })
  expect(mail.schema.properties.security).toMatchObject({ enum: ['none', 'starttls', 'tls'], 'x-enum-labels': ['None (local relay only)', 'STARTTLS', 'TLS'], default: 'starttls' })
  expect(of('general').schema.properties.siteName).toMatchObject({ default: 'Site Portal', maxLength: 80 })
  expect(of('general').schema.properties.publicUrl).toMatchObject({ format: 'uri' })
  expect(of('general').schema.required ?? []).toEqual([])
  expect(of('security').schema.properties.sessionLifetimeHours).toMatchObject({ 'x-unit': 'hours', 'x-applies': 'new-sessions', maximum: 336 })
  expect(of('identity-provider').schema.properties.clientSecret).toMatchObject({ 'x-secret': true })
  expect(of('identity-provider').tests).toEqual(['oidc'])
  expect(of('realtime').schema.properties.backplane).toMatchObject({ readOnly: true, 'x-applies': 'restart' })
  expect(of('storage').schema.properties.quotaMb).toMatchObject({ 'x-unit': 'MB' })
  for (const category of schema.categories) {
    expect(category.title.length).toBeGreaterThan(0)
    expect(category.description.length).toBeGreaterThan(0)
    for (const [name, field] of Object.entries(category.schema.properties)) {
      expect(field.title, `${category.key}.${name}`).toBeTruthy()
      expect(field.description, `${category.key}.${name}`).toBeTruthy()
      expect(field['x-applies'], `${category.key}.${name}`).toMatch(/^(immediately|new-sessions|restart)$/)
    }
  }
})

test('only administrators reach the configuration: 401 signed out, 403 for other roles; unknown category or test 404', async () => {
  const { admin, writer, reader } = await organisation(t)
  for (const member of [writer, reader]) {
    await expectProblem(await member.c.get(`${PATH}/schema`), 403)
    await expectProblem(await member.c.get(`${PATH}/status`), 403)
    await expectProblem(await member.c.get(`${PATH}/general`), 403)
    await expectProblem(await putConfig(member.c, 'general', { siteName: 'Mine' }, 0), 403)
    await expectProblem(await member.c.get(`${PATH}/general/versions`), 403)
    await expectProblem(await member.c.post(`${PATH}/general/rollback`, { version: 1 }), 403)
    await expectProblem(await member.c.post(`${PATH}/tests/storage`, {}), 403)
  }
  await expectProblem(await client(t).get(`${PATH}/general`), 401)
  await expectProblem(await admin.c.get(`${PATH}/nonsense`), 404, 'KR_NOT_FOUND')
  await expectProblem(await putConfig(admin.c, 'nonsense', {}, 0), 404, 'KR_NOT_FOUND')
  await expectProblem(await admin.c.get(`${PATH}/nonsense/versions`), 404, 'KR_NOT_FOUND')
  await expectProblem(await admin.c.post(`${PATH}/nonsense/rollback`, { version: 1 }), 404, 'KR_NOT_FOUND')
  await expectProblem(await admin.c.post(`${PATH}/tests/ftp`, {}), 404, 'KR_NOT_FOUND')
  // Nothing was stored by the refused calls.
  expect((await body<ConfigCategoryValues>(await admin.c.get(`${PATH}/general`))).version).toBe(0)
})

test('a category never saved answers its defaults at version 0, with ETag "0"', async () => {
  const { admin } = await organisation(t)
  const response = await admin.c.get(`${PATH}/general`)
  expect(response.headers.get('etag')).toBe('"0"')
  const general = await body<ConfigCategoryValues>(response)
  expect(general).toMatchObject({
    category: 'general',
    version: 0,
    configured: false,
    values: { siteName: 'Site Portal', defaultLocale: 'en-GB', defaultTimeZone: 'UTC' },
    secrets: {},
    updatedAtUtc: null,
    updatedBy: null,
    lastTest: null,
    pendingRestart: [],
  })
  const mail = await body<ConfigCategoryValues>(await admin.c.get(`${PATH}/mail`))
  expect(mail).toMatchObject({ version: 0, configured: false, values: { port: 587, security: 'starttls' }, secrets: { password: { set: false } } })
})

/** Per category: values that save, and values refused with the fields named. */
const CASES: { category: ConfigCategory; good: Record<string, unknown>; bad: { values: Record<string, unknown>; fields: string[] }[] }[] = [
  {
    category: 'general',
    good: { siteName: 'North Yard', publicUrl: 'https://portal.example.com', defaultLocale: 'de-DE', defaultTimeZone: 'Europe/Berlin' },
    bad: [
      { values: { siteName: '', defaultTimeZone: 'Mars/Olympus' }, fields: ['siteName', 'defaultTimeZone'] },
      { values: { publicUrl: 'ftp://x.example.com', defaultLocale: 'not a locale' }, fields: ['publicUrl', 'defaultLocale'] },
      { values: { siteName: 'x'.repeat(81), colour: 'red' }, fields: ['siteName', 'colour'] },
    ],
  },
  {
    category: 'security',
    good: { sessionLifetimeHours: 24, mfaPolicy: 'optional', passwordMinLength: 12 },
    bad: [
      { values: { sessionLifetimeHours: 0, mfaPolicy: 'sometimes', passwordMinLength: 4 }, fields: ['sessionLifetimeHours', 'mfaPolicy', 'passwordMinLength'] },
      { values: { sessionLifetimeHours: 1000, passwordMinLength: 12.5 }, fields: ['sessionLifetimeHours', 'passwordMinLength'] },
    ],
  },
  {
    category: 'mail',
    good: MAIL,
    bad: [
      { values: {}, fields: ['host', 'fromAddress'] },
      { values: { ...MAIL, host: 'smtp://mail.example.com:25', port: 70000, security: 'ssl', fromAddress: 'not-an-address' }, fields: ['host', 'port', 'security', 'fromAddress'] },
      { values: { ...MAIL, port: '587' }, fields: ['port'] },
    ],
  },
  {
    category: 'storage',
    good: { quotaMb: 2048, maxPhotoMb: 20 },
    bad: [{ values: { quotaMb: 0, maxPhotoMb: 51 }, fields: ['quotaMb', 'maxPhotoMb'] }],
  },
  {
    category: 'telemetry',
    good: { enabled: true, samplingPercent: 25 },
    bad: [{ values: { enabled: 'yes', samplingPercent: 101 }, fields: ['enabled', 'samplingPercent'] }],
  },
  {
    category: 'identity-provider',
    good: { enabled: true, issuer: 'https://login.example.com/realms/site', clientId: 'site-portal', clientSecret: 'oidc-secret-value' },
    bad: [
      { values: { enabled: true }, fields: ['issuer', 'clientId', 'clientSecret'] },
      { values: { issuer: 'http://login.example.com' }, fields: ['issuer'] },
    ],
  },
  {
    category: 'retention',
    good: { enabled: true, archiveAfterDays: 30, purgeAfterDays: 90 },
    bad: [
      { values: { enabled: true, archiveAfterDays: 30, purgeAfterDays: 30 }, fields: ['purgeAfterDays'] },
      { values: { archiveAfterDays: 0, purgeAfterDays: 100_000 }, fields: ['archiveAfterDays', 'purgeAfterDays'] },
    ],
  },
]

test.each(CASES)('$category: good values save as version 1; bad ones are 400 with each field named, and nothing is saved', async ({ category, good, bad }) => {
  const { admin } = await organisation(t)
  for (const attempt of bad) {
    const problem = await expectProblem(await putConfig(admin.c, category, attempt.values, 0), 400, 'KR_VALIDATION')
    expect(Object.keys(problem.errors ?? {}).sort(), JSON.stringify(problem.errors)).toEqual([...attempt.fields].sort())
    for (const messages of Object.values(problem.errors ?? {})) for (const message of messages) expect(message.length).toBeGreaterThan(5)
  }
  expect((await body<ConfigCategoryValues>(await admin.c.get(`${PATH}/${category}`))).version).toBe(0)
  const response = await putConfig(admin.c, category, good, 0)
  expect(response.headers.get('etag')).toBe('"1"')
  const saved = await body<ConfigCategoryValues>(response)
  const { clientSecret: _secret, ...visible } = good
  expect(saved).toMatchObject({ category, version: 1, configured: true, values: visible, pendingRestart: [] })
  expect(saved.updatedBy).toEqual({ id: admin.user.id, displayName: admin.user.displayName })
  expect(saved.updatedAtUtc).toBe(t.now().toISOString())
})

test('a field the category does not have is named; one called __proto__ pollutes nothing and is not stored', async () => {
  const { admin, tenant } = await organisation(t)
  const send = (text: string) => admin.c.request(`${PATH}/general`, { method: 'PUT', headers: { 'if-match': '"0"', 'content-type': 'application/json' }, body: text })
  const problem = await expectProblem(await send('{"values":{"siteName":"Fine","toString":"x","colour":"red"}}'), 400, 'KR_VALIDATION')
  expect(problem.errors).toEqual({ toString: ['toString is not a setting of this category.'], colour: ['colour is not a setting of this category.'] })
  const saved = await body<ConfigCategoryValues>(await send('{"values":{"siteName":"Fine","__proto__":{"polluted":true}}}'))
  expect(saved.values).toEqual({ siteName: 'Fine', defaultLocale: 'en-GB', defaultTimeZone: 'UTC' })
  expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  const [row] = await t.db.select({ values: adminConfig.values }).from(adminConfig).where(eq(adminConfig.tenantId, tenant.id))
  expect(JSON.stringify(row?.values)).not.toContain('polluted')
})

test('realtime is read-only: it shows what the environment set, and saving it is 409 KR_CONFIG_READ_ONLY', async () => {
  const { admin } = await organisation(t)
  const realtime = await body<ConfigCategoryValues>(await admin.c.get(`${PATH}/realtime`))
  expect(realtime).toMatchObject({ version: 0, configured: false, values: { backplane: 'memory' } })
  const refused = await expectProblem(await putConfig(admin.c, 'realtime', { backplane: 'redis' }, 0), 409, 'KR_CONFIG_READ_ONLY')
  expect(refused.remediation).toContain('Ask whoever runs the server')
  await expectProblem(await admin.c.post(`${PATH}/realtime/rollback`, { version: 1 }), 409, 'KR_CONFIG_READ_ONLY')
})

test('secrets are write-only: never in GET, PUT answers, versions, audit, errors or the stored row; blank keeps, typed replaces, null removes', async () => {
  const { admin, tenant } = await organisation(t)
  const first = 'first-Secret-9f3k2'
  const second = 'second-Secret-77ab'
  const saved = await body<ConfigCategoryValues>(await putConfig(admin.c, 'mail', { ...MAIL, password: first }, 0))
  expect(saved.secrets).toEqual({ password: { set: true } })
  expect(saved.values).not.toHaveProperty('password')
  const opened = async () => (await effectiveMailConfig(t.db, t.config.sessionSecret, tenant.id))?.values.password
  expect(await opened()).toBe(first)

  // Blank keeps the saved one (and changes nothing else: no new version).
  const kept = await body<ConfigCategoryValues>(await putConfig(admin.c, 'mail', { ...MAIL, password: '' }, 1))
  expect(kept.version).toBe(1)
  expect(await opened()).toBe(first)
  // Another field changed, the secret left out: kept.
  const renamed = await body<ConfigCategoryValues>(await putConfig(admin.c, 'mail', { ...MAIL, fromName: 'Yard office' }, 1))
  expect(renamed).toMatchObject({ version: 2, secrets: { password: { set: true } } })
  expect(await opened()).toBe(first)
  // Typed again: replaced.
  expect((await body<ConfigCategoryValues>(await putConfig(admin.c, 'mail', { ...MAIL, fromName: 'Yard office', password: second }, 2))).version).toBe(3)
  expect(await opened()).toBe(second)
  // A refused save with a secret in it does not send the secret back.
  const refusedResponse = await putConfig(admin.c, 'mail', { ...MAIL, fromName: 'Yard office', port: -1, password: 'third-Secret-x1' }, 3)
  const refused = await expectProblem(refusedResponse, 400, 'KR_VALIDATION')
  expect(JSON.stringify(refused)).not.toContain('third-Secret-x1')
  // null removes it.
  const removed = await body<ConfigCategoryValues>(await putConfig(admin.c, 'mail', { ...MAIL, fromName: 'Yard office', password: null }, 3))
  expect(removed).toMatchObject({ version: 4, secrets: { password: { set: false } } })
  expect(await opened()).toBeUndefined()

  const everything = [
    await show(await admin.c.get(`${PATH}/mail`)),
    await show(await admin.c.get(`${PATH}/mail/versions`)),
    await show(await admin.c.get(`${PATH}/status`)),
    JSON.stringify(await auditOf(t.db, { tenantId: tenant.id })),
    JSON.stringify(await t.db.select().from(adminConfig).where(eq(adminConfig.tenantId, tenant.id))),
    JSON.stringify(await t.db.select().from(adminConfigVersions).where(eq(adminConfigVersions.tenantId, tenant.id))),
  ].join('\n')
  for (const secret of [first, second, 'third-Secret-x1']) expect(everything).not.toContain(secret)

  const versions = await body<ConfigVersionsResponse>(await admin.c.get(`${PATH}/mail/versions`))
  expect(versions.items.map((v) => v.version)).toEqual([4, 3, 2, 1])
  expect(versions.items[0]?.changes).toEqual([{ field: 'password', before: '••••', after: null }])
  expect(versions.items[1]?.changes).toEqual([{ field: 'password', before: '••••', after: '••••' }])
  expect(versions.items[2]?.changes).toEqual([{ field: 'fromName', before: 'Site team', after: 'Yard office' }])
  const changed = await auditOf(t.db, { tenantId: tenant.id, action: 'admin.config.changed' })
  expect(changed).toHaveLength(4)
  expect(changed[0]).toMatchObject({ actorUserId: admin.user.id, data: { category: 'mail', version: 1 } })
  expect(changed[0]?.data).toMatchObject({
    changes: expect.arrayContaining([
      { field: 'host', before: null, after: 'smtp.example.com' },
      { field: 'password', before: null, after: '••••' },
    ]),
  })
})

test('a save on an old version is 409 KR_CONFIG_CONFLICT with both versions and the current values; If-Match or body version is required', async () => {
  const { admin } = await organisation(t)
  const other = admin.c
  await body<ConfigCategoryValues>(await putConfig(admin.c, 'general', { siteName: 'First' }, 0))
  // Someone else saves version 2 meanwhile.
  await body<ConfigCategoryValues>(await putConfig(other, 'general', { siteName: 'Second' }, 1))
  const conflict = await expectProblem(await putConfig(admin.c, 'general', { siteName: 'Mine' }, 1), 409, 'KR_CONFIG_CONFLICT')
  expect(conflict).toMatchObject({ currentVersion: 2, yourVersion: 1, current: { category: 'general', version: 2, values: { siteName: 'Second' } } })
  expect(conflict.detail).toContain('version 2')
  // The body's version works the same way.
  await expectProblem(await putConfig(admin.c, 'general', { siteName: 'Mine' }, null, { body: { version: 1 } }), 409, 'KR_CONFIG_CONFLICT')
  expect((await body<ConfigCategoryValues>(await putConfig(admin.c, 'general', { siteName: 'Mine' }, null, { body: { version: 2 } }))).version).toBe(3)
  // Weak ETags are accepted; nonsense is 400; no version at all is 428.
  expect((await body<ConfigCategoryValues>(await putConfig(admin.c, 'general', { siteName: 'Weak' }, null, { ifMatch: 'W/"3"' }))).version).toBe(4)
  await expectProblem(await putConfig(admin.c, 'general', { siteName: 'X' }, null, { ifMatch: 'yesterday' }), 400, 'KR_VALIDATION')
  await expectProblem(await putConfig(admin.c, 'general', { siteName: 'X' }, null), 428, 'KR_CONFIG_VERSION_REQUIRED')
  expect((await body<ConfigCategoryValues>(await admin.c.get(`${PATH}/general`))).values.siteName).toBe('Weak')
})

test('two saves of one version at the same moment: one wins, the other is 409', async () => {
  const { admin } = await organisation(t)
  const results = await Promise.all([putConfig(admin.c, 'telemetry', { enabled: true }, 0), putConfig(admin.c, 'telemetry', { enabled: false, samplingPercent: 5 }, 0)])
  expect(results.map((r) => r.status).sort()).toEqual([200, 409])
  const versions = await body<ConfigVersionsResponse>(await admin.c.get(`${PATH}/telemetry/versions`))
  expect(versions.items.map((v) => v.version)).toEqual([1])
})

test('rollback restores an earlier version as a new one, secrets and other-table fields included; audited; unknown version 404', async () => {
  const { admin, tenant } = await organisation(t)
  await body(await putConfig(admin.c, 'mail', { ...MAIL, password: 'rollback-one' }, 0))
  await body(await putConfig(admin.c, 'mail', { ...MAIL, host: 'smtp2.example.com', password: 'rollback-two' }, 1))
  const restored = await body<ConfigCategoryValues>(await admin.c.post(`${PATH}/mail/rollback`, { version: 1 }))
  expect(restored).toMatchObject({ version: 3, values: { host: 'smtp.example.com' }, secrets: { password: { set: true } } })
  expect((await effectiveMailConfig(t.db, t.config.sessionSecret, tenant.id))?.values).toMatchObject({ host: 'smtp.example.com', password: 'rollback-one' })
  const versions = await body<ConfigVersionsResponse>(await admin.c.get(`${PATH}/mail/versions`))
  expect(versions.items[0]).toMatchObject({ version: 3, restoredFrom: 1, changedBy: { id: admin.user.id } })
  expect(versions.items[0]?.changes).toEqual([
    { field: 'host', before: 'smtp2.example.com', after: 'smtp.example.com' },
    { field: 'password', before: '••••', after: '••••' },
  ])
  const audit = await auditOf(t.db, { tenantId: tenant.id, action: 'admin.config.rolled-back' })
  expect(audit).toEqual([expect.objectContaining({ actorUserId: admin.user.id, data: expect.objectContaining({ category: 'mail', version: 3, restoredFrom: 1 }) })])
  expect(JSON.stringify(audit)).not.toContain('rollback-')
  await expectProblem(await admin.c.post(`${PATH}/mail/rollback`, { version: 99 }), 404, 'KR_NOT_FOUND')
  await expectProblem(await admin.c.post(`${PATH}/mail/rollback`, { version: 'one' }), 400, 'KR_VALIDATION')
  // A version past the 32-bit column names none: a field error, not a database error (the fuzz found a 500 here).
  await expectProblem(await admin.c.post(`${PATH}/mail/rollback`, { version: 2_147_483_648 }), 400, 'KR_VALIDATION')
  await expectProblem(await putConfig(admin.c, 'general', { siteName: 'X' }, null, { body: { version: 2_147_483_648 } }), 400, 'KR_VALIDATION')

  // The MFA policy lives on the organisation: a rollback puts it back there too.
  await body(await putConfig(admin.c, 'security', { mfaPolicy: 'required' }, 0))
  await body(await putConfig(admin.c, 'security', { mfaPolicy: 'optional' }, 1))
  await body(await admin.c.post(`${PATH}/security/rollback`, { version: 1 }))
  const [row] = await t.db.select({ mfa: tenants.mfaEnforced }).from(tenants).where(eq(tenants.id, tenant.id))
  expect(row?.mfa).toBe(true)
})

test('status: per category configured or not, the last change (who, when) and the last test', async () => {
  const { admin } = await organisation(t)
  const before = await body<ConfigStatusResponse>(await admin.c.get(`${PATH}/status`))
  expect(before.categories.map((c) => c.category)).toEqual(['general', 'security', 'mail', 'storage', 'telemetry', 'identity-provider', 'realtime', 'retention'])
  expect(before.categories.every((c) => !c.configured && c.version === 0 && c.lastTest === null)).toBe(true)
  await body(await putConfig(admin.c, 'mail', MAIL, 0))
  const tested = await admin.c.post(`${PATH}/tests/storage`, {})
  expect(tested.status, await show(tested)).toBe(200)
  const after = await body<ConfigStatusResponse>(await admin.c.get(`${PATH}/status`))
  const mail = after.categories.find((c) => c.category === 'mail')
  expect(mail).toMatchObject({
    title: 'Mail',
    configured: true,
    version: 1,
    updatedAtUtc: t.now().toISOString(),
    updatedBy: { id: admin.user.id, displayName: admin.user.displayName },
    lastTest: null,
  })
  const storage = after.categories.find((c) => c.category === 'storage')
  expect(storage).toMatchObject({ configured: false, version: 0, updatedBy: null, lastTest: { kind: 'storage', ok: true, testedBy: admin.user.displayName } })
})

test('configuration is per organisation: another organisation’s admin sees its own defaults and cannot touch these', async () => {
  const a = await organisation(t)
  const b = await organisation(t)
  await body(await putConfig(a.admin.c, 'general', { siteName: 'Alpha site' }, 0))
  await body(await putConfig(a.admin.c, 'general', { siteName: 'Alpha site 2' }, 1))
  await body(await putConfig(a.admin.c, 'storage', { quotaMb: 5 }, 0))
  expect((await body<ConfigCategoryValues>(await b.admin.c.get(`${PATH}/general`))).values.siteName).toBe('Site Portal')
  expect((await body<ConfigVersionsResponse>(await b.admin.c.get(`${PATH}/general/versions`))).items).toEqual([])
  await expectProblem(await b.admin.c.post(`${PATH}/general/rollback`, { version: 1 }), 404, 'KR_NOT_FOUND')
  await body(await putConfig(b.admin.c, 'general', { siteName: 'Beta site' }, 0))
  expect((await body<ConfigCategoryValues>(await a.admin.c.get(`${PATH}/general`))).values.siteName).toBe('Alpha site 2')
  const [quotaB] = await t.db.select({ quota: tenants.storageQuotaBytes }).from(tenants).where(eq(tenants.id, b.tenant.id))
  expect(quotaB?.quota).toBe(10 * 1024 ** 3)
  expect((await effectiveGeneralConfig(t.db, b.tenant.id)).values.siteName).toBe('Beta site')
})

test('patchConfigCategory (Settings › Site) merges, validates with the category schema and keeps versions; readConfigCategory reads it', async () => {
  const { admin, tenant } = await organisation(t)
  const session = { tenantId: tenant.id, userId: admin.user.id }
  const meta = { ip: '192.0.2.1', correlationId: 'c-1' }
  await body(await putConfig(admin.c, 'general', { siteName: 'Kept name' }, 0))
  const patched = await asAdmin(t.db, session, t.now(), (ctx) => patchConfigCategory(ctx, 'general', { defaultTimeZone: 'Europe/Paris' }, meta))
  expect(patched).toMatchObject({ version: 2, values: { siteName: 'Kept name', defaultTimeZone: 'Europe/Paris', defaultLocale: 'en-GB' } })
  await expect(asAdmin(t.db, session, t.now(), (ctx) => patchConfigCategory(ctx, 'general', { defaultTimeZone: 'Nowhere/Else' }, meta))).rejects.toMatchObject({
    init: { status: 400, errors: { defaultTimeZone: [expect.any(String)] } },
  })
  const read = await asAdmin(t.db, session, t.now(), (ctx) => readConfigCategory(ctx, 'general'))
  expect(read.values.defaultTimeZone).toBe('Europe/Paris')
  expect(await effectiveGeneralConfig(t.db, tenant.id)).toEqual({
    configured: true,
    values: { siteName: 'Kept name', publicUrl: undefined, defaultLocale: 'en-GB', defaultTimeZone: 'Europe/Paris' },
  })
  // The sender name falls back to the site name.
  await body(await putConfig(admin.c, 'mail', { ...MAIL, fromName: '' }, 0))
  expect((await effectiveMailConfig(t.db, t.config.sessionSecret, tenant.id))?.values).toMatchObject({ fromName: 'Kept name', fromAddress: MAIL.fromAddress })
})

test('every save, rollback and test is announced to realtime as AdminConfig', async () => {
  const { admin, tenant } = await organisation(t)
  await body(await putConfig(admin.c, 'telemetry', { enabled: true }, 0))
  await body(await admin.c.post(`${PATH}/telemetry/rollback`, { version: 1 }))
  await body(await admin.c.post(`${PATH}/tests/storage`, {}))
  const changes = (await changeLogOf(t, tenant.id)).filter((c) => c.entity === 'AdminConfig')
  const telemetry = configEntityId(tenant.id, 'telemetry')
  const storage = configEntityId(tenant.id, 'storage')
  expect(changes.map((c) => [c.entityId, c.changeType])).toEqual([
    [telemetry, 'Updated'],
    [telemetry, 'Updated'],
    [storage, 'Updated'],
  ])
  expect(telemetry).not.toBe(configEntityId((await organisation(t)).tenant.id, 'telemetry'))
})
