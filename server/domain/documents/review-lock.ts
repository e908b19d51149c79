import { and, eq } from 'drizzle-orm'
import { workflowRevisions, workflows } from '#server/db/schema-doc-control'
import type { DomainContext } from '#server/domain/tenancy/context'
import { Problem } from '#server/http/problem'

/**
 * Revisions under an active review are locked (docs/doc-control.md "Workflow"): a new revision of
 * their document is refused until the review is returned, approved or cancelled. The documents'
 * revision calls run this (starting an upload, and again under the document's lock when it
 * completes); it lives with the documents, which must not load the workflows
 * (server/domain/doc-control builds on server/domain/documents, never the other way).
 */
export async function ensureNotUnderReview(ctx: DomainContext, documentId: string): Promise<void> {
  const [active] = await ctx.tx
    .select({ id: workflows.id })
    .from(workflowRevisions)
    .innerJoin(workflows, and(eq(workflows.tenantId, workflowRevisions.tenantId), eq(workflows.id, workflowRevisions.workflowId)))
    .where(
      and(eq(workflowRevisions.tenantId, ctx.actor.tenantId), eq(workflowRevisions.documentId, documentId), eq(workflowRevisions.current, true), eq(workflows.status, 'active')),
    )
    .limit(1)
  if (active) throw underReview('This document is under review: a new revision waits until the review is returned, approved or cancelled.')
}

/** A document already under review (or returned and waiting for its author), or a revision locked by one. */
export function underReview(detail: string): Problem {
  return new Problem({ status: 409, title: 'Conflict', detail, code: 'KR_UNDER_REVIEW', remediation: 'Wait until the review is approved, returned or cancelled.' })
}
