import { and, desc, eq, gte, like, lt, or, type SQL } from 'drizzle-orm'
import { memberships, users } from '#server/db/schema'
import { telemetryEvents } from '#server/db/schema-observability'
import { escapeLike } from '#server/domain/documents/search'
import type { DomainContext } from '#server/domain/tenancy/context'
import { pageOf, type Cursor } from '#server/domain/tenancy/paging'
import type { Person } from './frontend-errors'

/**
 * Administration › Telemetry (issue 15): the organisation's usage events, newest first (by
 * arrival), keyset-paged; filters: a name prefix (`web.auth.` for the sign-in area), since, and a
 * visitor or correlation id. `limit=1` is the page's one-row sample on entry (spec §2).
 */

export type TelemetryEventFilters = { name?: string | undefined; since?: Date | undefined; visitor?: string | undefined }

const te = telemetryEvents

export async function listTelemetryEvents(ctx: DomainContext, filters: TelemetryEventFilters, page: { after: Cursor | undefined; limit: number }) {
  const where: SQL | undefined = and(
    eq(te.tenantId, ctx.actor.tenantId),
    filters.name ? like(te.name, `${escapeLike(filters.name)}%`) : undefined,
    filters.since ? gte(te.receivedAt, filters.since) : undefined,
    filters.visitor ? or(eq(te.visitorId, filters.visitor), eq(te.correlationId, filters.visitor)) : undefined,
    page.after ? or(lt(te.receivedAt, page.after.createdAt), and(eq(te.receivedAt, page.after.createdAt), lt(te.id, page.after.id))) : undefined,
  )
  const rows = await ctx.tx
    .select({
      id: te.id,
      name: te.name,
      properties: te.properties,
      source: te.source,
      occurredAt: te.occurredAt,
      createdAt: te.receivedAt,
      visitorId: te.visitorId,
      correlationId: te.correlationId,
      userId: te.userId,
      displayName: users.displayName,
      email: users.email,
    })
    .from(te)
    .leftJoin(memberships, and(eq(memberships.tenantId, ctx.actor.tenantId), eq(memberships.userId, te.userId)))
    .leftJoin(users, eq(users.id, memberships.userId))
    .where(where)
    .orderBy(desc(te.receivedAt), desc(te.id))
    .limit(page.limit + 1)
  const { rows: shown, nextCursor } = pageOf(rows, page.limit)
  return {
    items: shown.map((row) => ({
      id: row.id,
      name: row.name,
      properties: row.properties,
      source: row.source,
      occurredAtUtc: row.occurredAt.toISOString(),
      receivedAtUtc: row.createdAt.toISOString(),
      visitorId: row.visitorId,
      correlationId: row.correlationId,
      user: row.userId ? ({ id: row.userId, displayName: row.displayName, email: row.email } satisfies Person) : null,
    })),
    nextCursor,
  }
}

