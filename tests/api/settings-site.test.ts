import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { tenants } from '#server/db/schema'
import { withTenant } from '#server/db/tenancy'
import { addWorkingDays, dueAfterWorkingDays } from '#server/domain/settings/working-days'
import { blobStoreFor } from '#server/storage/blob-stores'
import { auditOf, createTenant, expectProblem, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, changeLogOf, organisation, patch } from '#tests/helpers/reporting-a'
import type { AdminSettings, SiteSettings } from '~/lib/settings/settings'

/** Settings › Site and › Admin through HTTP (issue 14, docs/settings.md). */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-18T09:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

/** A 1×1 PNG. */
const PNG = Uint8Array.from(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64'))

function sendLogo(c: TestClient, bytes: Uint8Array, name = 'logo.png', type = 'image/png'): Promise<Response> {
  const form = new FormData()
  form.append('logo', new File([new Uint8Array(bytes)], name, { type }))
  return c.request('/api/settings/site/logo', { method: 'POST', body: form })
}

test('site settings: every member reads them; an administrator changes name, slug, locale, time zone and working days', async () => {
  const { tenant, admin, reader } = await organisation(t)
  const read = await body<SiteSettings>(await reader.c.get('/api/settings/site'))
  expect(read).toEqual({ name: tenant.name, slug: tenant.slug, logo: null, locale: 'en-GB', timeZone: 'UTC', workingDays: [1, 2, 3, 4, 5], canEdit: false, revision: 0 })

  const slug = `riverside-${tenant.id.slice(0, 8)}`
  const changed = await body<SiteSettings>(
    await patch(admin.c, '/api/settings/site', {
      name: 'Riverside Builders',
      slug: slug.toUpperCase(),
      locale: 'de-DE',
      timeZone: 'Europe/Berlin',
      workingDays: [6, 1, 2, 3, 4, 1],
    }),
  )
  expect(changed).toEqual({ name: 'Riverside Builders', slug, logo: null, locale: 'de-DE', timeZone: 'Europe/Berlin', workingDays: [1, 2, 3, 4, 6], canEdit: true, revision: 1 })
  expect(await body<SiteSettings>(await reader.c.get('/api/settings/site'))).toMatchObject({ name: 'Riverside Builders', locale: 'de-DE', timeZone: 'Europe/Berlin' })
  // One source: the general configuration says the same.
  const general = await body<{ values: Record<string, unknown> }>(await admin.c.get('/api/admin/config/general'))
  expect(general.values).toMatchObject({ defaultLocale: 'de-DE', defaultTimeZone: 'Europe/Berlin' })

  const [audit] = await auditOf(t.db, { action: 'settings.site.changed', tenantId: tenant.id })
  expect(audit?.data).toEqual({
    name: { from: tenant.name, to: 'Riverside Builders' },
    slug: { from: tenant.slug, to: slug },
    workingDays: { from: [1, 2, 3, 4, 5], to: [1, 2, 3, 4, 6] },
    locale: { from: 'en-GB', to: 'de-DE' },
    timeZone: { from: 'UTC', to: 'Europe/Berlin' },
  })
  expect((await changeLogOf(t, tenant.id)).some((c) => c.entity === 'Organisation' && c.entityId === tenant.id)).toBe(true)
})

test('a Site form opened before the locale or time zone changed in Administration › Configuration is refused, not saved over it', async () => {
  const { admin } = await organisation(t)
  const opened = await body<SiteSettings>(await admin.c.get('/api/settings/site'))
  const general = await body<{ values: Record<string, unknown>; version: number }>(await admin.c.get('/api/admin/config/general'))
  const saved = await admin.c.request('/api/admin/config/general', {
    method: 'PUT',
    json: { values: { ...general.values, defaultTimeZone: 'Europe/Paris' } },
    headers: { 'if-match': `"${general.version}"` },
  })
  expect(saved.status).toBe(200)

  const stale = await expectProblem(await patch(admin.c, '/api/settings/site', { timeZone: 'UTC', expectedRevision: opened.revision }), 409, 'KR_EDIT_CONFLICT')
  expect(stale).toMatchObject({ current: { timeZone: 'Europe/Paris' } })
  expect(await body<SiteSettings>(await admin.c.get('/api/settings/site'))).toMatchObject({ timeZone: 'Europe/Paris' })

  // A change of something else in the general configuration leaves the Site form's revision alone.
  const now = await body<SiteSettings>(await admin.c.get('/api/settings/site'))
  const after = await body<{ values: Record<string, unknown>; version: number }>(await admin.c.get('/api/admin/config/general'))
  const unrelated = Object.keys(after.values).find((key) => typeof after.values[key] === 'boolean')
  if (unrelated) {
    await admin.c.request('/api/admin/config/general', { method: 'PUT', json: { values: { ...after.values, [unrelated]: !after.values[unrelated] } }, headers: { 'if-match': `"${after.version}"` } })
    expect((await body<SiteSettings>(await admin.c.get('/api/settings/site'))).revision).toBe(now.revision)
  }
  // One save of the Site form moves its revision by one, locale and time zone included.
  const both = await body<SiteSettings>(await patch(admin.c, '/api/settings/site', { name: 'Renamed', timeZone: 'UTC', expectedRevision: now.revision }))
  expect(both.revision).toBe(now.revision + 1)
})

test('site settings: members may not change them; fields are validated; a slug in use is a 409 on slug', async () => {
  const { admin, writer, reader } = await organisation(t)
  await expectProblem(await patch(reader.c, '/api/settings/site', { name: 'Mine now' }), 403)
  await expectProblem(await patch(writer.c, '/api/settings/site', { workingDays: [1] }), 403)
  const invalid = await expectProblem(
    await patch(admin.c, '/api/settings/site', { name: '', slug: '-bad slug-', locale: 'english', timeZone: '', workingDays: [] }),
    400,
    'KR_VALIDATION',
  )
  expect(Object.keys(invalid.errors ?? {}).sort()).toEqual(['locale', 'name', 'slug', 'timeZone', 'workingDays'])
  await expectProblem(await patch(admin.c, '/api/settings/site', { workingDays: [0, 8] }), 400)
  await expectProblem(await patch(admin.c, '/api/settings/site', { unknown: true }), 400)
  // A time zone the IANA list does not know comes back on the form's own field.
  const zone = await expectProblem(await patch(admin.c, '/api/settings/site', { timeZone: 'Mars/Olympus' }), 400)
  expect(zone.errors?.timeZone).toBeDefined()

  const other = await createTenant(t.db)
  const taken = await expectProblem(await patch(admin.c, '/api/settings/site', { slug: other.slug }), 409, 'KR_SLUG_TAKEN')
  expect(taken.errors?.slug).toEqual(['Another organisation already uses this short name. Choose another.'])
  const [row] = await t.db.select({ slug: tenants.slug }).from(tenants).where(eq(tenants.id, admin.tenant.id))
  expect(row?.slug).toBe(admin.tenant.slug)
})

test('logo: an administrator uploads a small image, members see it, it is replaced and removed; other files are refused', async () => {
  const { tenant, admin, reader } = await organisation(t)
  const stranger = await organisation(t)
  await expectProblem(await sendLogo(reader.c, PNG), 403)
  await expectProblem(await sendLogo(admin.c, new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'logo.svg', 'image/svg+xml'), 415, 'KR_UPLOAD_TYPE')
  await expectProblem(await sendLogo(admin.c, new Uint8Array(600 * 1024).fill(1)), 413)
  await expectProblem(await admin.c.request('/api/settings/site/logo', { method: 'POST', body: new FormData() }), 400)
  await expectProblem(await reader.c.get('/api/settings/site/logo'), 404)

  const site = await body<SiteSettings>(await sendLogo(admin.c, PNG), 201)
  expect(site.logo).toEqual({ url: expect.stringMatching(/^\/api\/settings\/site\/logo\?v=[0-9a-f]{16}$/), contentType: 'image/png' })
  const served = await reader.c.get(site.logo?.url ?? '')
  expect(served.status).toBe(200)
  expect(served.headers.get('content-type')).toBe('image/png')
  expect(served.headers.get('x-content-type-options')).toBe('nosniff')
  expect(new Uint8Array(await served.arrayBuffer())).toEqual(PNG)
  // Another organisation's members see their own (none).
  await expectProblem(await stranger.reader.c.get('/api/settings/site/logo'), 404)

  // Replacing it: a new URL, and the old file is gone.
  const store = blobStoreFor(t.config)
  const [first] = await t.db.select({ key: tenants.logoBlobKey }).from(tenants).where(eq(tenants.id, tenant.id))
  const replaced = await body<SiteSettings>(await sendLogo(admin.c, Uint8Array.from([...PNG, 0])), 201)
  expect(replaced.logo?.url).not.toBe(site.logo?.url)
  expect(await store.stat(first?.key ?? '')).toBeUndefined()

  const [row] = await t.db.select({ key: tenants.logoBlobKey }).from(tenants).where(eq(tenants.id, tenant.id))
  expect(row?.key && (await store.stat(row.key))).toBeTruthy()
  await expectProblem(await reader.c.request('/api/settings/site/logo', { method: 'DELETE' }), 403)
  expect((await admin.c.request('/api/settings/site/logo', { method: 'DELETE' })).status).toBe(204)
  expect(await store.stat(row?.key ?? '')).toBeUndefined()
  expect((await body<SiteSettings>(await reader.c.get('/api/settings/site'))).logo).toBeNull()
  expect((await admin.c.request('/api/settings/site/logo', { method: 'DELETE' })).status).toBe(204)
  expect((await auditOf(t.db, { action: 'settings.site.changed', tenantId: tenant.id })).map((a) => a.data)).toEqual([
    { logo: { contentType: 'image/png', sizeBytes: PNG.length } },
    { logo: { contentType: 'image/png', sizeBytes: PNG.length + 1 } },
    { logo: null },
  ])
})

test('admin settings: administrators only; each switch call changes only its part; unknown switches are refused', async () => {
  const { tenant, admin, writer } = await organisation(t)
  await expectProblem(await writer.c.get('/api/settings/admin'), 403)
  await expectProblem(await patch(writer.c, '/api/settings/licensing', { enforceSeatLimit: false }), 403)
  await expectProblem(await patch(writer.c, '/api/settings/diagnostics', { collectUsageTelemetry: true }), 403)
  await expectProblem(await patch(writer.c, '/api/settings/admin', {}), 403)

  const licensing = await body<AdminSettings>(await patch(admin.c, '/api/settings/licensing', { enforceSeatLimit: false }))
  expect(licensing.licensing).toEqual({ enforceSeatLimit: false, warnNearSeatLimit: true })
  const diagnostics = await body<AdminSettings>(await patch(admin.c, '/api/settings/diagnostics', { collectUsageTelemetry: true, identifyUsersInReports: false }))
  expect(diagnostics).toEqual({
    licensing: { enforceSeatLimit: false, warnNearSeatLimit: true },
    diagnostics: { collectFrontendErrors: true, collectUsageTelemetry: true, identifyUsersInReports: false },
    // One revision counts the changes of the three calls (issue 36 §4).
    revision: 2,
  })
  const both = await body<AdminSettings>(await patch(admin.c, '/api/settings/admin', { licensing: { warnNearSeatLimit: false }, diagnostics: { collectFrontendErrors: false } }))
  expect(both).toEqual({
    licensing: { enforceSeatLimit: false, warnNearSeatLimit: false },
    diagnostics: { collectFrontendErrors: false, collectUsageTelemetry: true, identifyUsersInReports: false },
    revision: 3,
  })
  expect(await body<AdminSettings>(await admin.c.get('/api/settings/admin'))).toEqual(both)

  await expectProblem(await patch(admin.c, '/api/settings/licensing', { seats: 10 }), 400)
  await expectProblem(await patch(admin.c, '/api/settings/diagnostics', { collectFrontendErrors: 'yes' }), 400)
  await expectProblem(await patch(admin.c, '/api/settings/admin', { billing: {} }), 400)

  const audit = await auditOf(t.db, { action: 'settings.admin.changed', tenantId: tenant.id })
  expect(audit.map((a) => a.data)).toEqual([
    { 'licensing.enforceSeatLimit': { from: true, to: false } },
    { 'diagnostics.collectUsageTelemetry': { from: false, to: true }, 'diagnostics.identifyUsersInReports': { from: true, to: false } },
    { 'licensing.warnNearSeatLimit': { from: true, to: false }, 'diagnostics.collectFrontendErrors': { from: true, to: false } },
  ])
  // Saving what is already there changes nothing.
  await body(await patch(admin.c, '/api/settings/licensing', { enforceSeatLimit: false }))
  expect(await auditOf(t.db, { action: 'settings.admin.changed', tenantId: tenant.id })).toHaveLength(3)
})

test('working days: review due dates count the organisation’s working days, as the site settings set them', async () => {
  const { tenant, admin } = await organisation(t)
  const friday = new Date('2026-11-20T10:00:00Z')
  const due = () => withTenant(t.db, tenant.id, (tx) => dueAfterWorkingDays({ tx, actor: { tenantId: tenant.id, userId: admin.user.id, roleKey: 'admin' }, now: friday }, 1))
  expect((await due()).toISOString()).toBe('2026-11-23T10:00:00.000Z')
  await body(await patch(admin.c, '/api/settings/site', { workingDays: [1, 2, 3, 4, 5, 6] }))
  expect((await due()).toISOString()).toBe('2026-11-21T10:00:00.000Z')
})

test('working days: adding them skips the days off', () => {
  // 2026-11-20 is a Friday.
  const friday = new Date('2026-11-20T10:00:00Z')
  expect(addWorkingDays(friday, 1).toISOString()).toBe('2026-11-23T10:00:00.000Z')
  // A six-day week: Saturday counts.
  expect(addWorkingDays(friday, 1, [1, 2, 3, 4, 5, 6]).toISOString()).toBe('2026-11-21T10:00:00.000Z')
  // Sunday to Thursday.
  expect(addWorkingDays(friday, 2, [7, 1, 2, 3, 4]).toISOString()).toBe('2026-11-23T10:00:00.000Z')
  // Nothing usable falls back to Monday to Friday.
  expect(addWorkingDays(friday, 1, []).toISOString()).toBe('2026-11-23T10:00:00.000Z')
})
