import { and, eq } from 'drizzle-orm'
import type { Database, Tx } from '#server/db/client'
import { tenants } from '#server/db/schema'
import { billingCheckouts, billingWebhookEvents } from '#server/db/schema-billing'
import { licences } from '#server/db/schema-licensing'
import { withTenant } from '#server/db/tenancy'
import { recordAuditIn } from '#server/domain/audit'
import { applyLicence, readLicence } from '#server/domain/licensing/licence'
import { recordChange } from '#server/domain/tenancy/change-log'
import type { Logger } from '#server/http/logger'
import { Problem } from '#server/http/problem'
import type { WebhookReceipt } from '~/lib/billing/types'
import type { PlanKey } from '~/lib/licensing/plans'
import type { BillingEvent, BillingProvider } from './provider'

/**
 * The payment provider's webhook (POST /api/billing/webhooks/{provider}): the only way a checkout
 * completes and a licence changes (never the browser's return to the success page). In order:
 * the signature and its timestamp (forged or stale → 400, nothing stored); then the event id,
 * recorded in the same transaction as the change it makes, so a replay finds it and changes
 * nothing; then the change itself, inside the organisation the event names — row-level security
 * keeps an event naming one organisation from touching another's checkout.
 */

export type WebhookOutcome =
  | 'activated'
  | 'updated'
  | 'already-processed'
  | 'no-matching-checkout'
  | 'no-matching-subscription'
  | 'not-paid-yet'
  | 'expired'
  | 'ignored'

export async function receiveWebhook(
  deps: { db: Database; now: () => Date; log: Logger },
  provider: BillingProvider,
  rawBody: string,
  headers: Headers,
  meta: { correlationId?: string | undefined },
): Promise<WebhookReceipt> {
  const at = deps.now()
  const verdict = provider.verifyWebhook(rawBody, headers, at)
  if (!verdict.ok) {
    deps.log.warn({ provider: provider.name, reason: verdict.reason }, 'billing webhook refused')
    throw new Problem({
      status: 400,
      title: 'Invalid request',
      detail: verdict.detail,
      code: verdict.reason === 'timestamp' ? 'KR_WEBHOOK_STALE' : verdict.reason === 'signature' ? 'KR_WEBHOOK_SIGNATURE_INVALID' : 'KR_WEBHOOK_PAYLOAD_INVALID',
    })
  }
  const event = verdict.event
  const tenantId = event.tenantId && (await tenantExists(deps.db, event.tenantId)) ? event.tenantId : null
  if (!tenantId) {
    // Nothing of ours to change; remembered so a replay answers the same.
    const fresh = await claimEvent(deps.db, provider, event, null, 'ignored')
    return { received: true, outcome: fresh ? 'ignored' : 'already-processed' }
  }
  const outcome = await withTenant(deps.db, tenantId, async (tx) => {
    // Claimed first, in the transaction of the change: a concurrent replay waits on the unique key, then finds it taken.
    if (!(await claimEvent(tx, provider, event, tenantId, 'processing'))) throw new AlreadyProcessed()
    const result = await apply({ tx, tenantId, at, provider, correlationId: meta.correlationId }, event)
    await tx
      .update(billingWebhookEvents)
      .set({ outcome: result })
      .where(and(eq(billingWebhookEvents.provider, provider.name), eq(billingWebhookEvents.eventId, event.id)))
    return result
  }).catch((error: unknown) => {
    if (error instanceof AlreadyProcessed) return 'already-processed' as const
    throw error
  })
  deps.log.info({ provider: provider.name, eventId: event.id, type: event.providerType, tenantId, outcome }, 'billing webhook processed')
  return { received: true, outcome }
}

type Ctx = { tx: Tx; tenantId: string; at: Date; provider: BillingProvider; correlationId: string | undefined }

async function apply(ctx: Ctx, event: BillingEvent): Promise<WebhookOutcome> {
  switch (event.kind) {
    case 'checkout.completed':
      return completeCheckout(ctx, event)
    case 'checkout.expired':
      return expireCheckout(ctx, event.sessionId)
    case 'subscription.changed':
      return changeSubscription(ctx, event.subscription, (licence) => ({
        plan: event.plan ?? licence.plan,
        seats: event.seats ?? licence.seats,
        validUntil: event.periodEnd ?? (licence.validUntilUtc ? new Date(licence.validUntilUtc) : null),
        status: event.status,
      }))
    case 'payment.failed':
      return changeSubscription(ctx, event.subscription, (licence) => ({
        plan: licence.plan,
        seats: licence.seats,
        validUntil: licence.validUntilUtc ? new Date(licence.validUntilUtc) : null,
        status: 'past_due',
      }))
    case 'ignored':
      return 'ignored'
  }
}

