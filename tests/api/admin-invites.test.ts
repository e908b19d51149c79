import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest'
import { memberships, sessions } from '#server/db/schema'
import { documentPermissions } from '#server/db/schema-documents'
import { withTenant } from '#server/db/tenancy'
import type { CreatedProjectInvite, Invite, InviteLanding, ProjectInvite, ProjectInviteLanding } from '~/lib/admin/invites'
import { auditOf, client, createMember, expectProblem, mailsTo, signedInClient, uniqueAddress, uniqueEmail, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, newProject, organisation } from '#tests/helpers/reporting-a'

/** docs/admin/invites.md: invites, the public landings, claim and register, project invites and codes. Through HTTP. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-20T09:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

afterEach(() => {
  t.now.reset()
})

const DAY = 24 * 60 * 60_000

/** The token of the newest invitation link mailed to the address. */
async function mailedToken(address: string, kind: 'invite' | 'project' = 'invite'): Promise<string> {
  const mails = await mailsTo(t.db, address)
  const last = mails[mails.length - 1]
  if (!last) throw new Error(`no mail to ${address}`)
  const match = (kind === 'invite' ? /\/invite\/([A-Za-z0-9_-]{20,})/ : /\/invite\/project\/([A-Za-z0-9_-]{20,})/).exec(last.textBody)
  if (!match?.[1]) throw new Error(`no invitation link in: ${last.textBody}`)
  return match[1]
}

async function invite(c: TestClient, email: string, roleKey = 'read-write', message?: string): Promise<Invite> {
  return body<Invite>(await c.post('/api/admin/invites', { email, roleKey, ...(message && { message }) }), 201)
}

async function membershipOf(tenantId: string, userId: string) {
  const [row] = await withTenant(t.db, tenantId, (tx) =>
    tx
      .select({ roleKey: memberships.roleKey, status: memberships.status, isDefault: memberships.isDefault })
      .from(memberships)
      .where(and(eq(memberships.tenantId, tenantId), eq(memberships.userId, userId))),
  )
  return row
}

test('an admin invites an address: 201, the mail carries the 7-day link, the list shows it pending; audited', async () => {
  const { admin, tenant } = await organisation(t)
  const email = uniqueEmail('invitee')
  const created = await invite(admin.c, email, 'read-only', 'Welcome to the site team')
  expect(created).toMatchObject({ email, roleKey: 'read-only', roleName: 'Read Only', message: 'Welcome to the site team', status: 'pending', sendCount: 1 })
  expect(created.invitedBy).toEqual({ id: admin.user.id, displayName: admin.user.displayName })
  expect(new Date(created.expiresAtUtc).getTime() - t.now().getTime()).toBe(7 * DAY)
  const mails = await mailsTo(t.db, email)
  expect(mails).toHaveLength(1)
  expect(mails[0]).toMatchObject({ template: 'invite', tenantId: tenant.id })
  expect(mails[0]?.textBody).toContain('Welcome to the site team')
  expect(mails[0]?.textBody).toContain(`${t.config.publicUrl}/invite/`)
  // The answer carries the mailed link (to copy when mail is queued); the list never does.
  expect(created.link).toBe(`${t.config.publicUrl}/invite/${await mailedToken(email)}`)

  const list = await body<{ items: Invite[]; nextCursor: string | null }>(await admin.c.get('/api/admin/invites?status=pending'))
  expect(list.items.map((i) => i.id)).toEqual([created.id])
  expect(list.items[0]?.link).toBeUndefined()
  expect((await body<{ items: Invite[] }>(await admin.c.get('/api/admin/invites?status=accepted'))).items).toEqual([])
  const audit = await auditOf(t.db, { action: 'admin.invite.created', tenantId: tenant.id })
  expect(audit).toEqual([expect.objectContaining({ actorUserId: admin.user.id, data: { email, roleKey: 'read-only' } })])
})

