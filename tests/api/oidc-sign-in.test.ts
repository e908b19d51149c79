import { createServer } from 'node:net'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { memberships } from '#server/db/schema'
import { invites } from '#server/db/schema-admin'
import { userIdentities } from '#server/db/schema-oidc'
import { withTenant } from '#server/db/tenancy'
import { hashToken, newToken } from '#server/domain/auth/tokens'
import { applyLicence } from '#server/domain/licensing/licence'
import {
  auditOf,
  client,
  createMember,
  createTenant,
  expectProblem,
  show,
  signedInClient,
  uniqueEmail,
  uniqueSuffix,
  type SessionBody,
  type TestClient,
  type TestTenant,
} from '#tests/helpers/auth'
import { createTestBackend, TEST_ORIGIN, type TestBackend } from '#tests/helpers/backend'
import { startOidcProvider, type TestAccount, type TestOidcProvider } from '#tests/helpers/oidc-provider'
import type { OidcAuthorizeResponse, OidcCallbackResponse } from '~/lib/schemas/oidc'

let t: TestBackend
let idp: TestOidcProvider

beforeAll(async () => {
  t = await createTestBackend()
  idp = await startOidcProvider({ redirectUris: [`${TEST_ORIGIN}/auth/oidc/callback`] })
})

afterAll(async () => {
  await idp?.close()
  await t?.close()
})

type Org = { tenant: TestTenant; admin: Awaited<ReturnType<typeof createMember>> }

/** An organisation on the Business plan (unless told otherwise) whose admin set up the test provider. */
async function organisation(options: { plan?: 'business' | 'free'; issuer?: string; enabled?: boolean } = {}, provider: TestOidcProvider = idp): Promise<Org> {
  const tenant = await createTenant(t.db, { name: `Acme ${uniqueSuffix()}` })
  const admin = await createMember(t.db, { tenant, roleKey: 'admin' })
  if ((options.plan ?? 'business') === 'business') {
    await withTenant(t.db, tenant.id, (tx) => applyLicence(tx, tenant.id, { plan: 'business', seats: 50, validUntil: null, status: 'active', source: 'operator' }, t.now()))
  }
  const c = await signedInClient(t, admin, { kind: 'admin' })
  const values = { enabled: options.enabled ?? true, issuer: options.issuer ?? provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret }
  const saved = await c.request('/api/admin/config/identity-provider', { method: 'PUT', json: { values }, headers: { 'if-match': '"0"' } })
  expect(saved.status, await show(saved)).toBe(200)
  return { tenant, admin }
}

function organisationWith(provider: TestOidcProvider): Promise<Org> {
  return organisation({}, provider)
}

/** A person at the provider (a fresh subject) with a verified address unless told otherwise. */
function account(claims: TestAccount = {}): { subject: string; email: string } {
  const subject = `sub-${uniqueSuffix()}`
  const email = claims.email ?? uniqueEmail('idp')
  idp.accounts.set(subject, { emailVerified: true, name: 'Pat Provider', ...claims, email })
  return { subject, email }
}

async function authorize(c: TestClient, organisationSlug: string, redirectTo?: string): Promise<OidcAuthorizeResponse> {
  const response = await c.post('/auth/oidc/authorize', { organisation: organisationSlug, ...(redirectTo !== undefined && { redirectTo }) })
  expect(response.status, await show(response)).toBe(200)
  return (await response.json()) as OidcAuthorizeResponse
}

function callbackQuery(url: URL): Record<string, string> {
  return Object.fromEntries(url.searchParams)
}

/** The whole journey: authorize, the provider's login page, and the callback; answers the callback's response. */
async function signInThroughProvider(c: TestClient, organisationSlug: string, subject: string, redirectTo?: string): Promise<Response> {
  const started = await authorize(c, organisationSlug, redirectTo)
  const back = await idp.signInAt(started.authorizationUrl, subject)
  expect(back.pathname).toBe('/auth/oidc/callback')
  return c.post('/auth/oidc/callback', callbackQuery(back))
}

async function ok(response: Response): Promise<OidcCallbackResponse> {
  expect(response.status, await show(response)).toBe(200)
  return (await response.json()) as OidcCallbackResponse
}

