import { afterAll, beforeAll, expect, test } from 'vitest'
import { DEFAULT_APPEARANCE, DEFAULT_PALETTE } from '~/lib/appearance'
import type { AppearanceSettings } from '~/lib/settings/appearance'
import { DEFAULT_NOTIFICATION_PREFERENCES, type NotificationPreferences } from '~/lib/settings/notifications'
import { addMembership, auditOf, client, expectProblem, signedInClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, organisation, patch, put } from '#tests/helpers/reporting-a'

/** docs/settings-appearance-notifications.md: GET/PUT /api/user/notification-preferences/ and GET/PATCH /api/settings/appearance. */

const PREFS = '/api/user/notification-preferences/'
const APPEARANCE = '/api/settings/appearance'
let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-03-02T08:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

test('notification preferences: the defaults until saved, then what was saved; audited; another member and organisation untouched', async () => {
  const { admin, writer, reader, tenant } = await organisation(t)
  expect(await body<NotificationPreferences>(await writer.c.get(PREFS))).toEqual(DEFAULT_NOTIFICATION_PREFERENCES)
  // Without the trailing slash it is the same call.
  expect(await body<NotificationPreferences>(await writer.c.get(PREFS.slice(0, -1)))).toEqual(DEFAULT_NOTIFICATION_PREFERENCES)

  const chosen: NotificationPreferences = {
    assigned: false,
    response: true,
    closeRequested: false,
    reviewTask: true,
    transmittal: false,
    digest: 'daily',
    inApp: { assigned: true, closeRequested: false, reviewTask: true, transmittal: true, superseded: false },
  }
  expect(await body<NotificationPreferences>(await put(writer.c, PREFS, chosen))).toEqual(chosen)
  expect(await body<NotificationPreferences>(await writer.c.get(PREFS))).toEqual(chosen)
  // Others in the same organisation keep theirs.
  expect(await body<NotificationPreferences>(await reader.c.get(PREFS))).toEqual(DEFAULT_NOTIFICATION_PREFERENCES)
  expect(await body<NotificationPreferences>(await admin.c.get(PREFS))).toEqual(DEFAULT_NOTIFICATION_PREFERENCES)

  const audit = await auditOf(t.db, { action: 'settings.notifications.changed', tenantId: tenant.id })
  expect(audit).toHaveLength(1)
  expect(audit[0]).toMatchObject({ actorUserId: writer.user.id, data: { from: DEFAULT_NOTIFICATION_PREFERENCES, to: chosen } })

  const again = { ...chosen, digest: 'off' as const, assigned: true }
  expect(await body<NotificationPreferences>(await put(writer.c, PREFS, again))).toEqual(again)
  expect(await auditOf(t.db, { action: 'settings.notifications.changed', tenantId: tenant.id })).toHaveLength(2)
})

test('preferences are per organisation: the same person in another organisation has their own', async () => {
  const first = await organisation(t)
  const second = await organisation(t)
  await addMembership(t.db, second.tenant.id, first.writer.user.id, { roleKey: 'read-write', isDefault: false })
  await body(await put(first.writer.c, PREFS, { ...DEFAULT_NOTIFICATION_PREFERENCES, response: false, digest: 'daily' }))
  const elsewhere = await signedInClient(t, { user: first.writer.user, tenant: second.tenant })
  expect(await body<NotificationPreferences>(await elsewhere.get(PREFS))).toEqual(DEFAULT_NOTIFICATION_PREFERENCES)
  expect(await body<NotificationPreferences>(await first.writer.c.get(PREFS))).toMatchObject({ response: false, digest: 'daily' })
  expect(await auditOf(t.db, { action: 'settings.notifications.changed', tenantId: second.tenant.id })).toEqual([])
})

test('a PUT without inApp (a client from before in-app notifications) keeps the in-app choices', async () => {
  const { writer } = await organisation(t)
  const inApp = { assigned: false, closeRequested: true, reviewTask: false, transmittal: true, superseded: false }
  await body(await put(writer.c, PREFS, { ...DEFAULT_NOTIFICATION_PREFERENCES, inApp }))
  const { inApp: _left, ...mailOnly } = { ...DEFAULT_NOTIFICATION_PREFERENCES, assigned: false }
  expect(await body<NotificationPreferences>(await put(writer.c, PREFS, mailOnly))).toEqual({ ...mailOnly, inApp })
  expect(await body<NotificationPreferences>(await writer.c.get(PREFS))).toEqual({ ...mailOnly, inApp })
})

