import { and, asc, eq, sql } from 'drizzle-orm'
import { memberships, users } from '#server/db/schema'
import { reusableSelect, type ValueOf } from '#server/db/reusable-select'
import type { Member } from '~/lib/reporting/types'
import type { DomainContext } from '../tenancy/context'

/**
 * The organisation's active members, the people items can be assigned to: an active membership
 * of an active user (a blocked or inactive account cannot sign in to act on anything).
 */
export async function listMembers(ctx: DomainContext): Promise<Member[]> {
  const rows = await membersStatement(ctx.tx, { tenantId: ctx.actor.tenantId })
  return rows.map((row) => ({ ...row, roleKey: roleKeyOf(row.roleKey) }) satisfies Member)
}

/** Every items screen and item page lists them (the assignee choices): built once (server/db/reusable-select.ts). */
const membersStatement = reusableSelect((tx, value: ValueOf<{ tenantId: string }>) =>
  tx
    .select({ userId: users.id, displayName: users.displayName, email: users.email, roleKey: memberships.roleKey })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.tenantId, value('tenantId')), eq(memberships.status, 'active'), eq(users.status, 'active')))
    .orderBy(asc(sql`lower(${users.displayName})`), asc(users.id)),
)

function roleKeyOf(value: string): Member['roleKey'] {
  return value === 'admin' || value === 'read-write' ? value : 'read-only'
}
