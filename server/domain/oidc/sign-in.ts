import { eq } from 'drizzle-orm'
import * as client from 'openid-client'
import type { Database } from '#server/db/client'
import { tenants, users } from '#server/db/schema'
import { withTenant } from '#server/db/tenancy'
import type { RequestMeta } from '#server/domain/admin/invites-shared'
import { recordAudit } from '#server/domain/audit'
import type { AuthSession } from '#server/domain/auth/sessions'
import { chooseMembership, openSignedInSession, userStatusProblem } from '#server/domain/auth/sign-in'
import { effectiveIdentityProviderConfig } from '#server/domain/config/effective'
import { hasFeature } from '#server/domain/licensing/entitlements'
import type { Logger } from '#server/http/logger'
import { Problem } from '#server/http/problem'
import { safeRedirectPath } from '~/lib/auth/guard'
import { OIDC_ERROR } from '~/lib/auth/oidc-errors'
import type { z } from 'zod'
import type { OidcCallbackSchema } from '~/lib/schemas/oidc'
import { accessDenied, accountInactive, notInPlan, notMember, notOffered, providerError } from './errors'
import { claimFlow, findFlow, startedHere, startFlow, type Flow } from './flows'
import { accountFor, type Organisation } from './linking'
import { assertsMfa } from './mfa-assertion'
import { OIDC_SCOPES, forgetProvider, providerConfiguration, providerFailure, type ProviderSettings } from './provider'

/**
 * Sign-in through the organisation's identity provider (spec §7 POST /auth/oidc/authorize, the
 * callback; docs/identity-provider.md): OpenID Connect authorization code flow with PKCE, state
 * and nonce, by openid-client. The session at the end is the password sign-in's
 * (`openSignedInSession`), with the same cookies, CSRF binding and second-factor rule.
 */

export type OidcContext = {
  db: Database
  sessionSecret: string
  publicUrl: string
  log: Logger
  ip: string
  userAgent: string | undefined
  correlationId: string
}

/** Where the provider sends the browser back: register exactly this at the provider. */
export function callbackUrl(publicUrl: string): string {
  return `${publicUrl}/auth/oidc/callback`
}

type Offered = { organisation: Organisation; settings: ProviderSettings }

/** The organisation's provider, if it offers one and its plan includes it. */
async function offeredProvider(ctx: OidcContext, slug: string, now: Date): Promise<Offered> {
  const [organisation] = await ctx.db.select({ id: tenants.id, name: tenants.name, slug: tenants.slug }).from(tenants).where(eq(tenants.slug, slug)).limit(1)
  if (!organisation) throw notOffered(slug)
  const idp = await effectiveIdentityProviderConfig(ctx.db, ctx.sessionSecret, organisation.id)
  if (!idp?.enabled || !idp.issuer || !idp.clientId || !idp.clientSecret) throw notOffered(slug)
  const included = await withTenant(ctx.db, organisation.id, (tx) => hasFeature(tx, organisation.id, 'identity-provider-sign-in', now))
  if (!included) throw notInPlan(organisation.name)
  return { organisation, settings: { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret } }
}

export type StartedSignIn = { authorizationUrl: string; expiresAt: Date; browserToken: string }

/** POST /auth/oidc/authorize: a new flow and the provider's address to send the browser to. */
export async function startOidcSignIn(
  ctx: OidcContext,
  input: { organisation: string; redirectTo?: string | undefined; browserToken?: string | undefined },
  now: Date,
): Promise<StartedSignIn> {
  const { organisation, settings } = await offeredProvider(ctx, input.organisation, now)
  const configuration = await providerConfiguration(settings, ctx.log)
  const flow = await startFlow(
    ctx.db,
    { tenantId: organisation.id, issuer: settings.issuer, redirectTo: safeRedirectPath(input.redirectTo), correlationId: ctx.correlationId, browserToken: input.browserToken },
    now,
  )
  const authorizationUrl = client.buildAuthorizationUrl(configuration, {
    redirect_uri: callbackUrl(ctx.publicUrl),
    scope: OIDC_SCOPES,
    state: flow.state,
    nonce: flow.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(flow.codeVerifier),
    code_challenge_method: 'S256',
  })
  // Logged, not audited: anyone may start a flow, and the organisation's audit trail is not theirs to fill.
  ctx.log.info({ oidc: 'redirecting', tenantId: organisation.id, issuer: settings.issuer }, 'identity provider sign-in started')
  return { authorizationUrl: authorizationUrl.href, expiresAt: flow.expiresAt, browserToken: flow.browserToken }
}

export type CallbackQuery = z.output<typeof OidcCallbackSchema>

export type FinishedSignIn = { token: string; session: AuthSession; redirectTo: string; linked: boolean; flowCorrelationId: string }

/**
 * The provider's answer: takes the flow (state, this browser, expiry, once), exchanges the code
 * (PKCE verifier; openid-client checks the issuer, the ID token's signature, audience, nonce and
 * times), finds or links the account, and opens the session. Every refusal is audited with the
 * flow's correlation id and answered as a plain-words problem.
 */
export async function finishOidcSignIn(ctx: OidcContext, query: CallbackQuery, browserToken: string | undefined, now: Date): Promise<FinishedSignIn> {
  const found = await findFlow(ctx.db, query.state)
  try {
    const flow = await claimFlow(ctx.db, found, browserToken, now)
    return await finishFlow(ctx, flow, query, now)
  } catch (error) {
    if (!(error instanceof Problem)) throw error
    await auditFailure(ctx, found, error)
    // The sign-in page offers to try again with the same organisation (to this browser only).
    const organisation = found && startedHere(found, browserToken) ? await slugOf(ctx.db, found.tenantId) : undefined
    throw organisation ? new Problem({ ...error.init, extensions: { ...error.init.extensions, organisation } }) : error
  }
}