test('bad preferences are refused with field errors and nothing is saved; signed out is 401', async () => {
  const { writer } = await organisation(t)
  const cases: Array<[unknown, string]> = [
    [{ ...DEFAULT_NOTIFICATION_PREFERENCES, digest: 'weekly' }, 'digest'],
    [{ ...DEFAULT_NOTIFICATION_PREFERENCES, assigned: 'yes' }, 'assigned'],
    [{ ...DEFAULT_NOTIFICATION_PREFERENCES, response: null }, 'response'],
    [{ assigned: true, response: true, closeRequested: true, reviewTask: true, digest: 'off' }, 'transmittal'],
    [{ ...DEFAULT_NOTIFICATION_PREFERENCES, sms: true }, ''],
    [{ ...DEFAULT_NOTIFICATION_PREFERENCES, inApp: { ...DEFAULT_NOTIFICATION_PREFERENCES.inApp, superseded: 'yes' } }, 'inApp.superseded'],
    [{ ...DEFAULT_NOTIFICATION_PREFERENCES, inApp: { ...DEFAULT_NOTIFICATION_PREFERENCES.inApp, sms: true } }, ''],
    [[], ''],
  ]
  for (const [json, field] of cases) {
    const problem = await expectProblem(await put(writer.c, PREFS, json), 400)
    if (field) expect(Object.keys(problem.errors ?? {}), JSON.stringify(json)).toContain(field)
  }
  expect(await body<NotificationPreferences>(await writer.c.get(PREFS))).toEqual(DEFAULT_NOTIFICATION_PREFERENCES)
  const anonymous = client(t)
  await expectProblem(await anonymous.get(PREFS), 401)
  await expectProblem(await anonymous.get(APPEARANCE), 401)
})

test('appearance: defaults until saved; PATCH changes only what it sends; audited; the contrast check warns without refusing', async () => {
  const { writer, reader, tenant } = await organisation(t)
  expect(await body<AppearanceSettings>(await writer.c.get(APPEARANCE))).toEqual({
    appearance: DEFAULT_APPEARANCE,
    saved: false,
    contrast: expect.arrayContaining([expect.objectContaining({ key: 'text-background', ok: true })]),
    updatedAtUtc: null,
  })

  const dark = await body<AppearanceSettings>(await patch(writer.c, APPEARANCE, { theme: 'dark', highContrast: true }))
  expect(dark).toMatchObject({ appearance: { ...DEFAULT_APPEARANCE, theme: 'dark', highContrast: true }, saved: true, updatedAtUtc: t.now().toISOString() })

  const pale = await body<AppearanceSettings>(await patch(writer.c, APPEARANCE, { theme: 'custom', customPalette: { text: '#c0c0c0', baseMode: 'light' } }))
  expect(pale.appearance).toEqual({ theme: 'custom', highContrast: true, useSystemTheme: false, customPalette: { ...DEFAULT_PALETTE, text: '#C0C0C0' } })
  expect(pale.contrast.filter((check) => !check.ok).map((check) => check.key)).toEqual(['text-background', 'text-surface'])
  expect(await body<AppearanceSettings>(await writer.c.get(APPEARANCE))).toEqual(pale)

  // Someone else's stays the defaults.
  expect(await body<AppearanceSettings>(await reader.c.get(APPEARANCE))).toMatchObject({ saved: false, appearance: DEFAULT_APPEARANCE })
  const audit = await auditOf(t.db, { action: 'settings.appearance.changed', tenantId: tenant.id })
  expect(audit.map((event) => event.actorUserId)).toEqual([writer.user.id, writer.user.id])
  expect(audit[0]?.data).toMatchObject({ from: null, to: { theme: 'dark', highContrast: true } })
  expect(audit[1]?.data).toMatchObject({ from: { theme: 'dark' }, to: { theme: 'custom', customPalette: { text: '#C0C0C0' } } })
})

test('a bad appearance is refused with field errors and nothing changes', async () => {
  const { writer } = await organisation(t)
  const cases: Array<[unknown, string]> = [
    [{ theme: 'neon' }, 'theme'],
    [{ highContrast: 'on' }, 'highContrast'],
    [{ useSystemTheme: 1 }, 'useSystemTheme'],
    [{ customPalette: { primary: 'blue' } }, 'customPalette.primary'],
    [{ customPalette: { text: '#12345' } }, 'customPalette.text'],
    [{ customPalette: { background: '#12345g' } }, 'customPalette.background'],
    [{ customPalette: { surface: '#ffffff;color:red' } }, 'customPalette.surface'],
    [{ customPalette: { baseMode: 'dim' } }, 'customPalette.baseMode'],
    [{ customPalette: { accent: '#ffffff' } }, ''],
    [{ font: 'serif' }, ''],
  ]
  for (const [json, field] of cases) {
    const problem = await expectProblem(await patch(writer.c, APPEARANCE, json), 400)
    if (field) expect(Object.keys(problem.errors ?? {}), JSON.stringify(json)).toContain(field)
  }
  expect(await body<AppearanceSettings>(await writer.c.get(APPEARANCE))).toMatchObject({ saved: false })
  expect(await auditOf(t.db, { action: 'settings.appearance.changed', actorUserId: writer.user.id })).toEqual([])
})

test('the appearance follows the person across organisations (it is theirs, not the organisation’s)', async () => {
  const first = await organisation(t)
  const second = await organisation(t)
  await addMembership(t.db, second.tenant.id, first.reader.user.id, { roleKey: 'read-only', isDefault: false })
  await body(await patch(first.reader.c, APPEARANCE, { theme: 'light' }))
  const elsewhere = await signedInClient(t, { user: first.reader.user, tenant: second.tenant })
  expect(await body<AppearanceSettings>(await elsewhere.get(APPEARANCE))).toMatchObject({ saved: true, appearance: { theme: 'light' } })
})