async function completeCheckout(ctx: Ctx, event: Extract<BillingEvent, { kind: 'checkout.completed' }>): Promise<WebhookOutcome> {
  const checkout = await checkoutOf(ctx, event.sessionId)
  if (!checkout) return 'no-matching-checkout'
  if (checkout.status === 'completed') return 'already-processed'
  if (!event.paid) return 'not-paid-yet'
  // What was bought is what our own row says, not what the event claims.
  const validUntil = event.periodEnd ?? oneMonthAfter(ctx.at)
  const reference = event.subscription ?? event.sessionId
  const licence = await applyLicence(ctx.tx, ctx.tenantId, { plan: checkout.plan as PlanKey, seats: checkout.seats, validUntil, status: 'active', source: 'checkout', reference }, ctx.at)
  await ctx.tx
    .update(billingCheckouts)
    .set({ status: 'completed', completedAt: ctx.at, subscriptionReference: event.subscription, updatedAt: ctx.at })
    .where(and(eq(billingCheckouts.tenantId, ctx.tenantId), eq(billingCheckouts.id, checkout.id)))
  await audit(ctx, 'billing.checkout.completed', { checkoutId: checkout.id, eventId: event.id, plan: licence.plan, seats: licence.seats, validUntilUtc: licence.validUntilUtc })
  return 'activated'
}

async function expireCheckout(ctx: Ctx, sessionId: string): Promise<WebhookOutcome> {
  const checkout = await checkoutOf(ctx, sessionId)
  if (!checkout) return 'no-matching-checkout'
  if (checkout.status !== 'open') return 'ignored'
  await ctx.tx.update(billingCheckouts).set({ status: 'expired', updatedAt: ctx.at }).where(and(eq(billingCheckouts.tenantId, ctx.tenantId), eq(billingCheckouts.id, checkout.id)))
  return 'expired'
}

type Licence = Awaited<ReturnType<typeof readLicence>>

/** A subscription event changes the licence only while that subscription is the one it came from. */
async function changeSubscription(
  ctx: Ctx,
  subscription: string,
  next: (licence: Licence) => { plan: PlanKey; seats: number; validUntil: Date | null; status: Licence['status'] },
): Promise<WebhookOutcome> {
  const licence = await readLicence(ctx.tx, ctx.tenantId)
  const reference = await licenceReference(ctx)
  if (licence.source !== 'checkout' || reference !== subscription) return 'no-matching-subscription'
  const change = next(licence)
  const updated = await applyLicence(ctx.tx, ctx.tenantId, { ...change, source: 'checkout', reference: subscription }, ctx.at)
  await audit(ctx, 'billing.licence.changed', { subscription, plan: updated.plan, seats: updated.seats, status: updated.status, validUntilUtc: updated.validUntilUtc })
  return 'updated'
}

async function licenceReference(ctx: Ctx): Promise<string | null> {
  const [row] = await ctx.tx.select({ reference: licences.reference }).from(licences).where(eq(licences.tenantId, ctx.tenantId)).limit(1)
  return row?.reference ?? null
}

async function checkoutOf(ctx: Ctx, sessionId: string) {
  const [row] = await ctx.tx
    .select()
    .from(billingCheckouts)
    .where(and(eq(billingCheckouts.tenantId, ctx.tenantId), eq(billingCheckouts.provider, ctx.provider.name), eq(billingCheckouts.providerSessionId, sessionId)))
    .limit(1)
    .for('update')
  return row
}

/** The provider's doing, not a person's: audited and announced (realtime `Organisation`) without an actor. */
async function audit(ctx: Ctx, action: 'billing.checkout.completed' | 'billing.licence.changed', data: Record<string, unknown>): Promise<void> {
  await recordAuditIn(ctx.tx, { tenantId: ctx.tenantId, action, targetType: 'Organisation', targetId: ctx.tenantId, correlationId: ctx.correlationId, data: { provider: ctx.provider.name, ...data }, at: ctx.at })
  // An empty user id: the change names nobody (server/realtime/portal-hub.ts reads it as no one).
  const actor = { tenantId: ctx.tenantId, userId: '', roleKey: 'admin' as const }
  await recordChange({ tx: ctx.tx, actor, now: ctx.at }, 'Organisation', ctx.tenantId, 'Updated')
}

/** Records the event; false when it was already there (a replay). */
async function claimEvent(db: Database | Tx, provider: BillingProvider, event: BillingEvent, tenantId: string | null, outcome: WebhookOutcome | 'processing'): Promise<boolean> {
  const claimed = await db
    .insert(billingWebhookEvents)
    .values({ provider: provider.name, eventId: event.id, type: event.providerType, tenantId, outcome })
    .onConflictDoNothing()
    .returning({ eventId: billingWebhookEvents.eventId })
  return claimed.length > 0
}

async function tenantExists(db: Database, tenantId: string): Promise<boolean> {
  const [row] = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenantId)).limit(1)
  return Boolean(row)
}

class AlreadyProcessed extends Error {}

function oneMonthAfter(at: Date): Date {
  const next = new Date(at)
  next.setUTCMonth(next.getUTCMonth() + 1)
  return next
}