async function finishFlow(ctx: OidcContext, flow: Flow, query: CallbackQuery, now: Date): Promise<FinishedSignIn> {
  const log = ctx.log.child({ oidcFlowCorrelationId: flow.correlationId })
  const [organisation] = await ctx.db.select({ id: tenants.id, name: tenants.name, slug: tenants.slug }).from(tenants).where(eq(tenants.id, flow.tenantId)).limit(1)
  if (!organisation) throw notOffered('this organisation')
  const { settings } = await offeredProvider({ ...ctx, log }, organisation.slug, now)
  // The provider was changed while the person was at the old one: that answer is not this provider's.
  if (settings.issuer !== flow.issuer) throw providerError()
  if (query.error) {
    log.info({ oidc: 'provider-refused', error: query.error, description: query.error_description }, 'identity provider refused the sign-in')
    throw query.error === 'access_denied' || query.error === 'login_required' || query.error === 'interaction_required' ? accessDenied() : providerError()
  }

  const configuration = await providerConfiguration(settings, log)
  const answer = new URL(callbackUrl(ctx.publicUrl))
  for (const name of ['state', 'code', 'iss'] as const) {
    const value = query[name]
    if (value !== undefined) answer.searchParams.set(name, value)
  }
  let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>
  try {
    tokens = await client.authorizationCodeGrant(configuration, answer, {
      pkceCodeVerifier: flow.codeVerifier,
      expectedState: query.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    })
  } catch (error) {
    // Keys or endpoints may have moved: the next sign-in discovers the provider afresh.
    forgetProvider(settings)
    throw providerFailure(error, log, 'token')
  }
  const claims = tokens.claims()
  if (!claims) throw providerError()
  const profile = await profileOf(configuration, tokens.access_token, claims, log)

  const account = await accountFor(
    ctx.db,
    { issuer: settings.issuer, subject: claims.sub, email: profile.email, emailVerified: profile.emailVerified, name: profile.name },
    organisation,
    meta(ctx),
    now,
  )
  const [user] = await ctx.db.select({ status: users.status, mfaEnforced: users.mfaEnforced, email: users.email }).from(users).where(eq(users.id, account.userId))
  if (!user) throw providerError()
  if (userStatusProblem(user.status)) throw accountInactive()
  let membership: Awaited<ReturnType<typeof chooseMembership>>
  try {
    membership = await chooseMembership(ctx.db, account.userId, organisation.slug)
  } catch (error) {
    // Linked earlier, but no longer an active member of the organisation.
    if (error instanceof Problem) throw notMember(profile.email ?? user.email, organisation.name)
    throw error
  }
  const secondFactorAsserted = assertsMfa(claims.amr)
  const created = await openSignedInSession(
    ctx.db,
    {
      userId: account.userId,
      userMfaEnforced: user.mfaEnforced,
      membership,
      // An administrator signs in as one, so the second-factor rule of admin sign-in applies.
      kind: membership.roleKey === 'admin' ? 'admin' : 'user',
      ip: ctx.ip,
      userAgent: ctx.userAgent,
      correlationId: ctx.correlationId,
      secondFactorAsserted,
      method: 'oidc',
    },
    now,
  )
  log.info({ oidc: 'signed-in', userId: account.userId, linked: account.linked, secondFactorAsserted, requiresMfa: created.session.requiresMfa }, 'identity provider sign-in')
  return { ...created, redirectTo: flow.redirectTo, linked: account.linked, flowCorrelationId: flow.correlationId }
}

type Profile = { email: string | undefined; emailVerified: boolean; name: string | undefined }

/**
 * The e-mail address, its verification and a name: from the ID token, else from the UserInfo
 * endpoint (many providers keep scope claims out of the ID token when an access token is issued).
 */
async function profileOf(configuration: client.Configuration, accessToken: string, claims: client.IDToken, log: Logger): Promise<Profile> {
  let source: Record<string, unknown> = claims
  if (typeof claims.email !== 'string' && configuration.serverMetadata().userinfo_endpoint) {
    try {
      source = { ...(await client.fetchUserInfo(configuration, accessToken, claims.sub)), ...claims }
    } catch (error) {
      throw providerFailure(error, log, 'userinfo')
    }
  }
  const email = typeof source.email === 'string' && source.email !== '' ? source.email : undefined
  const name = typeof source.name === 'string' && source.name.trim() !== '' ? source.name.trim().slice(0, 120) : undefined
  // Some providers send "true" as text (AWS Cognito did for years); only true counts.
  const emailVerified = source.email_verified === true || source.email_verified === 'true'
  return { email, emailVerified, name }
}

async function slugOf(db: Database, tenantId: string): Promise<string | undefined> {
  const [row] = await db.select({ slug: tenants.slug }).from(tenants).where(eq(tenants.id, tenantId)).limit(1)
  return row?.slug
}

function meta(ctx: OidcContext): RequestMeta {
  return { ip: ctx.ip, correlationId: ctx.correlationId, publicUrl: ctx.publicUrl }
}

async function auditFailure(ctx: OidcContext, flow: Flow | undefined, problem: Problem): Promise<void> {
  ctx.log.info({ oidc: 'failed', code: problem.init.code, oidcFlowCorrelationId: flow?.correlationId }, 'identity provider sign-in failed')
  await recordAudit(ctx.db, {
    tenantId: flow?.tenantId,
    action: 'auth.oidc.failed',
    ip: ctx.ip,
    correlationId: ctx.correlationId,
    data: { code: problem.init.code ?? OIDC_ERROR.providerError, flowCorrelationId: flow?.correlationId ?? null },
  })
}
