import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { configuredTestProvider } from '#server/domain/billing/providers'
import type { TestProvider, TestSession } from '#server/domain/billing/test-provider'
import { receiveWebhook } from '#server/domain/billing/webhooks'
import { operation, pathPattern } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'
import { Problem } from '#server/http/problem'
import { preferredLocale } from '~/lib/format'
import { checkoutPage, messagePage, testPageCsp } from './test-provider-page'

const TAG = 'Billing (test provider)'
/** `cs_test_` + base64url(payload).base64url(HMAC-SHA256), as server/domain/billing/test-provider.ts makes it; one that does not verify is 404. */
const params = z.object({
  sessionId: pathPattern(/^cs_test_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/, 'The test checkout session’s id (cs_test_, a signed payload); one that does not verify is 404, one expired is 410.', z.string().min(1).max(4096)),
})
const html = { contentType: 'text/html' }

/**
 * The built-in test provider's hosted checkout (BILLING_PROVIDER=test only; 404 otherwise). It
 * stands where Stripe's checkout.stripe.com page stands: "Pay" sends the signed webhook a real
 * provider would send — through the same verification as POST /api/billing/webhooks/test, in
 * process — and returns to the success URL; "Cancel" returns to the cancel URL. Its forms carry
 * no CSRF token, as a provider's page would not (server/http/csrf.ts exempts this path): the
 * session id is signed and unguessable, and paying only does what the webhook would.
 */
export const testProviderRoutes = new Hono<BackendEnv>()
  .get(
    '/api/billing/test-provider/checkout/:sessionId',
    operation({
      summary: "The test provider's payment page: plan, seats, total, Pay and Cancel",
      tag: TAG,
      access: 'public',
      params,
      responses: { 200: { description: 'An HTML page.', ...html }, 404: 'No such session, or the test provider is not the configured one.', 410: 'The session expired.' },
    }),
    (c) => withSession(c, (session) => page(c, checkoutPage(session, preferredLocale(c.req.header('accept-language'))))),
  )
  .post(
    '/api/billing/test-provider/checkout/:sessionId/pay',
    operation({
      summary: "The test provider's Pay button: sends the signed checkout.session.completed webhook, then returns to the success URL",
      tag: TAG,
      access: 'public',
      params,
      responses: { 303: 'To the success URL.', 404: 'No such session.', 410: 'The session expired.', 502: 'Our webhook endpoint refused the event (a page says why).' },
    }),
    (c) =>
      withSession(c, async (session, provider) => {
        const deps = c.get('deps')
        const { rawBody, headers } = provider.paymentEvent(session, deps.now())
        try {
          await receiveWebhook({ db: deps.db, now: deps.now, log: c.get('log') }, provider, rawBody, headers, { correlationId: c.get('correlationId') })
        } catch (error) {
          if (!(error instanceof Problem)) throw error
          return page(c, messagePage('The payment could not be confirmed', `The portal refused the payment event: ${error.init.detail ?? error.init.title}`), 502)
        }
        return c.redirect(session.successUrl, 303)
      }),
  )
  .post(
    '/api/billing/test-provider/checkout/:sessionId/cancel',
    operation({
      summary: "The test provider's Cancel button: returns to the cancel URL, nothing is charged",
      tag: TAG,
      access: 'public',
      params,
      responses: { 303: 'To the cancel URL.', 404: 'No such session.', 410: 'The session expired.' },
    }),
    (c) => withSession(c, (session) => c.redirect(session.cancelUrl, 303)),
  )

async function withSession(c: Context<BackendEnv>, work: (session: TestSession, provider: TestProvider) => Response | Promise<Response>): Promise<Response> {
  const deps = c.get('deps')
  const provider = configuredTestProvider(deps)
  if (!provider) throw new Problem({ status: 404, title: 'Not found', detail: 'The test payment provider is not enabled on this portal.', code: 'KR_NOT_FOUND' })
  const found = provider.readSession(c.req.param('sessionId') ?? '', deps.now())
  if (!found.ok && found.reason === 'expired') return page(c, messagePage('This checkout has expired', 'Start again from the billing page of the portal.'), 410)
  if (!found.ok) return page(c, messagePage('No such checkout', 'This link does not name a checkout of the test provider.'), 404)
  return work(found.session, provider)
}

function page(c: Context<BackendEnv>, body: string, status: 200 | 404 | 410 | 502 = 200): Response {
  c.header('content-security-policy', testPageCsp(c.get('deps').config.publicUrl))
  return c.html(body, status)
}
