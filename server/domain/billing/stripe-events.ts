import { z } from 'zod'
import type { BillingEvent, PurchasablePlan, SubscriptionStatus } from './provider'
import { isUuid } from '~/lib/schemas/uuid'

/**
 * Reads a Stripe event (https://docs.stripe.com/api/events/object) into our BillingEvent. The test
 * provider sends the same shapes, so one reader serves both. Only the fields we act on are read,
 * loosely: Stripe adds fields over time, and an event we cannot use is `ignored`, not an error.
 */
const Metadata = z.record(z.string(), z.string()).nullish()
// Long enough for the test provider's self-describing session ids.
const Id = z.string().min(1).max(4096)

const EventEnvelope = z.object({ id: Id, type: z.string().max(255), data: z.object({ object: z.record(z.string(), z.unknown()) }) })

const CheckoutSessionObject = z.object({
  id: Id,
  client_reference_id: z.string().nullish(),
  metadata: Metadata,
  subscription: z.union([Id, z.object({ id: Id })]).nullish(),
  payment_status: z.string().nullish(),
})

const SubscriptionObject = z.object({
  id: Id,
  status: z.string(),
  metadata: Metadata,
  current_period_end: z.number().int().nullish(),
  items: z
    .object({
      data: z.array(z.object({ price: z.object({ id: z.string() }).nullish(), quantity: z.number().int().nullish(), current_period_end: z.number().int().nullish() })),
    })
    .nullish(),
})

const InvoiceObject = z.object({
  subscription: z.union([Id, z.object({ id: Id })]).nullish(),
  subscription_details: z.object({ metadata: Metadata }).nullish(),
  // API versions from 2025-03-31 moved the subscription under parent.subscription_details.
  parent: z.object({ subscription_details: z.object({ subscription: z.union([Id, z.object({ id: Id })]).nullish(), metadata: Metadata }).nullish() }).nullish(),
})

export type PlanOfPrice = (priceId: string) => PurchasablePlan | null

export function readStripeEvent(payload: unknown, planOfPrice: PlanOfPrice): BillingEvent | null {
  const envelope = EventEnvelope.safeParse(payload)
  if (!envelope.success) return null
  const { id, type } = envelope.data
  const object = envelope.data.data.object
  const ignored: BillingEvent = { id, kind: 'ignored', providerType: type, tenantId: null }
  switch (type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const session = CheckoutSessionObject.safeParse(object)
      if (!session.success) return ignored
      const s = session.data
      // "paid", or "no_payment_required" (a trial): both start the subscription; "unpaid" waits for async_payment_succeeded.
      const paid = s.payment_status !== 'unpaid'
      return { id, kind: 'checkout.completed', providerType: type, tenantId: tenantOf(s.metadata?.tenantId ?? s.client_reference_id), sessionId: s.id, subscription: idOf(s.subscription), paid, periodEnd: null }
    }
    case 'checkout.session.expired': {
      const session = CheckoutSessionObject.safeParse(object)
      if (!session.success) return ignored
      return { id, kind: 'checkout.expired', providerType: type, tenantId: tenantOf(session.data.metadata?.tenantId ?? session.data.client_reference_id), sessionId: session.data.id }
    }
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted': {
      const parsed = SubscriptionObject.safeParse(object)
      if (!parsed.success) return ignored
      const sub = parsed.data
      const item = sub.items?.data[0]
      const priceId = item?.price?.id
      const periodEnd = sub.current_period_end ?? item?.current_period_end ?? null
      const metadataPlan = sub.metadata?.plan
      return {
        id,
        kind: 'subscription.changed',
        providerType: type,
        tenantId: tenantOf(sub.metadata?.tenantId),
        subscription: sub.id,
        status: type === 'customer.subscription.deleted' ? 'cancelled' : statusOf(sub.status),
        plan: (priceId ? planOfPrice(priceId) : null) ?? (metadataPlan === 'team' || metadataPlan === 'business' ? metadataPlan : null),
        seats: item?.quantity ?? null,
        periodEnd: periodEnd === null ? null : new Date(periodEnd * 1000),
      }
    }
    case 'invoice.payment_failed': {
      const parsed = InvoiceObject.safeParse(object)
      if (!parsed.success) return ignored
      const invoice = parsed.data
      const subscription = idOf(invoice.subscription) ?? idOf(invoice.parent?.subscription_details?.subscription)
      if (!subscription) return ignored
      const metadata = invoice.parent?.subscription_details?.metadata ?? invoice.subscription_details?.metadata
      return { id, kind: 'payment.failed', providerType: type, tenantId: tenantOf(metadata?.tenantId), subscription }
    }
    default:
      return ignored
  }
}

/** Stripe's subscription statuses (https://docs.stripe.com/api/subscriptions/object#subscription_object-status) as a licence's. */
function statusOf(status: string): SubscriptionStatus {
  switch (status) {
    case 'active':
      return 'active'
    case 'trialing':
      return 'trialing'
    case 'canceled':
      return 'cancelled'
    case 'incomplete_expired':
    case 'paused':
      return 'expired'
    default:
      // past_due, unpaid, incomplete: the payment has not come through.
      return 'past_due'
  }
}

function idOf(value: string | { id: string } | null | undefined): string | null {
  if (!value) return null
  return typeof value === 'string' ? value : value.id
}

function tenantOf(value: string | null | undefined): string | null {
  return value && isUuid(value) ? value.toLowerCase() : null
}
