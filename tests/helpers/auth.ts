import { createHash, randomBytes } from 'node:crypto'
import { and, asc, eq, sql } from 'drizzle-orm'
import { expect } from 'vitest'
import type { Database } from '#server/db/client'
import { auditEvents, mailOutbox, memberships, mfaSecrets, sessions, tenants, users } from '#server/db/schema'
import { withTenant } from '#server/db/tenancy'
import { hashPassword, PASSWORD_HASH_COST } from '#server/domain/auth/passwords'
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, type SessionKind } from '#server/domain/auth/sessions'
import { newToken } from '#server/domain/auth/tokens'
import { currentTotp, newTotpSecret } from '#server/domain/auth/totp'
import { csrfBinding, mintCsrfToken } from '#server/http/csrf'
import { COOKIES, HEADERS } from '~/lib/constants'
import { type TestBackend, type TestRequestInit } from './backend'
import { createCookieJar, type CookieJar } from './cookies'

/**
 * Test data for the auth API tests, made directly in the database (STYLE.md "Tests"): only the
 * sign-in tests sign in through HTTP. Every name is unique, so tests run in any order and files
 * run in parallel.
 */

/** The password of every user these helpers create. */
export const TEST_PASSWORD = 'correct horse battery staple'
export const SESSION_COOKIE = 'sp_session'
export const CSRF_COOKIE = COOKIES.csrf

/** Hash the one test password once per worker, at the suite's cost (tests/helpers/backend.ts). */
let testPasswordHash: Promise<string> | undefined
export function testPasswordHashOnce(): Promise<string> {
  testPasswordHash ??= hashPassword(TEST_PASSWORD, { cost: PASSWORD_HASH_COST.min })
  return testPasswordHash
}

export function uniqueSuffix(): string {
  return randomBytes(5).toString('hex')
}

