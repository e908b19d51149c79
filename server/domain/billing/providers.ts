import type { BackendDeps } from '#server/http/env'
import type { BillingProvider } from './provider'
import { stripeProvider } from './stripe'
import { testProvider, type TestProvider } from './test-provider'

/** The configured provider (BILLING_PROVIDER), or null when online payment is not set up. */
export function billingProvider(deps: Pick<BackendDeps, 'config' | 'now'>): BillingProvider | null {
  const { billing, publicUrl } = deps.config
  switch (billing.provider) {
    case 'stripe':
      return stripeProvider(billing.stripe)
    case 'test':
      return testProvider(billing.testWebhookSecret, publicUrl, deps.now)
    case 'none':
      return null
  }
}

/** The built-in test provider, only when it is the configured one (its pages answer 404 otherwise). */
export function configuredTestProvider(deps: Pick<BackendDeps, 'config' | 'now'>): TestProvider | null {
  const { billing, publicUrl } = deps.config
  return billing.provider === 'test' ? testProvider(billing.testWebhookSecret, publicUrl, deps.now) : null
}