test('a second pending invite to the address is 409 KR_INVITE_PENDING; a member is 409 KR_ALREADY_MEMBER; bad input 400', async () => {
  const { admin, writer } = await organisation(t)
  const email = uniqueEmail('twice')
  await invite(admin.c, email)
  const again = await expectProblem(await admin.c.post('/api/admin/invites', { email: email.toUpperCase(), roleKey: 'read-write' }), 409, 'KR_INVITE_PENDING')
  expect(again.errors?.email).toBeDefined()
  await expectProblem(await admin.c.post('/api/admin/invites', { email: writer.user.email, roleKey: 'admin' }), 409, 'KR_ALREADY_MEMBER')
  const bad = await expectProblem(await admin.c.post('/api/admin/invites', { email: 'not-an-address', roleKey: 'owner' }), 400, 'KR_VALIDATION')
  expect(Object.keys(bad.errors ?? {}).sort()).toEqual(['email', 'roleKey'])
  await expectProblem(await admin.c.get('/api/admin/invites?status=lost'), 400, 'KR_VALIDATION')
  await expectProblem(await admin.c.get('/api/admin/invites?limit=500'), 400, 'KR_VALIDATION')
})

test('role matrix: read-write and read-only members get 403 on every admin invite call', async () => {
  const { admin, writer, reader } = await organisation(t)
  const created = await invite(admin.c, uniqueEmail())
  const project = await newProject(admin.c)
  for (const member of [writer, reader]) {
    await expectProblem(await member.c.post('/api/admin/invites', { email: uniqueEmail(), roleKey: 'read-only' }), 403, 'KR_FORBIDDEN')
    await expectProblem(await member.c.get('/api/admin/invites'), 403, 'KR_FORBIDDEN')
    await expectProblem(await member.c.post('/api/invites/resend', { inviteId: created.id }), 403, 'KR_FORBIDDEN')
    await expectProblem(await member.c.post('/api/invites/cancel', { inviteId: created.id }), 403, 'KR_FORBIDDEN')
    await expectProblem(await member.c.post(`/api/projects/${project.id}/invites/create`, { roleKey: 'read-only' }), 403, 'KR_FORBIDDEN')
    await expectProblem(await member.c.get(`/api/projects/${project.id}/invites`), 403, 'KR_FORBIDDEN')
  }
  const made = await body<CreatedProjectInvite>(await admin.c.post(`/api/projects/${project.id}/invites/create`, { roleKey: 'read-only' }), 201)
  for (const member of [writer, reader]) await expectProblem(await member.c.post(`/api/project-invites/${made.invite.id}/cancel`), 403, 'KR_FORBIDDEN')
  await expectProblem(await client(t).get('/api/admin/invites'), 401, 'KR_UNAUTHENTICATED')
})

test('cross-tenant: an admin of another organisation gets 404 for every id of this one', async () => {
  const { admin } = await organisation(t)
  const other = await organisation(t)
  const created = await invite(admin.c, uniqueEmail())
  const project = await newProject(admin.c)
  const made = await body<CreatedProjectInvite>(await admin.c.post(`/api/projects/${project.id}/invites/create`, { roleKey: 'read-only' }), 201)
  await expectProblem(await other.admin.c.post('/api/invites/resend', { inviteId: created.id }), 404)
  await expectProblem(await other.admin.c.post('/api/invites/cancel', { inviteId: created.id }), 404)
  await expectProblem(await other.admin.c.post(`/api/projects/${project.id}/invites/create`, { roleKey: 'read-only' }), 404)
  await expectProblem(await other.admin.c.get(`/api/projects/${project.id}/invites`), 404)
  await expectProblem(await other.admin.c.post(`/api/project-invites/${made.invite.id}/cancel`), 404)
  expect((await body<{ items: Invite[] }>(await other.admin.c.get('/api/admin/invites'))).items).toEqual([])
  await expectProblem(await admin.c.post('/api/invites/cancel', { inviteId: 'nope' }), 400)
  await expectProblem(await admin.c.post('/api/invites/cancel', { inviteId: randomUUID() }), 404)
  // Still pending and usable: the other admin changed nothing.
  expect((await body<{ items: Invite[] }>(await admin.c.get('/api/admin/invites'))).items[0]?.status).toBe('pending')
})