test('authorize answers the provider’s address with state, nonce and an S256 PKCE challenge, and the status redirecting', async () => {
  const { tenant } = await organisation()
  const c = client(t)
  const started = await authorize(c, tenant.slug.toUpperCase(), '/items')
  expect(started.status).toBe('redirecting')
  expect(started.correlationId).toMatch(/.{8,}/)
  const url = new URL(started.authorizationUrl)
  expect(url.origin).toBe(idp.issuer)
  expect(Object.fromEntries(url.searchParams)).toMatchObject({
    client_id: idp.clientId,
    redirect_uri: `${TEST_ORIGIN}/auth/oidc/callback`,
    response_type: 'code',
    scope: 'openid email profile',
    code_challenge_method: 'S256',
  })
  for (const name of ['state', 'nonce', 'code_challenge']) expect(url.searchParams.get(name)?.length).toBeGreaterThanOrEqual(43)
  expect(new Date(started.expiresAtUtc).getTime() - t.now().getTime()).toBe(10 * 60_000)
  expect(c.jar.get('sp_oidc')).toBeTruthy()
})

test('a member with a verified address signs in through the provider, is linked once, and later by subject alone', async () => {
  const { tenant } = await organisation()
  const member = await createMember(t.db, { tenant, roleKey: 'read-write' })
  const person = account({ email: member.user.email.toUpperCase() })
  const c = client(t)

  const first = await ok(await signInThroughProvider(c, tenant.slug, person.subject, '/items?status=open'))
  expect(first).toMatchObject({ requiresMfa: false, redirectTo: '/items?status=open', linked: true })
  const session = (await (await c.get('/auth/session')).json()) as SessionBody
  expect(session).toMatchObject({ userId: member.user.id, tenantId: tenant.id, kind: 'user', requiresMfa: false })
  expect(await auditOf(t.db, { action: 'auth.oidc.linked', actorUserId: member.user.id })).toHaveLength(1)
  expect(await auditOf(t.db, { action: 'auth.signin', actorUserId: member.user.id })).toEqual([expect.objectContaining({ data: { kind: 'user', method: 'oidc', secondFactorAsserted: false } })])

  // The address changes at the provider: the identity (issuer + subject) still finds the account.
  idp.accounts.set(person.subject, { email: uniqueEmail('renamed'), emailVerified: false })
  const again = await ok(await signInThroughProvider(client(t), tenant.slug, person.subject))
  expect(again).toMatchObject({ linked: false, redirectTo: '/dashboard' })
  const links = await t.db.select().from(userIdentities).where(eq(userIdentities.userId, member.user.id))
  expect(links).toEqual([expect.objectContaining({ issuer: idp.issuer, subject: person.subject, tenantId: tenant.id })])
})

test('a changed or missing state, or another browser, is refused as a flow that took too long', async () => {
  const { tenant } = await organisation()
  const member = await createMember(t.db, { tenant })
  const person = account({ email: member.user.email })
  const c = client(t)
  const started = await authorize(c, tenant.slug)
  const back = callbackQuery(await idp.signInAt(started.authorizationUrl, person.subject))

  const wrong = await expectProblem(await c.post('/auth/oidc/callback', { ...back, state: `${back.state}x` }), 400, 'KR_OIDC_FLOW_EXPIRED')
  expect(wrong.detail).toBe('The sign-in took too long or was started in another window. Try again.')
  await expectProblem(await c.post('/auth/oidc/callback', { code: back.code }), 400, 'KR_OIDC_FLOW_EXPIRED')
  // The same answer in another browser (no flow cookie of this one): a login CSRF attempt.
  await expectProblem(await client(t).post('/auth/oidc/callback', back), 400, 'KR_OIDC_FLOW_EXPIRED')
  // None of that used the flow up: this browser still finishes it.
  await ok(await c.post('/auth/oidc/callback', back))
})

test('a replayed answer is refused, and a used code with a fresh flow is refused by the provider', async () => {
  const { tenant } = await organisation()
  const member = await createMember(t.db, { tenant })
  const person = account({ email: member.user.email })
  const c = client(t)
  const started = await authorize(c, tenant.slug)
  const back = callbackQuery(await idp.signInAt(started.authorizationUrl, person.subject))
  await ok(await c.post('/auth/oidc/callback', back))

  const replay = await expectProblem(await c.post('/auth/oidc/callback', back), 409, 'KR_OIDC_FLOW_USED')
  expect(replay.detail).toMatch(/already completed/)
  const fresh = await authorize(c, tenant.slug)
  const state = new URL(fresh.authorizationUrl).searchParams.get('state') ?? ''
  await expectProblem(await c.post('/auth/oidc/callback', { ...back, state }), 502, 'KR_OIDC_PROVIDER_ERROR')
  const failures = await auditOf(t.db, { action: 'auth.oidc.failed', tenantId: tenant.id })
  expect(failures.map((f) => (f.data as { code: string }).code)).toEqual(expect.arrayContaining(['KR_OIDC_FLOW_USED', 'KR_OIDC_PROVIDER_ERROR']))
  expect(failures.every((f) => typeof f.correlationId === 'string' && typeof (f.data as { flowCorrelationId: unknown }).flowCorrelationId === 'string')).toBe(true)
})