export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${uniqueSuffix()}@example.test`
}

/**
 * A fresh address per test, so per-address throttling of one test never touches another: a counter
 * from a random start, so no two calls of a process share one (for the first 65,536). Random picks
 * collided now and then (a file draws about forty), and two clients on one address share their
 * budgets: a CI run's mail-budget test saw its 429 one call early.
 */
let nextAddress = randomBytes(2).readUInt16BE(0)
export function uniqueAddress(): string {
  const n = nextAddress++ & 0xffff
  return `198.51.${n >> 8}.${n & 255}`
}

export type TestTenant = { id: string; name: string; slug: string }

export async function createTenant(db: Database, options: { name?: string; mfaEnforced?: boolean } = {}): Promise<TestTenant> {
  const suffix = uniqueSuffix()
  const [tenant] = await db
    .insert(tenants)
    .values({ name: options.name ?? `Tenant ${suffix}`, slug: `tenant-${suffix}`, mfaEnforced: options.mfaEnforced ?? false })
    .returning({ id: tenants.id, name: tenants.name, slug: tenants.slug })
  if (!tenant) throw new Error('createTenant: no row')
  return tenant
}

export type TestUser = { id: string; email: string; displayName: string; password: string }

export async function createUser(
  db: Database,
  options: { email?: string; displayName?: string; status?: 'active' | 'blocked' | 'inactive'; verified?: boolean; mfaEnforced?: boolean } = {},
): Promise<TestUser> {
  const email = options.email ?? uniqueEmail()
  const displayName = options.displayName ?? `Test ${email.split('@')[0] ?? 'User'}`
  const [user] = await db
    .insert(users)
    .values({
      email,
      displayName,
      passwordHash: await testPasswordHashOnce(),
      status: options.status ?? 'active',
      emailVerifiedAt: options.verified === false ? null : new Date('2024-01-01T00:00:00Z'),
      mfaEnforced: options.mfaEnforced ?? false,
    })
    .returning({ id: users.id })
  if (!user) throw new Error('createUser: no row')
  return { id: user.id, email, displayName, password: TEST_PASSWORD }
}

export type RoleKey = 'admin' | 'read-write' | 'read-only'

export async function addMembership(
  db: Database,
  tenantId: string,
  userId: string,
  options: { roleKey?: RoleKey; isDefault?: boolean; status?: 'active' | 'invited' | 'suspended' } = {},
): Promise<void> {
  await withTenant(db, tenantId, (tx) =>
    tx.insert(memberships).values({
      tenantId,
      userId,
      roleKey: options.roleKey ?? 'read-write',
      isDefault: options.isDefault ?? true,
      status: options.status ?? 'active',
    }),
  )
}

export type TestMember = { user: TestUser; tenant: TestTenant; roleKey: RoleKey }

/** A user with an active, default membership: in `tenant` when given, else in a new organisation. */
export async function createMember(
  db: Database,
  options: Parameters<typeof createUser>[1] & { tenant?: TestTenant; roleKey?: RoleKey } = {},
): Promise<TestMember> {
  const { tenant: given, roleKey = 'read-write', ...userOptions } = options
  const tenant = given ?? (await createTenant(db))
  const user = await createUser(db, userOptions)
  await addMembership(db, tenant.id, user.id, { roleKey })
  return { user, tenant, roleKey }
}

/** Gives the user an authenticator secret, confirmed unless told otherwise; returns the secret. */
export async function enrollMfa(db: Database, userId: string, options: { confirmed?: boolean } = {}): Promise<string> {
  const secret = newTotpSecret()
  await db.insert(mfaSecrets).values({ userId, secret, confirmedAt: options.confirmed === false ? null : new Date('2024-01-01T00:00:00Z') })
  return secret
}

/** The code the user's authenticator shows at the backend's current time. */
export function totpAt(secret: string, at: Date): Promise<string> {
  return currentTotp(secret, at)
}

/** A well-formed code that is valid for no step the server accepts at `at` (±1 step). */
export async function wrongTotp(secret: string, at: Date): Promise<string> {
  const valid = new Set(await Promise.all([-30_000, 0, 30_000].map((d) => currentTotp(secret, new Date(at.getTime() + d)))))
  for (let n = 0; ; n++) {
    const candidate = String((123_456 + n * 7_919) % 1_000_000).padStart(6, '0')
    if (!valid.has(candidate)) return candidate
  }
}

/** A session row made directly, as a finished sign-in (or an MFA-pending one) would make it. */
export async function createSessionFor(
  t: TestBackend,
  member: { user: { id: string }; tenant: { id: string } },
  options: { kind?: SessionKind; requiresMfa?: boolean; mfaEnrollment?: boolean } = {},
): Promise<{ token: string; id: string }> {
  const kind = options.kind ?? 'user'
  const now = t.now()
  const { token, hash } = newToken()
  const [row] = await t.db
    .insert(sessions)
    .values({
      tokenHash: hash,
      userId: member.user.id,
      tenantId: member.tenant.id,
      kind,
      requiresMfa: options.requiresMfa ?? false,
      mfaEnrollment: options.mfaEnrollment ?? false,
      issuedAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + SESSION_IDLE_MS),
      maxExpiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS[kind]),
      ip: '192.0.2.1',
    })
    .returning({ id: sessions.id })
  if (!row) throw new Error('createSessionFor: no row')
  return { token, id: row.id }
}

export type RequestOptions = TestRequestInit & {
  /** A JSON body (serialised, with its content type). */
  json?: unknown
  /**
   * The X-CSRF-Token header of an unsafe call: the jar's CSRF cookie by default (what the web
   * app's client does); a string sends that instead; false sends none.
   */
  csrf?: string | false
}

/**
 * A browser-like caller: keeps the backend's cookies, and on unsafe methods echoes the CSRF
 * cookie in X-CSRF-Token like app/lib/api does. Without a CSRF cookie yet, it first loads one
 * with a GET, as a page load would.
 */
export type TestClient = {
  jar: CookieJar
  remoteAddress: string | undefined
  request(path: string, options?: RequestOptions): Promise<Response>
  get(path: string, options?: RequestOptions): Promise<Response>
  post(path: string, json?: unknown, options?: RequestOptions): Promise<Response>
  delete(path: string, options?: RequestOptions): Promise<Response>
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

export function client(t: TestBackend, options: { remoteAddress?: string } = {}): TestClient {
  const jar = createCookieJar()
  const self: TestClient = {
    jar,
    remoteAddress: options.remoteAddress,
    async request(path, { json, csrf, headers: given, ...init } = {}) {
      const method = (init.method ?? (json === undefined ? 'GET' : 'POST')).toUpperCase()
      const unsafe = UNSAFE.has(method)
      if (unsafe && csrf === undefined && !jar.get(CSRF_COOKIE)) await self.get('/auth/session')
      const headers = jar.apply(given)
      headers.set('accept', 'application/json')
      if (json !== undefined) headers.set('content-type', 'application/json')
      if (unsafe && csrf !== false) {
        const token = csrf ?? jar.get(CSRF_COOKIE)
        if (token) headers.set(HEADERS.csrf, token)
      }
      const response = await t.fetch(path, {
        ...init,
        method,
        headers,
        ...(json !== undefined && init.body === undefined && { body: JSON.stringify(json) }),
        ...(self.remoteAddress !== undefined && init.remoteAddress === undefined && { remoteAddress: self.remoteAddress }),
      })
      return jar.collect(response)
    },
    get: (path, opts) => self.request(path, { ...opts, method: 'GET' }),
    post: (path, json, opts) => self.request(path, { ...opts, method: 'POST', json: json ?? {} }),
    delete: (path, opts) => self.request(path, { ...opts, method: 'DELETE' }),
  }
  return self
}

/** A client already signed in as the member, through a session made directly in the database. */
export async function signedInClient(
  t: TestBackend,
  member: { user: { id: string }; tenant: { id: string } },
  options: Parameters<typeof createSessionFor>[2] & { remoteAddress?: string } = {},
): Promise<TestClient & { session: { token: string; id: string } }> {
  const session = await createSessionFor(t, member, options)
  const c = client(t, options)
  c.jar.set(SESSION_COOKIE, session.token)
  c.jar.set(CSRF_COOKIE, mintCsrfToken(t.config.sessionSecret, csrfBinding(session.id)))
  return Object.assign(c, { session })
}

/** Signs in through POST /auth/login (or /auth/admin/login) and expects it to succeed. */
export async function signIn(c: TestClient, user: { email: string; password: string }, kind: SessionKind = 'user'): Promise<SessionBody> {
  const response = await c.post(kind === 'admin' ? '/auth/admin/login' : '/auth/login', { email: user.email, password: user.password })
  expect(response.status, await show(response)).toBe(200)
  return (await response.json()) as SessionBody
}

export type SessionBody = {
  userId: string
  displayName: string
  email: string
  roles: string[]
  tenantId: string
  tenantName: string
  tenantSlug: string
  featureFlags: Record<string, boolean>
  syncCursor: unknown
  issuedAtUtc: string
  sessionExpiresAtUtc: string
  correlationId: string
  kind: SessionKind
  adminUiAllowed: boolean
  requiresMfa: boolean
  mfaEnrollment?: boolean
}

export type ProblemJson = {
  type: string
  title: string
  status: number
  detail?: string
  instance: string
  correlationId: string
  code?: string
  remediation?: string
  retryAfterSeconds?: number
  errors?: Record<string, string[]>
  [extension: string]: unknown
}

/**
 * Checks what every problem response must be (RFC 9457 JSON, the correlation id of the header,
 * no stack) and its status and code; returns the body for further checks.
 */
export async function expectProblem(response: Response, status: number, code?: string): Promise<ProblemJson> {
  const text = await response.clone().text()
  expect(response.status, text).toBe(status)
  expect(response.headers.get('content-type')).toBe('application/problem+json')
  const body = JSON.parse(text) as ProblemJson
  const header = response.headers.get(HEADERS.correlationId)
  expect(header).toBeTruthy()
  expect(body.correlationId).toBe(header)
  expect(body.status).toBe(status)
  expect(typeof body.title).toBe('string')
  expect(body).not.toHaveProperty('stack')
  expect(text).not.toMatch(/\bat .+\.[cm]?[jt]s:\d+/)
  if (code !== undefined) expect(body.code).toBe(code)
  return body
}

/** For assertion messages: the status and body of a response, without consuming it. */
export async function show(response: Response): Promise<string> {
  return `${response.status} ${await response.clone().text()}`
}

/** Audit events read as the owner connection, which sees untenanted rows too. */
export async function auditOf(db: Database, where: { action?: string; actorUserId?: string; tenantId?: string }) {
  return db
    .select({
      action: auditEvents.action,
      tenantId: auditEvents.tenantId,
      actorUserId: auditEvents.actorUserId,
      ip: auditEvents.ip,
      correlationId: auditEvents.correlationId,
      data: auditEvents.data,
    })
    .from(auditEvents)
    .where(
      and(
        where.action === undefined ? undefined : eq(auditEvents.action, where.action),
        where.actorUserId === undefined ? undefined : eq(auditEvents.actorUserId, where.actorUserId),
        where.tenantId === undefined ? undefined : eq(auditEvents.tenantId, where.tenantId),
      ),
    )
    .orderBy(asc(auditEvents.createdAt))
}

export async function mailsTo(db: Database, address: string) {
  return db
    .select({ template: mailOutbox.template, subject: mailOutbox.subject, textBody: mailOutbox.textBody, tenantId: mailOutbox.tenantId })
    .from(mailOutbox)
    .where(sql`lower(${mailOutbox.toAddress}) = ${address.toLowerCase()}`)
    .orderBy(asc(mailOutbox.createdAt))
}

/** The `token` query parameter of the first link to `pathname` in a mail body. */
export function tokenFromMail(textBody: string, pathname: string): string {
  for (const match of textBody.matchAll(/https?:\/\/\S+/g)) {
    const url = new URL(match[0])
    if (url.pathname === pathname) {
      const token = url.searchParams.get('token')
      if (token) return token
    }
  }
  throw new Error(`no ${pathname}?token=… link in: ${textBody}`)
}

/** The body hash the idempotency middleware stores, to plant rows for a key directly. */
export function requestHashOf(body: string): string {
  return createHash('sha256').update(body).digest('base64url')
}
