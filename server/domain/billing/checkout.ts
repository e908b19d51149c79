import { and, eq } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { users } from '#server/db/schema'
import { billingCheckouts } from '#server/db/schema-billing'
import { withTenant } from '#server/db/tenancy'
import { recordAuditIn } from '#server/domain/audit'
import { readLicence } from '#server/domain/licensing/licence'
import { asMember, type DomainContext } from '#server/domain/tenancy/context'
import { Problem } from '#server/http/problem'
import type { BillingCheckout, BillingOverview, CheckoutStatus, PurchasablePlanKey } from '~/lib/billing/types'
import { BillingProviderError, type BillingProvider } from './provider'
import { seatsTaken } from '#server/domain/licensing/seats'

/**
 * The web checkout (issue 16, docs/billing.md): an administrator picks a plan and a number of
 * seats, we record the checkout, ask the provider for a hosted session and send the browser there.
 * The provider is called between two short transactions, never inside one: a slow provider must
 * not hold a database connection (PGlite has only one).
 */

export type CheckoutMeta = { ip?: string | undefined; correlationId?: string | undefined; publicUrl: string }
type Session = { tenantId: string; userId: string }

const onlyAdmins = 'Only administrators of this organisation can manage billing.'

/** Seats held and reserved (docs/licensing.md "Seats"): a checkout may not buy fewer. */
async function seatsInUse(ctx: DomainContext): Promise<number> {
  const { used, reserved } = await seatsTaken(ctx.tx, ctx.actor.tenantId, ctx.now)
  return used + reserved
}

export async function billingOverview(db: Database, session: Session, now: Date, provider: BillingProvider | null): Promise<BillingOverview> {
  return asMember(db, session, now, async (ctx) => {
    requireAdmin(ctx)
    return { provider: provider?.name ?? 'none', licence: await readLicence(ctx.tx, ctx.actor.tenantId), seatsInUse: await seatsInUse(ctx) }
  })
}

export async function startCheckout(
  db: Database,
  session: Session,
  now: Date,
  provider: BillingProvider | null,
  order: { plan: PurchasablePlanKey; seats: number },
  meta: CheckoutMeta,
): Promise<BillingCheckout> {
  const opened = await asMember(db, session, now, async (ctx) => {
    requireAdmin(ctx)
    if (!provider) throw notConfigured()
    const active = provider
    const inUse = await seatsInUse(ctx)
    if (order.seats < inUse) {
      throw new Problem({
        status: 400,
        title: 'Invalid request',
        detail: `This organisation already uses ${inUse} seats (active members and pending invites), so it cannot buy fewer.`,
        code: 'KR_VALIDATION',
        remediation: `Choose at least ${inUse} seats, or remove members or cancel invites first.`,
        errors: { seats: [`Choose at least ${inUse} seats: ${inUse} are in use.`] },
      })
    }
    const [row] = await ctx.tx
      .insert(billingCheckouts)
      .values({ tenantId: ctx.actor.tenantId, provider: active.name, plan: order.plan, seats: order.seats, status: 'open', createdBy: ctx.actor.userId, createdAt: ctx.now, updatedAt: ctx.now })
      .returning()
    if (!row) throw new Error('checkout not stored')
    const [user] = await ctx.tx.select({ email: users.email }).from(users).where(eq(users.id, ctx.actor.userId)).limit(1)
    await recordAuditIn(ctx.tx, {
      tenantId: ctx.actor.tenantId,
      actorUserId: ctx.actor.userId,
      action: 'billing.checkout.started',
      targetType: 'BillingCheckout',
      targetId: row.id,
      ip: meta.ip,
      correlationId: meta.correlationId,
      data: { provider: active.name, plan: order.plan, seats: order.seats },
      at: ctx.now,
    })
    return { checkoutId: row.id, email: user?.email ?? null, provider: active }
  })

  const back = (page: 'success' | 'cancel') => `${meta.publicUrl}/settings/billing/${page}?checkoutId=${opened.checkoutId}`
  try {
    const created = await opened.provider.createCheckoutSession({
      tenantId: session.tenantId,
      checkoutId: opened.checkoutId,
      plan: order.plan,
      seats: order.seats,
      successUrl: back('success'),
      cancelUrl: back('cancel'),
      // One checkout row, one provider session: a retry of this create makes no second one.
      idempotencyKey: `checkout-${opened.checkoutId}`,
      customerEmail: opened.email,
    })
    return await withTenant(db, session.tenantId, async (tx) => {
      const [row] = await tx
        .update(billingCheckouts)
        .set({ providerSessionId: created.id, url: created.url, expiresAt: created.expiresAt, updatedAt: now })
        .where(and(eq(billingCheckouts.tenantId, session.tenantId), eq(billingCheckouts.id, opened.checkoutId)))
        .returning()
      if (!row) throw new Error('checkout vanished')
      return present(row)
    })
  } catch (error) {
    if (!(error instanceof BillingProviderError)) throw error
    await withTenant(db, session.tenantId, (tx) =>
      tx.update(billingCheckouts).set({ status: 'failed', updatedAt: now }).where(and(eq(billingCheckouts.tenantId, session.tenantId), eq(billingCheckouts.id, opened.checkoutId))),
    )
    throw new Problem({
      status: 502,
      title: 'Bad Gateway',
      detail: `The payment provider could not start the checkout${error.providerMessage ? `: ${error.providerMessage}` : '.'}`,
      code: 'KR_BILLING_PROVIDER_FAILED',
      remediation: 'Try again in a moment. If it keeps failing, tell whoever runs this portal.',
    })
  }
}

/** GET /api/billing/checkout/session/{checkoutId}: another organisation's id is simply not found. */
export async function readCheckout(db: Database, session: Session, now: Date, checkoutId: string): Promise<BillingCheckout> {
  return asMember(db, session, now, async (ctx) => {
    requireAdmin(ctx)
    const [row] = await ctx.tx
      .select()
      .from(billingCheckouts)
      .where(and(eq(billingCheckouts.tenantId, ctx.actor.tenantId), eq(billingCheckouts.id, checkoutId)))
      .limit(1)
    if (!row) throw new Problem({ status: 404, title: 'Not found', detail: 'There is no such checkout in this organisation.', code: 'KR_NOT_FOUND' })
    return present(row)
  })
}

export function present(row: typeof billingCheckouts.$inferSelect): BillingCheckout {
  return {
    id: row.id,
    plan: row.plan as PurchasablePlanKey,
    seats: row.seats,
    status: row.status as CheckoutStatus,
    url: row.url,
    expiresAtUtc: row.expiresAt?.toISOString() ?? null,
    completedAtUtc: row.completedAt?.toISOString() ?? null,
    createdAtUtc: row.createdAt.toISOString(),
  }
}

function requireAdmin(ctx: DomainContext): void {
  if (ctx.actor.roleKey !== 'admin') throw new Problem({ status: 403, title: 'Forbidden', detail: onlyAdmins, code: 'KR_FORBIDDEN' })
}

function notConfigured(): Problem {
  return new Problem({
    status: 409,
    title: 'Conflict',
    detail: 'Online payment is not set up for this portal.',
    code: 'KR_BILLING_NOT_CONFIGURED',
    remediation: 'Contact whoever runs this portal to change your plan or seats.',
  })
}