test('resend makes a new link (the old one is dead), raises sendCount and extends 7 days; cancel kills the link', async () => {
  const { admin, tenant } = await organisation(t)
  const email = uniqueEmail('resend')
  const created = await invite(admin.c, email)
  const first = await mailedToken(email)
  t.now.advance(2 * DAY)
  // Two days on, the admin signs in again (sessions end after 30 idle minutes).
  admin.c = await signedInClient(t, admin)
  const resent = await body<Invite>(await admin.c.post('/api/invites/resend', { inviteId: created.id }))
  expect(resent).toMatchObject({ status: 'pending', sendCount: 2 })
  expect(new Date(resent.expiresAtUtc).getTime() - t.now().getTime()).toBe(7 * DAY)
  const second = await mailedToken(email)
  expect(second).not.toBe(first)
  expect(resent.link).toBe(`${t.config.publicUrl}/invite/${second}`)
  await expectProblem(await client(t).get(`/invite/${first}`), 404, 'KR_INVITE_NOT_FOUND')
  expect((await body<InviteLanding>(await client(t).get(`/invite/${second}`))).status).toBe('pending')

  const cancelled = await body<Invite>(await admin.c.post('/api/invites/cancel', { inviteId: created.id }))
  expect(cancelled.status).toBe('cancelled')
  expect(await body<Invite>(await admin.c.post('/api/invites/cancel', { inviteId: created.id }))).toMatchObject({ status: 'cancelled' })
  const landing = await body<InviteLanding>(await client(t).get(`/invite/${second}`))
  expect(landing).toMatchObject({ status: 'cancelled', statusDetail: expect.stringContaining('cancelled') })
  await expectProblem(await admin.c.post('/api/invites/resend', { inviteId: created.id }), 409, 'KR_INVITE_CANCELLED')
  expect((await auditOf(t.db, { tenantId: tenant.id })).map((a) => a.action)).toEqual(['admin.invite.created', 'admin.invite.resent', 'admin.invite.cancelled'])
  // A cancelled invite no longer blocks a new one to the address.
  await invite(admin.c, email)
})

test('the landing: organisation, role, inviter, message; the same at /api/invite/{token}; unknown is 404; expired says so', async () => {
  const { admin, tenant } = await organisation(t)
  const email = uniqueEmail('landing')
  await invite(admin.c, email, 'admin', 'Hello')
  const token = await mailedToken(email)
  const landing = await body<InviteLanding>(await client(t).get(`/invite/${token}`))
  expect(landing).toMatchObject({
    organisationName: tenant.name,
    email,
    roleKey: 'admin',
    roleName: 'Administrator',
    message: 'Hello',
    inviterName: admin.user.displayName,
    status: 'pending',
  })
  expect(await body<InviteLanding>(await client(t).get(`/api/invite/${token}`))).toEqual(landing)
  await expectProblem(await client(t).get(`/invite/${'x'.repeat(43)}`), 404, 'KR_INVITE_NOT_FOUND')
  t.now.advance(7 * DAY + 1)
  expect(await body<InviteLanding>(await client(t).get(`/invite/${token}`))).toMatchObject({ status: 'expired', statusDetail: expect.stringContaining('expired') })
  const newcomer = await createMember(t.db, { email })
  const c = await signedInClient(t, newcomer)
  await expectProblem(await c.post('/api/invites/claim', { token }), 410, 'KR_INVITE_EXPIRED')
  admin.c = await signedInClient(t, admin)
  expect((await body<{ items: Invite[] }>(await admin.c.get('/api/admin/invites?status=expired'))).items.map((i) => i.email)).toEqual([email])
})

test('claim: the signed-in invitee joins with the role, the session moves into the organisation; used after; others are refused', async () => {
  const { admin, tenant } = await organisation(t)
  const email = uniqueEmail('claim')
  const created = await invite(admin.c, email, 'read-only')
  const token = await mailedToken(email)
  const invitee = await createMember(t.db, { email: email.toUpperCase() })
  const c = await signedInClient(t, invitee)

  const stranger = await createMember(t.db)
  const wrong = await expectProblem(await (await signedInClient(t, stranger)).post('/api/invites/claim', { token }), 403, 'KR_INVITE_WRONG_ACCOUNT')
  expect(wrong.detail).toContain(email)

  const claimed = await body<{ claimed: { organisationId: string; roleKey: string; joined: boolean }; session: { tenantId: string; tenantName: string } }>(
    await c.post('/api/invites/claim', { token }),
  )
  expect(claimed.claimed).toMatchObject({ organisationId: tenant.id, roleKey: 'read-only', joined: true })
  expect(claimed.session).toMatchObject({ tenantId: tenant.id, tenantName: tenant.name })
  const [session] = await t.db.select({ tenantId: sessions.tenantId }).from(sessions).where(eq(sessions.id, c.session.id))
  expect(session?.tenantId).toBe(tenant.id)
  expect(await membershipOf(tenant.id, invitee.user.id)).toEqual({ roleKey: 'read-only', status: 'active', isDefault: false })
  // Now a member there: the organisation's own calls work.
  expect((await c.get('/api/projects')).status).toBe(200)

  const list = await body<{ items: Invite[] }>(await admin.c.get('/api/admin/invites?status=accepted'))
  expect(list.items.map((i) => i.id)).toEqual([created.id])
  expect(await body<InviteLanding>(await client(t).get(`/invite/${token}`))).toMatchObject({ status: 'accepted' })
  await expectProblem(await c.post('/api/invites/claim', { token }), 410, 'KR_INVITE_USED')
  await expectProblem(await admin.c.post('/api/invites/cancel', { inviteId: created.id }), 409, 'KR_INVITE_USED')
  const audit = await auditOf(t.db, { action: 'admin.invite.claimed', tenantId: tenant.id })
  expect(audit).toEqual([expect.objectContaining({ actorUserId: invitee.user.id, data: expect.objectContaining({ registered: false }) })])
  await expectProblem(await client(t).post('/api/invites/claim', { token }), 401)
})

