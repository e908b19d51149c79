import { and, desc, eq, gt, isNull } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { users } from '#server/db/schema'
import { licences } from '#server/db/schema-licensing'
import { storeLinkCodes, storeSubscriptions } from '#server/db/schema-store'
import { recordAuditIn } from '#server/domain/audit'
import { applyLicence, readLicence } from '#server/domain/licensing/licence'
import { onlyAdmins } from '#server/domain/doc-control/workflow-problems'
import { recordChange } from '#server/domain/tenancy/change-log'
import { asMember, type DomainContext } from '#server/domain/tenancy/context'
import { Problem } from '#server/http/problem'
import type { LinkCompleteInput } from '~/lib/schemas/store'
import { LINK_CODE_TTL_MS, type LinkCode, type StoreKey, type StoreLinkResult, type StoreOverview, type StoreSubscription } from '~/lib/store/types'
import type { PlanKey } from '~/lib/licensing/plans'
import { configuredStores, storeClient } from './clients'
import { groupedCode, linkCodeHash, newLinkCode } from './link-codes'
import { linkCodeExpired, linkCodeInvalid, linkCodeUsed, linkedElsewhere, onlyAdminOrLinker, productUnknown, purchasePending, storeNotConfigured, storeProblem, subscriptionNotFound } from './problems'
import type { StoreConfig } from './store-config'
import { licenceStatusOf, StoreError, type StoreFacts, type StoreProof } from './store-facts'

/**
 * Linking a subscription bought in a mobile app store (docs/store-subscriptions.md): an
 * administrator starts a link (a code), the buyer's app completes it with the store's proof, and
 * anyone allowed re-checks it with the store. Store calls run between two short transactions,
 * never inside one: a slow store holds no database connection, and a failed one changes nothing.
 */

export type StoreDeps = { db: Database; config: StoreConfig; secret: string; publicUrl: string }
type Session = { tenantId: string; userId: string }
type Meta = { ip: string; correlationId: string }

type SubscriptionRow = typeof storeSubscriptions.$inferSelect

function requireAdmin(ctx: DomainContext): void {
  if (ctx.actor.roleKey !== 'admin') throw onlyAdmins('Only administrators of this organisation can link store subscriptions.')
}

function anyStore(config: StoreConfig): boolean {
  return config.apple !== undefined || config.google !== undefined
}

/** POST /api/iap/link/start: a new code for the organisation; older unused codes stop working. */
export async function startLink(deps: StoreDeps, session: Session, now: Date, meta: Meta): Promise<LinkCode> {
  return asMember(deps.db, session, now, async (ctx) => {
    requireAdmin(ctx)
    if (!anyStore(deps.config)) throw new Problem(storeNotConfigured())
    const { tenantId, userId } = ctx.actor
    await ctx.tx
      .update(storeLinkCodes)
      .set({ usedAt: now })
      .where(and(eq(storeLinkCodes.tenantId, tenantId), isNull(storeLinkCodes.usedAt), gt(storeLinkCodes.expiresAt, now)))
    const code = newLinkCode()
    const expiresAt = new Date(now.getTime() + LINK_CODE_TTL_MS)
    await ctx.tx.insert(storeLinkCodes).values({ tenantId, codeHash: linkCodeHash(deps.secret, code), createdBy: userId, createdAt: now, expiresAt })
    await recordAuditIn(ctx.tx, { tenantId, actorUserId: userId, action: 'billing.store.link-started', ip: meta.ip, correlationId: meta.correlationId, at: now, data: { expiresAtUtc: expiresAt.toISOString() } })
    const shown = groupedCode(code)
    return { code: shown, link: `${deps.publicUrl}/settings/link?code=${shown}`, createdAtUtc: now.toISOString(), expiresAtUtc: expiresAt.toISOString() }
  })
}

/** POST /api/iap/link/complete: the buyer's app links its purchase with the code. */
export async function completeLink(deps: StoreDeps, session: Session, now: Date, input: LinkCompleteInput, meta: Meta): Promise<StoreLinkResult> {
  const client = storeClient(deps.config, input.store)
  if (!client) throw new Problem(storeNotConfigured(input.store))
  if (!deps.config.products[input.productId]) throw new Problem(productUnknown(input.productId))
  const codeHash = linkCodeHash(deps.secret, input.code)

  // A first look at the code, so a wrong one never reaches the store.
  await asMember(deps.db, session, now, (ctx) => liveCode(ctx, codeHash))
  const facts = await askStore(input.store, () => client.lookUp(proofOf(input), input.productId, now))
  if (facts.state === 'pending') throw new Problem(purchasePending())

  return asMember(deps.db, session, now, async (ctx) => {
    const code = await liveCode(ctx, codeHash, true)
    const row = await bindSubscription(ctx, facts, deps.config)
    await ctx.tx
      .update(storeLinkCodes)
      .set({ usedAt: now, usedBy: ctx.actor.userId, subscriptionId: row.id })
      .where(and(eq(storeLinkCodes.tenantId, ctx.actor.tenantId), eq(storeLinkCodes.id, code.id)))
    const licence = await applyFrom(ctx, row)
    await recordAuditIn(ctx.tx, {
      tenantId: ctx.actor.tenantId,
      actorUserId: ctx.actor.userId,
      action: 'billing.store.linked',
      targetType: 'StoreSubscription',
      targetId: row.id,
      ip: meta.ip,
      correlationId: meta.correlationId,
      at: now,
      data: { store: row.store, productId: row.productId, state: row.state, plan: row.plan, seats: row.seats },
    })
    return { subscription: await present(ctx, row), licence, licenceApplied: true }
  })
}