test('a flow answered after its 10 minutes is refused', async () => {
  const { tenant } = await organisation()
  const member = await createMember(t.db, { tenant })
  const person = account({ email: member.user.email })
  const c = client(t)
  const started = await authorize(c, tenant.slug)
  const back = callbackQuery(await idp.signInAt(started.authorizationUrl, person.subject))
  t.now.advance(10 * 60_000 + 1)
  try {
    await expectProblem(await c.post('/auth/oidc/callback', back), 400, 'KR_OIDC_FLOW_EXPIRED')
  } finally {
    t.now.reset()
  }
})

test('an address the provider does not vouch for links nothing', async () => {
  const { tenant } = await organisation()
  const member = await createMember(t.db, { tenant })
  const person = account({ email: member.user.email, emailVerified: false })
  const problem = await expectProblem(await signInThroughProvider(client(t), tenant.slug, person.subject), 403, 'KR_OIDC_EMAIL_UNVERIFIED')
  expect(problem.detail).toContain(member.user.email)
  expect(await t.db.select().from(userIdentities).where(eq(userIdentities.userId, member.user.id))).toEqual([])
})

test('someone who is not a member (nor invited) is told to ask for an invitation, even with an account elsewhere', async () => {
  const { tenant } = await organisation()
  const elsewhere = await createMember(t.db)
  const person = account({ email: elsewhere.user.email })
  const problem = await expectProblem(await signInThroughProvider(client(t), tenant.slug, person.subject), 403, 'KR_OIDC_NOT_MEMBER')
  expect(problem.detail).toBe(`Your company account (${elsewhere.user.email}) is not a member of ${tenant.name}. Ask an administrator to invite you.`)
})

test('a pending invitation for the address is accepted: the account is made, joined and linked', async () => {
  const { tenant, admin } = await organisation()
  const email = uniqueEmail('invited')
  await withTenant(t.db, tenant.id, (tx) =>
    tx.insert(invites).values({ tenantId: tenant.id, email, roleKey: 'read-only', tokenHash: hashToken(newToken().token), invitedBy: admin.user.id, expiresAt: new Date(t.now().getTime() + 86_400_000) }),
  )
  const person = account({ email, name: 'Ivy Invited' })
  const c = client(t)
  expect(await ok(await signInThroughProvider(c, tenant.slug, person.subject))).toMatchObject({ linked: true, requiresMfa: false })
  const session = (await (await c.get('/auth/session')).json()) as SessionBody
  expect(session).toMatchObject({ email, displayName: 'Ivy Invited', tenantId: tenant.id, roles: expect.arrayContaining(['User']) })
  const [membership] = await withTenant(t.db, tenant.id, (tx) =>
    tx.select({ roleKey: memberships.roleKey, status: memberships.status }).from(memberships).where(and(eq(memberships.tenantId, tenant.id), eq(memberships.userId, session.userId))),
  )
  expect(membership).toEqual({ roleKey: 'read-only', status: 'active' })
  const [invite] = await withTenant(t.db, tenant.id, (tx) => tx.select({ acceptedBy: invites.acceptedBy }).from(invites).where(eq(invites.tenantId, tenant.id)))
  expect(invite?.acceptedBy).toBe(session.userId)
})

test('an administrator still needs the second factor, unless the provider’s amr asserts multi-factor authentication', async () => {
  const { tenant, admin } = await organisation()
  const password = account({ email: admin.user.email, amr: ['pwd'] })
  const c = client(t)
  expect(await ok(await signInThroughProvider(c, tenant.slug, password.subject))).toMatchObject({ requiresMfa: true })
  expect((await (await c.get('/auth/session')).json()) as SessionBody).toMatchObject({ kind: 'admin', requiresMfa: true, adminUiAllowed: false })
  await expectProblem(await c.get('/api/admin/config/identity-provider'), 401)

  const other = await createMember(t.db, { tenant, roleKey: 'admin' })
  const strong = account({ email: other.user.email, amr: ['pwd', 'mfa'] })
  const d = client(t)
  expect(await ok(await signInThroughProvider(d, tenant.slug, strong.subject))).toMatchObject({ requiresMfa: false })
  expect((await (await d.get('/auth/session')).json()) as SessionBody).toMatchObject({ kind: 'admin', requiresMfa: false, adminUiAllowed: true })
})