test('register: a new account for the invited address, verified, joined and signed in; an existing account is 409', async () => {
  const { admin, tenant } = await organisation(t)
  const email = uniqueEmail('register')
  await invite(admin.c, email, 'read-write')
  const token = await mailedToken(email)
  const browser = client(t, { remoteAddress: uniqueAddress() })
  const bad = await expectProblem(await browser.post('/api/invites/register', { token, displayName: '', password: 'short' }), 400, 'KR_VALIDATION')
  expect(Object.keys(bad.errors ?? {}).sort()).toEqual(['displayName', 'password'])
  const registered = await body<{ claimed: { organisationId: string; roleKey: string }; session: { userId: string; email: string; tenantId: string } }>(
    await browser.post('/api/invites/register', { token, displayName: 'Nia Newcomer', password: 'a long enough passphrase' }),
    201,
  )
  expect(registered.claimed).toMatchObject({ organisationId: tenant.id, roleKey: 'read-write' })
  expect(registered.session).toMatchObject({ email, tenantId: tenant.id })
  // Signed in: the cookie works.
  expect(await body<{ userId: string }>(await browser.get('/auth/session'))).toMatchObject({ userId: registered.session.userId })
  expect(await membershipOf(tenant.id, registered.session.userId)).toEqual({ roleKey: 'read-write', status: 'active', isDefault: true })
  // Used: a second registration or claim with the link is refused.
  await expectProblem(await client(t).post('/api/invites/register', { token, displayName: 'Again', password: 'a long enough passphrase' }), 410, 'KR_INVITE_USED')

  const existing = await createMember(t.db)
  await invite(admin.c, existing.user.email)
  const existingToken = await mailedToken(existing.user.email)
  const exists = await expectProblem(
    await client(t).post('/api/invites/register', { token: existingToken, displayName: 'X', password: 'a long enough passphrase' }),
    409,
    'KR_ACCOUNT_EXISTS',
  )
  expect(exists.detail).toContain('Sign in')
  await expectProblem(await client(t).post('/api/invites/register', { token: 'y'.repeat(43), displayName: 'X', password: 'a long enough passphrase' }), 404, 'KR_INVITE_NOT_FOUND')
  expect(await auditOf(t.db, { action: 'admin.invite.claimed', tenantId: tenant.id })).toEqual([expect.objectContaining({ data: expect.objectContaining({ registered: true }) })])
})

