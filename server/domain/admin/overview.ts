import { and, eq, gt, isNull, sql } from 'drizzle-orm'
import { mailOutbox, memberships, users } from '#server/db/schema'
import { invites, joinRequests } from '#server/db/schema-admin'
import { seatStanding } from '#server/domain/licensing/seats'
import { quotaUse } from '#server/domain/uploads/quota'
import type { DomainContext } from '#server/domain/tenancy/context'
import type { AdminOverview } from '~/lib/schemas/admin-retention'
import { retentionHealth } from '../config/retention'

const count = sql<number>`count(*)`.mapWith(Number)

/**
 * The control panel's figures (docs/admin/shell-and-retention.md "Control panel"), counted
 * straight from the tables in the admin's tenant transaction: active people, the seats as
 * licensing answers them (seatStanding), pending invites and join requests, failed mail, storage as
 * the quota counts it (server/domain/photos/quota.ts) and the retention health.
 */
export async function adminOverview(ctx: DomainContext): Promise<Omit<AdminOverview, 'demoAccounts'>> {
  const tenantId = ctx.actor.tenantId
  const [people] = await ctx.tx
    .select({
      active: sql<number>`count(*) filter (where ${users.status} = 'active')`.mapWith(Number),
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.status, 'active')))
  const [pendingInvites] = await ctx.tx
    .select({ n: count })
    .from(invites)
    .where(and(eq(invites.tenantId, tenantId), isNull(invites.acceptedAt), isNull(invites.cancelledAt), gt(invites.expiresAt, ctx.now)))
  const [pendingJoinRequests] = await ctx.tx
    .select({ n: count })
    .from(joinRequests)
    .where(and(eq(joinRequests.tenantId, tenantId), eq(joinRequests.status, 'pending')))
  const [failingMail] = await ctx.tx
    .select({ n: count })
    .from(mailOutbox)
    .where(and(eq(mailOutbox.tenantId, tenantId), eq(mailOutbox.status, 'dead')))
  const storage = await quotaUse(ctx)
  return {
    activeUsers: people?.active ?? 0,
    seats: await seatStanding(ctx),
    pendingInvites: pendingInvites?.n ?? 0,
    pendingJoinRequests: pendingJoinRequests?.n ?? 0,
    failingMail: failingMail?.n ?? 0,
    storageUsedBytes: storage.usedBytes,
    storageQuotaBytes: storage.quotaBytes,
    retention: await retentionHealth(ctx),
  }
}
