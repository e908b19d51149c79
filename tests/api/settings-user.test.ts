import { and, eq, isNull } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { mfaSecrets, sessions, users } from '#server/db/schema'
import {
  auditOf,
  createMember,
  createTenant,
  enrollMfa,
  expectProblem,
  mailsTo,
  signedInClient,
  signIn,
  client,
  tokenFromMail,
  totpAt,
  uniqueEmail,
  wrongTotp,
  TEST_PASSWORD,
} from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, changeLogOf, organisation, patch, signedMember } from '#tests/helpers/reporting-a'
import type { AccountSessions, MfaEnrollment, SettingsOverview, UserSettings } from '~/lib/settings/settings'

/** Settings › User through HTTP (issue 14, docs/settings.md): details, e-mail change, two-factor, sessions. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-18T09:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

function del(c: { request: (path: string, options?: { method?: string; json?: unknown }) => Promise<Response> }, path: string, json?: unknown) {
  return c.request(path, { method: 'DELETE', ...(json !== undefined && { json }) })
}

test('GET /api/settings answers every tab; admin only for administrators; signed out is 401', async () => {
  const { admin, reader } = await organisation(t)
  const mine = await body<SettingsOverview>(await admin.c.get('/api/settings'))
  expect(mine.user).toMatchObject({
    userId: admin.user.id,
    email: admin.user.email,
    displayName: admin.user.displayName,
    pendingEmail: null,
    mfa: { enabled: false, pending: false, enforced: false },
  })
  expect(mine.site).toMatchObject({ name: admin.tenant.name, slug: admin.tenant.slug, workingDays: [1, 2, 3, 4, 5], canEdit: true, logo: null })
  expect(mine.admin).toEqual({
    licensing: { enforceSeatLimit: true, warnNearSeatLimit: true },
    diagnostics: { collectFrontendErrors: true, collectUsageTelemetry: false, identifyUsersInReports: true },
    revision: 0,
  })
  expect(mine.appearance).toBeNull()
  const theirs = await body<SettingsOverview>(await reader.c.get('/api/settings'))
  expect(theirs.admin).toBeNull()
  expect(theirs.site.canEdit).toBe(false)
  await expectProblem(await client(t).get('/api/settings'), 401)
})

test('PATCH /api/settings/user changes only the fields sent, clears with null, audits and announces the change', async () => {
  const member = await signedMember(t, 'read-only')
  const changed = await body<UserSettings>(await patch(member.c, '/api/settings/user', { firstName: 'Alex', lastName: 'Morgan', position: 'Site manager' }))
  expect(changed).toMatchObject({ displayName: member.user.displayName, firstName: 'Alex', lastName: 'Morgan', position: 'Site manager' })
  const renamed = await body<UserSettings>(await patch(member.c, '/api/settings/user', { displayName: '  Alex M.  ', position: null }))
  expect(renamed).toMatchObject({ displayName: 'Alex M.', firstName: 'Alex', position: null })
  expect((await body<UserSettings>(await member.c.get('/api/settings/user'))).displayName).toBe('Alex M.')
  const audit = await auditOf(t.db, { action: 'settings.user.changed', actorUserId: member.user.id })
  expect(audit).toHaveLength(2)
  expect(audit[1]?.data).toEqual({ displayName: { from: member.user.displayName, to: 'Alex M.' }, position: { from: 'Site manager', to: null } })
  expect((await changeLogOf(t, member.tenant.id)).filter((c) => c.entity === 'User' && c.entityId === member.user.id)).toHaveLength(2)

  // Nothing changed: no audit entry.
  await body(await patch(member.c, '/api/settings/user', { firstName: 'Alex' }))
  expect(await auditOf(t.db, { action: 'settings.user.changed', actorUserId: member.user.id })).toHaveLength(2)

  const invalid = await expectProblem(await patch(member.c, '/api/settings/user', { displayName: '', position: 'x'.repeat(121), role: 'admin' }), 400, 'KR_VALIDATION')
  expect(Object.keys(invalid.errors ?? {})).toEqual(expect.arrayContaining(['displayName', 'position']))
  await expectProblem(await patch(client(t), '/api/settings/user', { firstName: 'X' }), 401)
})

test('an e-mail change mails a link to the new address; following it (signed out) switches and verifies the address', async () => {
  const member = await signedMember(t, 'read-write')
  const newEmail = uniqueEmail('moved')
  await expectProblem(await member.c.post('/api/settings/user/email', { newEmail, currentPassword: 'wrong password' }), 400, 'KR_VALIDATION')
  expect(await mailsTo(t.db, newEmail)).toHaveLength(0)

  const answer = await body<{ newEmail: string; expiresAtUtc: string }>(await member.c.post('/api/settings/user/email', { newEmail, currentPassword: TEST_PASSWORD }), 202)
  expect(answer).toEqual({ newEmail, expiresAtUtc: '2026-11-19T09:00:00.000Z' })
  const [mail] = await mailsTo(t.db, newEmail)
  expect(mail?.template).toBe('email-change')
  const token = tokenFromMail(mail?.textBody ?? '', '/auth/confirm-email')
  expect((await body<UserSettings>(await member.c.get('/api/settings/user'))).pendingEmail).toEqual({ newEmail, expiresAtUtc: '2026-11-19T09:00:00.000Z' })
  expect(await auditOf(t.db, { action: 'auth.email.change.requested', actorUserId: member.user.id })).toEqual([
    expect.objectContaining({ tenantId: member.tenant.id, data: { from: member.user.email, to: newEmail } }),
  ])

  // Followed in a browser that is not signed in.
  expect(await body<{ email: string }>(await client(t).post('/api/settings/user/email/confirm', { token }))).toEqual({ email: newEmail })
  const [row] = await t.db.select({ email: users.email, verified: users.emailVerifiedAt }).from(users).where(eq(users.id, member.user.id))
  expect(row).toEqual({ email: newEmail, verified: t.now() })
  expect(await auditOf(t.db, { action: 'auth.email.changed', actorUserId: member.user.id })).toEqual([expect.objectContaining({ data: { from: member.user.email, to: newEmail } })])
  expect((await body<UserSettings>(await member.c.get('/api/settings/user'))).pendingEmail).toBeNull()
  // The old address is told, with the new one.
  const [notice] = await mailsTo(t.db, member.user.email)
  expect(notice?.template).toBe('email-changed')
  expect(notice?.textBody).toContain(`was changed to ${newEmail}`)
  // The new address signs in.
  await signIn(client(t), { email: newEmail, password: TEST_PASSWORD })

  // The link works once.
  await expectProblem(await client(t).post('/api/settings/user/email/confirm', { token }), 400, 'KR_TOKEN_USED')
  await expectProblem(await client(t).post('/api/settings/user/email/confirm', { token: 'x'.repeat(43) }), 400, 'KR_TOKEN_INVALID')
})

test('an e-mail change link followed while signed in is audited in the organisation; it expires after 24 hours; a newer one replaces it', async () => {
  const member = await signedMember(t, 'read-write')
  const first = uniqueEmail('first')
  await body(await member.c.post('/api/settings/user/email', { newEmail: first, currentPassword: TEST_PASSWORD }), 202)
  const firstToken = tokenFromMail((await mailsTo(t.db, first))[0]?.textBody ?? '', '/auth/confirm-email')
  const second = uniqueEmail('second')
  await body(await member.c.post('/api/settings/user/email', { newEmail: second, currentPassword: TEST_PASSWORD }), 202)
  const secondToken = tokenFromMail((await mailsTo(t.db, second))[0]?.textBody ?? '', '/auth/confirm-email')
  await expectProblem(await member.c.post('/api/settings/user/email/confirm', { token: firstToken }), 400, 'KR_TOKEN_USED')

  t.now.advance(24 * 60 * 60_000 + 1)
  try {
    // (The session has idled out by then: the link works signed out too.)
    await expectProblem(await client(t).post('/api/settings/user/email/confirm', { token: secondToken }), 400, 'KR_TOKEN_EXPIRED')
  } finally {
    t.now.reset()
  }
  const third = uniqueEmail('third')
  await body(await member.c.post('/api/settings/user/email', { newEmail: third, currentPassword: TEST_PASSWORD }), 202)
  const thirdToken = tokenFromMail((await mailsTo(t.db, third))[0]?.textBody ?? '', '/auth/confirm-email')
  expect(await body(await member.c.post('/api/settings/user/email/confirm', { token: thirdToken }))).toEqual({ email: third })
  expect(await auditOf(t.db, { action: 'auth.email.changed', tenantId: member.tenant.id })).toEqual([expect.objectContaining({ actorUserId: member.user.id })])
  expect((await changeLogOf(t, member.tenant.id)).some((c) => c.entity === 'User' && c.entityId === member.user.id)).toBe(true)
})

test('an address another account uses is a field error that does not say whose; so is your own address', async () => {
  const member = await signedMember(t, 'read-write')
  const other = await createMember(t.db)
  const taken = await expectProblem(
    await member.c.post('/api/settings/user/email', { newEmail: other.user.email.toUpperCase(), currentPassword: TEST_PASSWORD }),
    409,
    'KR_EMAIL_TAKEN',
  )
  expect(taken.errors?.newEmail).toEqual(['This e-mail address is already in use. Choose another.'])
  expect(JSON.stringify(taken)).not.toContain(other.user.displayName)
  const own = await expectProblem(await member.c.post('/api/settings/user/email', { newEmail: member.user.email, currentPassword: TEST_PASSWORD }), 400)
  expect(own.errors?.newEmail).toBeDefined()
  const invalid = await expectProblem(await member.c.post('/api/settings/user/email', { newEmail: 'not an address', currentPassword: '' }), 400)
  expect(Object.keys(invalid.errors ?? {}).sort()).toEqual(['currentPassword', 'newEmail'])

  // Taken between the request and the confirmation: refused then, nothing changes.
  const later = uniqueEmail('later')
  await body(await member.c.post('/api/settings/user/email', { newEmail: later, currentPassword: TEST_PASSWORD }), 202)
  const token = tokenFromMail((await mailsTo(t.db, later))[0]?.textBody ?? '', '/auth/confirm-email')
  await createMember(t.db, { email: later })
  await expectProblem(await member.c.post('/api/settings/user/email/confirm', { token }), 409, 'KR_EMAIL_TAKEN')
  const [row] = await t.db.select({ email: users.email }).from(users).where(eq(users.id, member.user.id))
  expect(row?.email).toBe(member.user.email)
})

test('two-factor: enrol (the same secret until confirmed), confirm with a real code, remove with the current code', async () => {
  const member = await signedMember(t, 'read-write')
  const enrollment = await body<MfaEnrollment>(await member.c.post('/api/settings/user/mfa/enrollment'))
  expect(enrollment.otpauthUri).toContain(`secret=${enrollment.secret}`)
  expect(enrollment.otpauthUri).toMatch(/^otpauth:\/\/totp\//)
  expect(await body<MfaEnrollment>(await member.c.post('/api/settings/user/mfa/enrollment'))).toEqual(enrollment)
  expect((await body<UserSettings>(await member.c.get('/api/settings/user'))).mfa).toEqual({ enabled: false, pending: true, enforced: false })

  const wrong = await expectProblem(await member.c.post('/api/settings/user/mfa/confirm', { code: await wrongTotp(enrollment.secret, t.now()) }), 400, 'KR_MFA_INVALID')
  expect(wrong.errors?.code).toBeDefined()
  await expectProblem(await member.c.post('/api/settings/user/mfa/confirm', { code: '12' }), 400, 'KR_VALIDATION')
  const code = await totpAt(enrollment.secret, t.now())
  expect((await member.c.post('/api/settings/user/mfa/confirm', { code })).status).toBe(204)
  expect((await body<UserSettings>(await member.c.get('/api/settings/user'))).mfa).toEqual({ enabled: true, pending: false, enforced: false })
  expect(await auditOf(t.db, { action: 'auth.mfa.enrolled', actorUserId: member.user.id })).toHaveLength(1)
  await expectProblem(await member.c.post('/api/settings/user/mfa/enrollment'), 409, 'KR_MFA_ALREADY_ENROLLED')

  // Signing in now asks for the second step.
  const fresh = client(t)
  expect((await signIn(fresh, { email: member.user.email, password: TEST_PASSWORD })).requiresMfa).toBe(true)

  // The code just used does not work again; the next one does.
  await expectProblem(await del(member.c, '/api/settings/user/mfa', { code }), 400, 'KR_MFA_INVALID')
  t.now.advance(30_000)
  try {
    expect((await del(member.c, '/api/settings/user/mfa', { code: await totpAt(enrollment.secret, t.now()) })).status).toBe(204)
  } finally {
    t.now.reset()
  }
  expect(await t.db.select().from(mfaSecrets).where(eq(mfaSecrets.userId, member.user.id))).toEqual([])
  expect(await auditOf(t.db, { action: 'auth.mfa.removed', actorUserId: member.user.id })).toHaveLength(1)
  await expectProblem(await del(member.c, '/api/settings/user/mfa', { code: '123456' }), 409, 'KR_MFA_NOT_ENROLLED')
})

test('two-factor that is required (of the person or by the organisation) cannot be removed; a cancelled set-up leaves nothing', async () => {
  const enforcedTenant = await createTenant(t.db, { mfaEnforced: true })
  const member = await createMember(t.db, { tenant: enforcedTenant })
  const secret = await enrollMfa(t.db, member.user.id)
  const c = await signedInClient(t, member)
  expect((await body<UserSettings>(await c.get('/api/settings/user'))).mfa).toEqual({ enabled: true, pending: false, enforced: true })
  await expectProblem(await del(c, '/api/settings/user/mfa', { code: await totpAt(secret, t.now()) }), 409, 'KR_MFA_ENFORCED')
  expect(await t.db.select({ userId: mfaSecrets.userId }).from(mfaSecrets).where(eq(mfaSecrets.userId, member.user.id))).toHaveLength(1)

  const other = await signedMember(t, 'read-write')
  await body(await other.c.post('/api/settings/user/mfa/enrollment'))
  expect((await del(other.c, '/api/settings/user/mfa/enrollment')).status).toBe(204)
  expect(await t.db.select().from(mfaSecrets).where(eq(mfaSecrets.userId, other.user.id))).toEqual([])
  await expectProblem(await other.c.post('/api/settings/user/mfa/confirm', { code: '123456' }), 409, 'KR_MFA_NOT_ENROLLED')
})

test('sessions: listed with the current one first; signing out the others really ends them; one can be signed out by id', async () => {
  const member = await createMember(t.db)
  const laptop = await signedInClient(t, member)
  const phone = await signedInClient(t, member)
  const tablet = await signedInClient(t, member)
  await t.db
    .update(sessions)
    .set({ userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36' })
    .where(eq(sessions.id, laptop.session.id))
  const listed = await body<AccountSessions>(await laptop.get('/api/settings/sessions'))
  expect(listed.items.map((s) => s.id)).toEqual([laptop.session.id, ...[phone.session.id, tablet.session.id].filter((id) => listed.items.some((s) => s.id === id))])
  expect(listed.items).toHaveLength(3)
  expect(listed.items[0]).toMatchObject({ current: true, browser: 'Chrome', os: 'Windows', ip: '192.0.2.1', kind: 'user', device: null })

  // Another person's session, and an unknown id, are not found; a malformed id is a 400.
  const strangerMember = await createMember(t.db)
  const stranger = await signedInClient(t, strangerMember)
  await expectProblem(await del(laptop, `/api/settings/sessions/${stranger.session.id}`), 404)
  await expectProblem(await del(stranger, `/api/settings/sessions/${phone.session.id}`), 404)
  await expectProblem(await del(laptop, '/api/settings/sessions/not-an-id'), 400)
  expect((await stranger.get('/api/projects')).status).toBe(200)

  expect((await del(laptop, `/api/settings/sessions/${tablet.session.id}`)).status).toBe(204)
  await expectProblem(await tablet.get('/api/settings'), 401)
  await expectProblem(await del(laptop, `/api/settings/sessions/${tablet.session.id}`), 404)

  expect(await body<{ revoked: number }>(await laptop.post('/api/settings/sessions/revoke-others'))).toEqual({ revoked: 1 })
  await expectProblem(await phone.get('/api/settings'), 401)
  expect((await laptop.get('/api/settings')).status).toBe(200)
  const live = await t.db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.userId, member.user.id), isNull(sessions.revokedAt)))
  expect(live).toEqual([{ id: laptop.session.id }])
  expect((await auditOf(t.db, { action: 'auth.sessions.revoked', actorUserId: member.user.id })).map((a) => a.data)).toEqual([
    { scope: 'one', sessionId: tablet.session.id },
    { scope: 'others', count: 1 },
  ])
})