test('project invites: create answers the link and the code once; landing; link claim joins and grants the project; list and cancel', async () => {
  const { admin, tenant } = await organisation(t)
  const project = await newProject(admin.c, { title: 'Riverside block C' })
  await expectProblem(await admin.c.post(`/api/projects/${project.id}/invites/create`, { roleKey: 'read-only', maxUses: 0 }), 400, 'KR_VALIDATION')
  await expectProblem(await admin.c.post(`/api/projects/${randomUUID()}/invites/create`, { roleKey: 'read-only' }), 404)
  const made = await body<CreatedProjectInvite>(
    await admin.c.post(`/api/projects/${project.id}/invites/create`, { roleKey: 'read-write', message: 'Site access', maxUses: 2 }),
    201,
  )
  expect(made.code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/)
  expect(made.link).toBe(`${t.config.publicUrl}/invite/project/${made.token}`)
  expect(made.invite).toMatchObject({ projectId: project.id, projectTitle: 'Riverside block C', roleKey: 'read-write', status: 'active', maxUses: 2, useCount: 0, hasCode: true })
  expect(JSON.stringify(await body(await admin.c.get(`/api/projects/${project.id}/invites`)))).not.toContain(made.token)

  const landing = await body<ProjectInviteLanding>(await client(t).get(`/invite/project/${made.token}`))
  expect(landing).toMatchObject({
    organisationName: tenant.name,
    projectTitle: 'Riverside block C',
    roleKey: 'read-write',
    roleName: 'Read & Write',
    status: 'active',
    message: 'Site access',
  })
  expect(await body(await client(t).get(`/api/invite/project/${made.token}`))).toEqual(landing)
  await expectProblem(await client(t).get(`/invite/project/${'z'.repeat(43)}`), 404, 'KR_INVITE_NOT_FOUND')

  const outsider = await createMember(t.db)
  const c = await signedInClient(t, outsider)
  const claimed = await body<{ claimed: { joined: boolean; level: string; projectId: string }; session: { tenantId: string } }>(
    await c.post('/api/project-invites/claim', { token: made.token }),
  )
  expect(claimed.claimed).toMatchObject({ joined: true, level: 'edit', projectId: project.id })
  expect(claimed.session.tenantId).toBe(tenant.id)
  expect(await membershipOf(tenant.id, outsider.user.id)).toMatchObject({ roleKey: 'read-write', status: 'active' })
  const entries = await withTenant(t.db, tenant.id, (tx) =>
    tx
      .select({ level: documentPermissions.level, targetKind: documentPermissions.targetKind })
      .from(documentPermissions)
      .where(and(eq(documentPermissions.tenantId, tenant.id), eq(documentPermissions.subject, outsider.user.id))),
  )
  expect(entries).toEqual([{ level: 'edit', targetKind: 'project' }])
  // Claiming again changes nothing and uses nothing up.
  expect((await body<{ claimed: { joined: boolean } }>(await c.post('/api/project-invites/claim', { token: made.token }))).claimed.joined).toBe(false)

  // An existing member (read-only) keeps their role and gets the project at the invite's level.
  const reader = await createMember(t.db, { tenant, roleKey: 'read-only' })
  const readerClient = await signedInClient(t, reader)
  expect((await body<{ claimed: { joined: boolean; roleKey: string } }>(await readerClient.post('/api/project-invites/claim', { token: made.token }))).claimed).toMatchObject({
    joined: false,
    roleKey: 'read-only',
  })
  const list = await body<{ items: ProjectInvite[] }>(await admin.c.get(`/api/projects/${project.id}/invites`))
  expect(list.items[0]).toMatchObject({ id: made.invite.id, useCount: 2, status: 'used-up' })
  // maxUses reached.
  const third = await signedInClient(t, await createMember(t.db))
  await expectProblem(await third.post('/api/project-invites/claim', { token: made.token }), 410, 'KR_INVITE_USED')

  const other = await body<CreatedProjectInvite>(await admin.c.post(`/api/projects/${project.id}/invites/create`, { roleKey: 'read-only' }), 201)
  expect((await body<ProjectInvite>(await admin.c.post(`/api/project-invites/${other.invite.id}/cancel`))).status).toBe('cancelled')
  await expectProblem(await third.post('/api/project-invites/claim', { token: other.token }), 410, 'KR_INVITE_CANCELLED')
  expect(await body<ProjectInviteLanding>(await client(t).get(`/invite/project/${other.token}`))).toMatchObject({ status: 'cancelled' })
  const actions = (await auditOf(t.db, { tenantId: tenant.id })).map((a) => a.action).filter((a) => a.startsWith('admin.project-invite'))
  expect(actions).toEqual([
    'admin.project-invite.created',
    'admin.project-invite.claimed',
    'admin.project-invite.claimed',
    'admin.project-invite.created',
    'admin.project-invite.cancelled',
  ])
})

test('a project invite with an address is mailed and only that address may claim it; expired ones are 410', async () => {
  const { admin } = await organisation(t)
  const project = await newProject(admin.c)
  const email = uniqueEmail('project')
  const made = await body<CreatedProjectInvite>(await admin.c.post(`/api/projects/${project.id}/invites/create`, { roleKey: 'read-only', email, expiresInDays: 1 }), 201)
  expect(await mailedToken(email, 'project')).toBe(made.token)
  expect((await mailsTo(t.db, email))[0]?.textBody).toContain(made.code)
  const stranger = await signedInClient(t, await createMember(t.db))
  await expectProblem(await stranger.post('/api/project-invites/claim', { token: made.token }), 403, 'KR_INVITE_WRONG_ACCOUNT')
  t.now.advance(DAY + 1)
  const invitee = await signedInClient(t, await createMember(t.db, { email }))
  await expectProblem(await invitee.post('/api/project-invites/claim', { token: made.token }), 410, 'KR_INVITE_EXPIRED')
})

