import { and, asc, eq, gt, lte, sql } from 'drizzle-orm'
import { auditChainHeads, auditEvents } from '#server/db/schema'
import { recordAuditIn } from '#server/domain/audit'
import type { DomainContext } from '#server/domain/tenancy/context'
import type { RequestOrigin } from './audit'

/**
 * The audit chain check (docs/admin/audit.md "Verifying the chain"). The tenant's entries are
 * walked in chain_seq order, a batch at a time; for each the database recomputes
 * audit_entry_hash(prev_hash, entry), the very function the insert trigger used, so nothing
 * about the hashing is repeated here. The first entry that does not hold is reported:
 * - missing-entry: its chain_seq is not the one after the previous entry's (entries removed);
 * - link-mismatch: its prev_hash is not the previous entry's hash (an entry before it rewritten
 *   with a recomputed hash, or entries removed and renumbered);
 * - hash-mismatch: its stored hash is not the hash of its fields (the entry was changed);
 * - head-mismatch: the last entry is not the one the chain head (audit_chain_heads) points at
 *   (the newest entries removed, or the head rewritten).
 */

export const VERIFY_BATCH = 1000

export type BrokenReason = 'hash-mismatch' | 'link-mismatch' | 'missing-entry' | 'head-mismatch'

export type ChainBreak = {
  /** The entry where the chain breaks (for head-mismatch: the head's position). */
  chainSeq: number
  /** That entry's id; null when there is no entry at that position (the head points past the last one). */
  id: string | null
  reason: BrokenReason
  /** In words, for the screen and the audit record. */
  detail: string
}

export type ChainVerification = {
  ok: boolean
  /** Entries whose hash and link were checked. */
  checked: number
  /** The chain head's position when the check started (0 when the organisation has no entries). */
  headSeq: number
  firstBroken: ChainBreak | null
  verifiedAtUtc: string
}

/**
 * Walks the chain up to the head as read when the check starts: entries written meanwhile are
 * after it and are not part of this check, so a busy log does not read as broken.
 */
export async function walkAuditChain(ctx: DomainContext, batchSize = VERIFY_BATCH): Promise<Omit<ChainVerification, 'verifiedAtUtc'>> {
  const tenantId = ctx.actor.tenantId
  // audit_chain_heads has no tenant column (its key is the tenant id, or 'global'): it has no row-level
  // security, and the application role may read it. Only this tenant's head is asked for.
  const [head] = await ctx.tx.select({ seq: auditChainHeads.seq, hash: auditChainHeads.hash }).from(auditChainHeads).where(eq(auditChainHeads.chainKey, tenantId))
  const headSeq = head?.seq ?? 0
  let checked = 0
  let previous: { seq: number; hash: string | null; id: string | null } = { seq: 0, hash: null, id: null }
  const broken = (chainSeq: number, id: string | null, reason: BrokenReason, detail: string) => ({ ok: false, checked, headSeq, firstBroken: { chainSeq, id, reason, detail } })

  for (;;) {
    const rows = await ctx.tx
      .select({
        id: auditEvents.id,
        seq: auditEvents.chainSeq,
        prevHash: auditEvents.prevHash,
        hash: auditEvents.hash,
        recomputed: sql<string>`audit_entry_hash(${auditEvents.prevHash}, ${auditEvents})`,
      })
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, tenantId), gt(auditEvents.chainSeq, previous.seq), lte(auditEvents.chainSeq, headSeq)))
      .orderBy(asc(auditEvents.chainSeq))
      .limit(batchSize)
    for (const row of rows) {
      const seq = row.seq ?? 0
      if (seq !== previous.seq + 1) {
        const missing = seq - previous.seq - 1
        return broken(
          seq,
          row.id,
          'missing-entry',
          missing === 1 ? `Entry ${previous.seq + 1} is missing before this one.` : `Entries ${previous.seq + 1}–${seq - 1} are missing before this one.`,
        )
      }
      if ((row.prevHash ?? null) !== previous.hash)
        return broken(seq, row.id, 'link-mismatch', `This entry does not link to entry ${previous.seq}: the entry before it was changed or replaced.`)
      if (row.hash !== row.recomputed) return broken(seq, row.id, 'hash-mismatch', 'This entry was changed after it was written: its fields no longer give its hash.')
      checked++
      previous = { seq, hash: row.hash, id: row.id }
    }
    if (rows.length < batchSize) break
  }

  if (previous.seq !== headSeq) {
    return broken(headSeq, null, 'head-mismatch', `The chain ends at entry ${previous.seq}, but its head records entry ${headSeq}: the newest entries were removed.`)
  }
  if (head && (head.hash ?? null) !== previous.hash) {
    return broken(headSeq, previous.id, 'head-mismatch', `The last entry is not the one the chain head records: it was replaced.`)
  }
  return { ok: true, checked, headSeq, firstBroken: null }
}

/** The check, then its own audit entry: written after the walk, so it is not part of what was checked. */
export async function verifyAuditChain(ctx: DomainContext, origin: RequestOrigin): Promise<ChainVerification> {
  const result = { ...(await walkAuditChain(ctx)), verifiedAtUtc: ctx.now.toISOString() }
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action: 'admin.audit.verified',
    targetType: 'AuditLog',
    targetId: ctx.actor.tenantId,
    ip: origin.ip,
    correlationId: origin.correlationId,
    data: {
      ok: result.ok,
      checked: result.checked,
      headSeq: result.headSeq,
      firstBroken: result.firstBroken && { chainSeq: result.firstBroken.chainSeq, id: result.firstBroken.id, reason: result.firstBroken.reason },
    },
    at: ctx.now,
  })
  return result
}