test('cancelling at the provider is access denied', async () => {
  const { tenant } = await organisation()
  const c = client(t)
  const started = await authorize(c, tenant.slug)
  const back = await idp.signInAt(started.authorizationUrl, { cancel: true })
  expect(back.searchParams.get('error')).toBe('access_denied')
  await expectProblem(await c.post('/auth/oidc/callback', callbackQuery(back)), 403, 'KR_OIDC_ACCESS_DENIED')
})

test('a provider that does not answer is a 502 in plain words', async () => {
  const closed = await closedPort()
  const { tenant } = await organisation({ issuer: `http://127.0.0.1:${closed}` })
  const problem = await expectProblem(await client(t).post('/auth/oidc/authorize', { organisation: tenant.slug }), 502, 'KR_OIDC_PROVIDER_DOWN')
  expect(problem.detail).toMatch(/^Your company’s sign-in service did not answer/)
})

test('a provider that stops answering between the redirect and the callback is a 502 too', async () => {
  const shortLived = await startOidcProvider({ redirectUris: [`${TEST_ORIGIN}/auth/oidc/callback`] })
  const { tenant } = await organisationWith(shortLived)
  const member = await createMember(t.db, { tenant })
  const subject = `sub-${uniqueSuffix()}`
  shortLived.accounts.set(subject, { email: member.user.email, emailVerified: true })
  const c = client(t)
  const started = await authorize(c, tenant.slug)
  const back = callbackQuery(await shortLived.signInAt(started.authorizationUrl, subject))
  await shortLived.close()
  await expectProblem(await c.post('/auth/oidc/callback', back), 502, 'KR_OIDC_PROVIDER_DOWN')
})

test('the free plan, a switched-off or missing provider and an unknown organisation are refused on the field', async () => {
  const free = await organisation({ plan: 'free' })
  const plan = await expectProblem(await client(t).post('/auth/oidc/authorize', { organisation: free.tenant.slug }), 403, 'KR_OIDC_NOT_IN_PLAN')
  expect(plan.detail).toContain(free.tenant.name)
  expect(plan.errors?.organisation).toEqual([plan.detail])

  const off = await organisation({ enabled: false })
  const none = await createTenant(t.db)
  for (const slug of [off.tenant.slug, none.slug, `no-such-${uniqueSuffix()}`]) {
    const problem = await expectProblem(await client(t).post('/auth/oidc/authorize', { organisation: slug }), 400, 'KR_OIDC_NOT_OFFERED')
    expect(problem.detail).toContain(slug)
  }
  const invalid = await expectProblem(await client(t).post('/auth/oidc/authorize', { organisation: 'not a slug!' }), 400)
  expect(invalid.errors?.organisation?.[0]).toMatch(/short name/)
  await expectProblem(await client(t).post('/auth/oidc/authorize', {}), 400)
})

test('redirectTo is kept only as a same-site path', async () => {
  const { tenant } = await organisation()
  const member = await createMember(t.db, { tenant })
  const person = account({ email: member.user.email })
  for (const target of ['https://evil.example/x', '//evil.example', '/\\evil.example']) {
    expect(await ok(await signInThroughProvider(client(t), tenant.slug, person.subject, target))).toMatchObject({ redirectTo: '/dashboard' })
  }
})

test('authorize needs the CSRF token like every unsafe call; the callback is protected by state and the flow cookie instead', async () => {
  const { tenant } = await organisation()
  await expectProblem(await client(t).post('/auth/oidc/authorize', { organisation: tenant.slug }, { csrf: false }), 403, 'KR_CSRF_INVALID')
  await expectProblem(await client(t).post('/auth/oidc/callback', { state: 'x'.repeat(43), code: 'y' }, { csrf: false, headers: { 'sec-fetch-site': 'cross-site' } }), 400, 'KR_OIDC_FLOW_EXPIRED')
})

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 9
      server.close(() => resolve(port))
    })
  })
}
