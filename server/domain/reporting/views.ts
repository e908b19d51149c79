import { randomUUID } from 'node:crypto'
import { and, asc, eq, or, sql } from 'drizzle-orm'
import { reusableSelect, type ValueOf } from '#server/db/reusable-select'
import { savedViews } from '#server/db/schema-reporting'
import { Problem, problems } from '#server/http/problem'
import type { SavedView } from '~/lib/reporting/types'
import type { DomainContext } from '../tenancy/context'
import { ensure } from './permissions'
import { notFound } from './projects'
import { isUuid } from '~/lib/schemas/uuid'
import { refOf, userRefs, type UserRef } from '../tenancy/user-refs'

export const VIEW_SCOPES = ['personal', 'shared'] as const
export type ViewScope = (typeof VIEW_SCOPES)[number]
export type ViewInput = { name: string; scope: ViewScope; query: string }

const columns = {
  id: savedViews.id,
  name: savedViews.name,
  scope: savedViews.scope,
  query: savedViews.query,
  ownerUserId: savedViews.ownerUserId,
  createdAt: savedViews.createdAt,
  updatedAt: savedViews.updatedAt,
}

type ViewRow = { id: string; name: string; scope: string; query: string; ownerUserId: string; createdAt: Date; updatedAt: Date }

function toView(row: ViewRow, refs: Map<string, UserRef>): SavedView {
  return {
    id: row.id,
    name: row.name,
    scope: row.scope === 'shared' ? 'shared' : 'personal',
    query: row.query,
    owner: refOf(refs, row.ownerUserId),
    createdAtUtc: row.createdAt.toISOString(),
    updatedAtUtc: row.updatedAt.toISOString(),
  } satisfies SavedView
}

async function present(ctx: DomainContext, row: ViewRow): Promise<SavedView> {
  return toView(row, await userRefs(ctx, [row.ownerUserId]))
}

/** What the actor may see: the organisation's shared views and their own personal ones. */
function visible(ctx: DomainContext) {
  return or(eq(savedViews.scope, 'shared'), eq(savedViews.ownerUserId, ctx.actor.userId))
}

/**
 * personal: mine; shared: the organisation's; no scope: both (what a view picker shows). By name.
 */
export async function listViews(ctx: DomainContext, scope: ViewScope | undefined): Promise<SavedView[]> {
  const rows = await viewsStatement(ctx.tx, { tenantId: ctx.actor.tenantId, userId: ctx.actor.userId }, scope ?? 'both')
  const refs = await userRefs(ctx, rows.map((r) => r.ownerUserId))
  return rows.map((row) => toView(row, refs))
}

/** The items screen lists them on every visit: built once for each scope (server/db/reusable-select.ts). */
const viewsStatement = reusableSelect((tx, value: ValueOf<{ tenantId: string; userId: string }>, scope: ViewScope | 'both') => {
  const which =
    scope === 'personal'
      ? and(eq(savedViews.scope, 'personal'), eq(savedViews.ownerUserId, value('userId')))
      : scope === 'shared'
        ? eq(savedViews.scope, 'shared')
        : or(eq(savedViews.scope, 'shared'), eq(savedViews.ownerUserId, value('userId')))
  return tx
    .select(columns)
    .from(savedViews)
    .where(and(eq(savedViews.tenantId, value('tenantId')), which))
    .orderBy(asc(sql`lower(${savedViews.name})`), asc(savedViews.createdAt), asc(savedViews.id))
})

export async function createView(ctx: DomainContext, input: ViewInput): Promise<SavedView> {
  ensure(ctx.actor, input.scope === 'shared' ? 'view.create-shared' : 'view.create-personal')
  const [row] = await ctx.tx
    .insert(savedViews)
    .values({ tenantId: ctx.actor.tenantId, id: randomUUID(), ownerUserId: ctx.actor.userId, ...input, createdAt: ctx.now, updatedAt: ctx.now })
    .returning(columns)
  if (!row) throw new Error('view not stored')
  return present(ctx, row)
}

/** Another member's personal view does not exist for the actor: 404, like an unknown id. */
async function requireVisible(ctx: DomainContext, id: string): Promise<ViewRow> {
  if (!isUuid(id)) throw notFound()
  const [row] = await ctx.tx
    .select(columns)
    .from(savedViews)
    .where(and(eq(savedViews.tenantId, ctx.actor.tenantId), eq(savedViews.id, id), visible(ctx)))
    .for('update')
  if (!row) throw notFound()
  return row
}

/**
 * PUT replaces name, scope and query. A shared view is changed by its owner or an administrator;
 * what comes out shared needs the right to share (so a read-only member cannot publish a personal
 * view); and only the owner may take a shared view private, since it would vanish into the
 * owner's personal list, out of reach of the administrator who did it.
 */
export async function replaceView(ctx: DomainContext, id: string, input: ViewInput): Promise<SavedView> {
  const current = await requireVisible(ctx, id)
  const owned = { createdBy: current.ownerUserId }
  ensure(ctx.actor, 'view.manage', owned)
  if (input.scope === 'shared') ensure(ctx.actor, 'view.create-shared')
  if (current.scope === 'shared' && input.scope === 'personal' && current.ownerUserId !== ctx.actor.userId) {
    throw new Problem(problems.forbidden('Only its owner can make a shared view personal.'))
  }
  const [row] = await ctx.tx
    .update(savedViews)
    .set({ ...input, updatedAt: ctx.now })
    .where(and(eq(savedViews.tenantId, ctx.actor.tenantId), eq(savedViews.id, id)))
    .returning(columns)
  if (!row) throw new Error('view not updated')
  return present(ctx, row)
}

/** A personal view: its owner. A shared view: its owner or an administrator. */
export async function deleteView(ctx: DomainContext, id: string): Promise<void> {
  const current = await requireVisible(ctx, id)
  ensure(ctx.actor, 'view.manage', { createdBy: current.ownerUserId })
  await ctx.tx.delete(savedViews).where(and(eq(savedViews.tenantId, ctx.actor.tenantId), eq(savedViews.id, id)))
}
