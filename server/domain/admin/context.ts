import type { Database } from '#server/db/client'
import { onlyAdmins } from '#server/domain/doc-control/workflow-problems'
import { asMember, type DomainContext } from '#server/domain/tenancy/context'

/**
 * The Administration area's calls (issue 13): one tenant transaction as the session's member,
 * refused with 403 unless that member is an administrator of the organisation. Another tenant's
 * ids are simply not visible inside the transaction (row-level security), so they answer 404.
 */
export async function asAdmin<T>(db: Database, session: { tenantId: string; userId: string }, now: Date, work: (ctx: DomainContext) => Promise<T>): Promise<T> {
  return asMember(db, session, now, (ctx) => {
    if (ctx.actor.roleKey !== 'admin') throw onlyAdmins('Only administrators of this organisation can use the Administration area.')
    return work(ctx)
  })
}
