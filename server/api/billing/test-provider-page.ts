import { createHash } from 'node:crypto'
import type { TestSession } from '#server/domain/billing/test-provider'
import { CURRENCY, PLANS } from '~/lib/licensing/plans'

/**
 * The test provider's hosted checkout page (docs/billing.md "The test provider"): plain HTML, no
 * script, its own look, so nobody takes it for the portal or for a real payment page.
 */

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#fff7e6;color:#1f1300}
main{max-width:32rem;margin:2rem auto;padding:1.5rem;background:#fff;border:2px dashed #b45309;border-radius:.5rem}
h1{font-size:1.4rem;margin:0 0 .5rem}.note{background:#fef3c7;padding:.5rem .75rem;border-radius:.25rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem}dt{font-weight:600}dd{margin:0}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}button{font:inherit;padding:.6rem 1.2rem;border-radius:.375rem;border:1px solid #78350f;cursor:pointer}
.pay{background:#78350f;color:#fff}.cancel{background:#fff;color:#78350f}`

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64')

export function testPageCsp(publicUrl: string): string {
  // form-action also binds the redirect after a form post (Chromium): the return goes to the portal.
  return `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; frame-ancestors 'none'; base-uri 'none'; form-action 'self' ${new URL(publicUrl).origin}`
}

export function checkoutPage(session: TestSession, locale: string): string {
  const plan = PLANS[session.plan]
  const money = (cents: number) => new Intl.NumberFormat(locale, { style: 'currency', currency: CURRENCY }).format(cents / 100)
  const total = plan.pricePerSeatMonthly * session.seats
  const action = (what: 'pay' | 'cancel') => `/api/billing/test-provider/checkout/${encodeURIComponent(session.id)}/${what}`
  return layout(
    'Test checkout',
    `<h1>Test payment provider</h1>
<p class="note">This is the portal's built-in test provider. No money is charged and no card is needed.</p>
<dl>
<dt>Plan</dt><dd>${escape(plan.name)}</dd>
<dt>Seats</dt><dd>${session.seats}</dd>
<dt>Price per seat</dt><dd>${escape(money(plan.pricePerSeatMonthly))} a month</dd>
<dt>Total</dt><dd>${escape(money(total))} a month</dd>
${session.customerEmail ? `<dt>Billed to</dt><dd>${escape(session.customerEmail)}</dd>` : ''}
</dl>
<div class="actions">
<form method="post" action="${escape(action('pay'))}"><button type="submit" class="pay">Pay</button></form>
<form method="post" action="${escape(action('cancel'))}"><button type="submit" class="cancel">Cancel</button></form>
</div>`,
  )
}

export function messagePage(title: string, text: string): string {
  return layout(title, `<h1>${escape(title)}</h1>\n<p>${escape(text)}</p>`)
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · Test payment provider</title><style>${STYLE}</style></head>
<body><main>
${body}
</main></body></html>`
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)
}