/** POST /api/iap/verify: asks the store now and updates the subscription (and the licence it gives). */
export async function verifySubscription(deps: StoreDeps, session: Session, now: Date, subscriptionId: string, meta: Meta): Promise<StoreLinkResult> {
  const found = await asMember(deps.db, session, now, async (ctx) => {
    const row = await subscriptionById(ctx, subscriptionId)
    if (ctx.actor.roleKey !== 'admin' && row.linkedBy !== ctx.actor.userId) throw new Problem(onlyAdminOrLinker())
    return row
  })
  const client = storeClient(deps.config, found.store as StoreKey)
  if (!client) throw new Problem(storeNotConfigured(found.store as StoreKey))
  const facts = await askStore(found.store as StoreKey, () => client.recheck(found.storeReference, now))

  return asMember(deps.db, session, now, async (ctx) => {
    const current = await subscriptionById(ctx, subscriptionId)
    const product = deps.config.products[facts.productId]
    const [row] = await ctx.tx
      .update(storeSubscriptions)
      .set({ ...stateOf(facts), ...(product && { plan: product.plan, seats: product.seats }), lastVerifiedAt: now, updatedAt: now })
      .where(and(eq(storeSubscriptions.tenantId, ctx.actor.tenantId), eq(storeSubscriptions.id, current.id)))
      .returning()
    if (!row) throw new Problem(subscriptionNotFound())
    // The licence follows this subscription only while it comes from it: a web checkout or an
    // operator's change made since is not overwritten by a re-check.
    const isSource = await isLicenceSource(ctx, row)
    const licence = isSource ? await applyFrom(ctx, row) : await readLicence(ctx.tx, ctx.actor.tenantId)
    await recordAuditIn(ctx.tx, {
      tenantId: ctx.actor.tenantId,
      actorUserId: ctx.actor.userId,
      action: 'billing.store.verified',
      targetType: 'StoreSubscription',
      targetId: row.id,
      ip: meta.ip,
      correlationId: meta.correlationId,
      at: now,
      data: { state: row.state, expiresAtUtc: row.expiresAt?.toISOString() ?? null, licenceApplied: isSource },
    })
    return { subscription: await present(ctx, row), licence, licenceApplied: isSource }
  })
}

/** GET /api/iap/subscriptions: what /settings/link shows its administrators. */
export async function storeOverview(deps: StoreDeps, session: Session, now: Date): Promise<StoreOverview> {
  return asMember(deps.db, session, now, async (ctx) => {
    requireAdmin(ctx)
    const [code] = await ctx.tx
      .select({ expiresAt: storeLinkCodes.expiresAt })
      .from(storeLinkCodes)
      .where(and(eq(storeLinkCodes.tenantId, ctx.actor.tenantId), isNull(storeLinkCodes.usedAt), gt(storeLinkCodes.expiresAt, now)))
      .orderBy(desc(storeLinkCodes.expiresAt))
      .limit(1)
    const rows = await ctx.tx.select().from(storeSubscriptions).where(eq(storeSubscriptions.tenantId, ctx.actor.tenantId)).orderBy(desc(storeSubscriptions.linkedAt)).limit(100)
    const subscriptions: StoreSubscription[] = []
    for (const row of rows) subscriptions.push(await present(ctx, row))
    return { stores: configuredStores(deps.config), liveCodeExpiresAtUtc: code?.expiresAt.toISOString() ?? null, subscriptions }
  })
}

// ---- Steps ----

/** The code's row if it can still link; otherwise the problem that says why not. */
async function liveCode(ctx: DomainContext, codeHash: string, lock = false) {
  const query = ctx.tx
    .select({ id: storeLinkCodes.id, usedAt: storeLinkCodes.usedAt, expiresAt: storeLinkCodes.expiresAt })
    .from(storeLinkCodes)
    .where(and(eq(storeLinkCodes.tenantId, ctx.actor.tenantId), eq(storeLinkCodes.codeHash, codeHash)))
    .limit(1)
  const [code] = lock ? await query.for('update') : await query
  if (!code) throw new Problem(linkCodeInvalid())
  if (code.usedAt) throw new Problem(linkCodeUsed())
  if (code.expiresAt <= ctx.now) throw new Problem(linkCodeExpired())
  return code
}

