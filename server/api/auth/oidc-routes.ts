import { Hono, type Context } from 'hono'
import type { BackendEnv } from '#server/http/env'
import { revokeSession } from '#server/domain/auth/sessions'
import { OIDC_FLOW_TTL_MS } from '#server/domain/oidc/flows'
import { finishOidcSignIn, startOidcSignIn, type OidcContext } from '#server/domain/oidc/sign-in'
import { operation } from '#server/http/contract'
import { readCookie, writeCookie } from '#server/http/cookies'
import { OidcAuthorizeResponseSchema, OidcAuthorizeSchema, OidcCallbackResponseSchema, OidcCallbackSchema } from '~/lib/schemas/oidc'
import { requestContext, startSession } from './context'

/**
 * Spec §7 "Auth": sign-in through an identity provider, OpenID Connect (issue 16,
 * docs/identity-provider.md). The web app's sign-in page calls `authorize` and sends the browser
 * to the provider; its callback page hands the provider's answer to `callback`.
 */
export const oidcRoutes = new Hono<BackendEnv>()
  .post(
    '/auth/oidc/authorize',
    operation({
      summary: 'Start signing in through the organisation’s identity provider (auth status "redirecting")',
      description:
        'Creates a flow (state, nonce, PKCE; 10 minutes, used once) bound to this browser by an HttpOnly cookie, and answers the provider’s authorization address to send the browser to.',
      tag: 'Auth',
      access: 'public',
      body: OidcAuthorizeSchema,
      responses: {
        200: { description: 'The address to send the browser to, and the correlation id of the redirect.', schema: OidcAuthorizeResponseSchema },
        400: 'No sign-in with a company account for that organisation (a field error on organisation).',
        403: 'The organisation’s plan does not include identity-provider sign-in.',
        502: 'The identity provider did not answer, or not with a usable discovery document.',
      },
    }),
    async (c) => {
      const { now, config } = c.get('deps')
      const input = c.req.valid('json')
      const started = await startOidcSignIn(oidcContext(c), { ...input, browserToken: readCookie(c, config, 'oidc') }, now())
      // One value per browser for the flow's lifetime: sign-ins started in two tabs both finish.
      writeCookie(c, config, 'oidc', started.browserToken, OIDC_FLOW_TTL_MS / 1000)
      return c.json({ status: 'redirecting' as const, authorizationUrl: started.authorizationUrl, correlationId: c.get('correlationId'), expiresAtUtc: started.expiresAt.toISOString() })
    },
  )
  .post(
    '/auth/oidc/callback',
    operation({
      summary: 'Finish signing in with the identity provider’s answer',
      description:
        'The query the provider sent the browser back with (state, code, iss, or error). Checks the flow (state, this browser, expiry, single use), exchanges the code with its PKCE verifier, checks the ID token (issuer, audience, nonce), finds or links the account and starts the session as password sign-in does.',
      tag: 'Auth',
      access: 'public',
      body: OidcCallbackSchema,
      responses: {
        200: { description: 'Signed in (requiresMfa when the second factor is still due), and where to go.', schema: OidcCallbackResponseSchema },
        400: 'The flow is unknown, expired or from another browser.',
        403: 'Cancelled or refused at the provider, not a member, no verified e-mail, account blocked, or the plan does not include it.',
        409: 'The flow was used already (a replayed answer).',
        502: 'The identity provider did not answer, or its answer could not be accepted.',
      },
    }),
    async (c) => {
      const { db, now, config } = c.get('deps')
      const finished = await finishOidcSignIn(oidcContext(c), c.req.valid('json'), readCookie(c, config, 'oidc'), now())
      // A new sign-in replaces whatever session this browser had (no session fixation).
      const previous = c.get('session')
      if (previous) await revokeSession(db, previous.id, now())
      startSession(c, finished.token, finished.session)
      return c.json({ requiresMfa: finished.session.requiresMfa, redirectTo: finished.redirectTo, correlationId: finished.flowCorrelationId, linked: finished.linked })
    },
  )

function oidcContext(c: Context<BackendEnv>): OidcContext {
  const request = requestContext(c)
  const { db, config } = c.get('deps')
  return { db, sessionSecret: config.sessionSecret, publicUrl: request.publicUrl, log: c.get('log'), ip: request.ip, userAgent: request.userAgent, correlationId: request.correlationId }
}