test('code claims: any case and dash; a wrong, expired or cancelled code is the same 404; 10 wrong codes an hour answer 429', async () => {
  const { admin, tenant } = await organisation(t)
  const project = await newProject(admin.c)
  const made = await body<CreatedProjectInvite>(await admin.c.post(`/api/projects/${project.id}/invites/create`, { roleKey: 'read-only' }), 201)
  const cancelled = await body<CreatedProjectInvite>(await admin.c.post(`/api/projects/${project.id}/invites/create`, { roleKey: 'read-only' }), 201)
  await admin.c.post(`/api/project-invites/${cancelled.invite.id}/cancel`)

  const address = uniqueAddress()
  const person = await createMember(t.db)
  const c = await signedInClient(t, person, { remoteAddress: address })
  await expectProblem(await c.post('/api/project-invites/codes/claim', { code: 'abc' }), 400, 'KR_VALIDATION')
  const never = await expectProblem(await c.post('/api/project-invites/codes/claim', { code: 'ZZZZ-ZZZZ' }), 404, 'KR_INVITE_CODE_INVALID')
  const dead = await expectProblem(await c.post('/api/project-invites/codes/claim', { code: cancelled.code }), 404, 'KR_INVITE_CODE_INVALID')
  expect({ ...dead, correlationId: '', instance: '' }).toEqual({ ...never, correlationId: '', instance: '' })

  const claimed = await body<{ claimed: { organisationId: string; level: string } }>(
    await c.post('/api/project-invites/codes/claim', { code: ` ${made.code.toLowerCase().replace('-', ' ')} ` }),
  )
  expect(claimed.claimed).toMatchObject({ organisationId: tenant.id, level: 'view' })
  expect((await auditOf(t.db, { action: 'admin.project-invite.claimed', tenantId: tenant.id }))[0]?.data).toMatchObject({ via: 'code' })

  // Per account: 2 wrong so far; 7 more are 404, the tenth is 429, and then even a right code waits.
  for (let i = 0; i < 7; i++) await expectProblem(await c.post('/api/project-invites/codes/claim', { code: 'ZZZZ-ZZZZ' }), 404)
  const locked = await expectProblem(await c.post('/api/project-invites/codes/claim', { code: 'ZZZZ-ZZZZ' }), 429, 'KR_THROTTLED')
  expect(locked.retryAfterSeconds).toBeGreaterThan(0)
  await expectProblem(await c.post('/api/project-invites/codes/claim', { code: made.code }), 429, 'KR_THROTTLED')
  // Per address: another account from the same address is locked too; from elsewhere it is not.
  const sameAddress = await signedInClient(t, await createMember(t.db), { remoteAddress: address })
  await expectProblem(await sameAddress.post('/api/project-invites/codes/claim', { code: made.code }), 429, 'KR_THROTTLED')
  const elsewhere = await signedInClient(t, await createMember(t.db), { remoteAddress: uniqueAddress() })
  expect((await elsewhere.post('/api/project-invites/codes/claim', { code: made.code })).status).toBe(200)
  // After the hour, the account may try again.
  t.now.advance(61 * 60_000)
  const later = await signedInClient(t, person, { remoteAddress: address })
  expect((await later.post('/api/project-invites/codes/claim', { code: made.code })).status).toBe(200)
})

test('invite calls take an Idempotency-Key: the same key creates one invite', async () => {
  const { admin } = await organisation(t)
  const email = uniqueEmail('idem')
  const key = randomUUID()
  const first = await admin.c.request('/api/admin/invites', { method: 'POST', json: { email, roleKey: 'read-only' }, headers: { 'idempotency-key': key } })
  const second = await admin.c.request('/api/admin/invites', { method: 'POST', json: { email, roleKey: 'read-only' }, headers: { 'idempotency-key': key } })
  expect(first.status).toBe(201)
  expect(second.status).toBe(201)
  expect(await second.json()).toEqual(await first.json())
  expect(await mailsTo(t.db, email)).toHaveLength(1)
})