async function askStore(store: StoreKey, call: () => Promise<StoreFacts>): Promise<StoreFacts> {
  try {
    return await call()
  } catch (error) {
    if (error instanceof StoreError) throw new Problem(storeProblem(store, error.failure))
    throw error
  }
}

function proofOf(input: LinkCompleteInput): StoreProof {
  return input.store === 'apple' ? { store: 'apple', transactionId: input.transactionId } : { store: 'google', purchaseToken: input.purchaseToken, packageName: input.packageName }
}

function stateOf(facts: StoreFacts) {
  return {
    productId: facts.productId,
    environment: facts.environment,
    state: facts.state,
    expiresAt: facts.expiresAt,
    autoRenew: facts.autoRenew,
    latestTransactionId: facts.latestTransactionId,
  }
}

/**
 * Binds the store's subscription to this organisation: updates it when the organisation has it
 * already, inserts it otherwise. The unique index on (store, subscription_key) spans every
 * organisation, so an insert that changes nothing means another organisation has it.
 */
async function bindSubscription(ctx: DomainContext, facts: StoreFacts, config: StoreConfig): Promise<SubscriptionRow> {
  const product = config.products[facts.productId]
  if (!product) throw new Problem(productUnknown(facts.productId))
  const { tenantId, userId } = ctx.actor
  const values = { ...stateOf(facts), storeReference: facts.storeReference, plan: product.plan, seats: product.seats, linkedBy: userId, linkedAt: ctx.now, lastVerifiedAt: ctx.now, updatedAt: ctx.now }
  const [updated] = await ctx.tx
    .update(storeSubscriptions)
    .set(values)
    .where(and(eq(storeSubscriptions.tenantId, tenantId), eq(storeSubscriptions.store, facts.store), eq(storeSubscriptions.subscriptionKey, facts.subscriptionKey)))
    .returning()
  if (updated) return updated
  const [inserted] = await ctx.tx
    .insert(storeSubscriptions)
    .values({ tenantId, store: facts.store, subscriptionKey: facts.subscriptionKey, ...values, createdAt: ctx.now })
    .onConflictDoNothing()
    .returning()
  if (!inserted) throw new Problem(linkedElsewhere())
  return inserted
}

function referenceOf(row: Pick<SubscriptionRow, 'store' | 'subscriptionKey'>): string {
  return `${row.store}:${row.subscriptionKey}`
}

async function applyFrom(ctx: DomainContext, row: SubscriptionRow) {
  const licence = await applyLicence(
    ctx.tx,
    ctx.actor.tenantId,
    { plan: row.plan as PlanKey, seats: row.seats, validUntil: row.expiresAt, status: licenceStatusOf(row.state as StoreFacts['state']), source: 'store', reference: referenceOf(row) },
    ctx.now,
  )
  await recordChange(ctx, 'Organisation', ctx.actor.tenantId, 'Updated')
  return licence
}

async function licenceReference(ctx: DomainContext): Promise<string | null> {
  const [row] = await ctx.tx.select({ source: licences.source, reference: licences.reference }).from(licences).where(eq(licences.tenantId, ctx.actor.tenantId)).limit(1)
  return row?.source === 'store' ? row.reference : null
}

async function isLicenceSource(ctx: DomainContext, row: SubscriptionRow): Promise<boolean> {
  return (await licenceReference(ctx)) === referenceOf(row)
}

async function subscriptionById(ctx: DomainContext, id: string): Promise<SubscriptionRow> {
  const [row] = await ctx.tx
    .select()
    .from(storeSubscriptions)
    .where(and(eq(storeSubscriptions.tenantId, ctx.actor.tenantId), eq(storeSubscriptions.id, id)))
    .limit(1)
  if (!row) throw new Problem(subscriptionNotFound())
  return row
}

async function present(ctx: DomainContext, row: SubscriptionRow): Promise<StoreSubscription> {
  const [linker] = await ctx.tx.select({ displayName: users.displayName }).from(users).where(eq(users.id, row.linkedBy)).limit(1)
  return {
    id: row.id,
    store: row.store as StoreKey,
    productId: row.productId,
    plan: row.plan as PlanKey,
    seats: row.seats,
    environment: row.environment,
    state: row.state as StoreSubscription['state'],
    licenceStatus: licenceStatusOf(row.state as StoreSubscription['state']),
    expiresAtUtc: row.expiresAt?.toISOString() ?? null,
    autoRenew: row.autoRenew,
    linkedAtUtc: row.linkedAt.toISOString(),
    linkedBy: { id: row.linkedBy, displayName: linker?.displayName ?? 'A former member' },
    lastVerifiedAtUtc: row.lastVerifiedAt.toISOString(),
    isLicenceSource: (await licenceReference(ctx)) === referenceOf(row),
  }
}
