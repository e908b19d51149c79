import { and, count, eq, gt, isNull } from 'drizzle-orm'
import type { Tx } from '#server/db/client'
import { memberships } from '#server/db/schema'
import { invites } from '#server/db/schema-admin'

/**
 * Seats taken in the organisation of the transaction: active members plus pending invites (each
 * reserves a seat, docs/licensing.md). A checkout may not buy fewer. A stand-in until the
 * licensing part's own seat count (server/domain/licensing) replaces it.
 */
export async function seatsInUse(tx: Tx, tenantId: string, now: Date): Promise<number> {
  const [members] = await tx
    .select({ n: count() })
    .from(memberships)
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.status, 'active')))
  const [pending] = await tx
    .select({ n: count() })
    .from(invites)
    .where(and(eq(invites.tenantId, tenantId), isNull(invites.acceptedAt), isNull(invites.cancelledAt), gt(invites.expiresAt, now)))
  return (members?.n ?? 0) + (pending?.n ?? 0)
}
