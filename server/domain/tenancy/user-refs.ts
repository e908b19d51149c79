import { inArray } from 'drizzle-orm'
import { users } from '#server/db/schema'
import type { UserRef } from '~/lib/reporting/types'
import type { DomainContext } from '#server/domain/tenancy/context'

export type { UserRef }

/**
 * The {id, displayName} of each user id, in one query: callers collect every id a page mentions
 * (creators, assignees, actors) and resolve them together, never one per row. Nulls and repeats
 * are fine; an id without a user is simply absent from the map.
 */
export async function userRefs(ctx: DomainContext, ids: (string | null)[]): Promise<Map<string, UserRef>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))]
  if (wanted.length === 0) return new Map()
  const rows = await ctx.tx.select({ id: users.id, displayName: users.displayName }).from(users).where(inArray(users.id, wanted))
  return new Map(rows.map((row) => [row.id, row]))
}

/** The reference for one id of a map made by userRefs: null for no user (never set, or deleted). */
export function refOf(refs: Map<string, UserRef>, id: string | null): UserRef | null {
  return id === null ? null : (refs.get(id) ?? null)
}
