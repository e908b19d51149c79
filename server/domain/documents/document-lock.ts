import { and, eq, ne, or, sql } from 'drizzle-orm'
import { transmittalRevisions, transmittals } from '#server/db/schema-doc-control'
import { documentRevisions } from '#server/db/schema-documents'
import { numberLocked, type LockFacts } from './rule-book'
import type { DomainContext } from '../tenancy/context'
import type { CdeState } from '~/lib/documents/types'
import type { DocumentRow } from './places'

/**
 * What the rule book needs to know to lock a document's number (rule-book.ts `numberLocked`):
 * whether any revision of it was ever published (a C revision or a published suitability), and
 * whether any revision of it left in a sent transmittal.
 */
export async function lockFactsOf(ctx: DomainContext, doc: Pick<DocumentRow, 'id' | 'state'>): Promise<LockFacts> {
  const [published] = await ctx.tx
    .select({ one: sql<number>`1` })
    .from(documentRevisions)
    .where(
      and(
        eq(documentRevisions.tenantId, ctx.actor.tenantId),
        eq(documentRevisions.documentId, doc.id),
        or(sql`${documentRevisions.code} like 'C%'`, sql`${documentRevisions.status} ~ '^(A|B)[0-9]$|^CR$'`),
      ),
    )
    .limit(1)
  const [sent] = await ctx.tx
    .select({ one: sql<number>`1` })
    .from(transmittalRevisions)
    .innerJoin(transmittals, and(eq(transmittals.tenantId, transmittalRevisions.tenantId), eq(transmittals.id, transmittalRevisions.transmittalId)))
    .where(and(eq(transmittalRevisions.tenantId, ctx.actor.tenantId), eq(transmittalRevisions.documentId, doc.id), ne(transmittals.status, 'draft')))
    .limit(1)
  return { state: doc.state as CdeState, everPublished: published !== undefined, everSent: sent !== undefined }
}

export async function isNumberLocked(ctx: DomainContext, doc: Pick<DocumentRow, 'id' | 'state'>): Promise<boolean> {
  return numberLocked(await lockFactsOf(ctx, doc))
}
