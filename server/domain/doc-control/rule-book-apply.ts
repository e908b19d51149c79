import { and, eq, inArray, sql } from 'drizzle-orm'
import { documentRevisions, documents } from '#server/db/schema-documents'
import { movePinsToRevision } from '#server/domain/documents/pins'
import { recordDocumentChange } from '#server/domain/documents/places'
import { supersedeRevision } from '#server/domain/documents/superseded'
import type { OutsideLinks } from '#server/domain/transmittal-link-token'
import type { DomainContext } from '#server/domain/tenancy/context'
import { Problem } from '#server/http/problem'
import { stateOfStatus } from '~/lib/documents/rules'
import { statusEffect, type StatusEffect } from '#server/domain/documents/rule-book'

/**
 * Doing what the rule book (./rule-book.ts) answers when revisions take a new suitability: a review
 * outcome, a review start, a set publish. Every effect is decided before anything is written, so a
 * refusal changes nothing (409 `KR_RULE_BOOK` with the rule book's words).
 */

/** Where a suitability change comes from, for the document's history and the audit. */
export type Origin = { workflowId: string } | { setId: string }

/** Per revision asked: the revision that now carries the suitability (itself, or the C revision issued from it). */
export type Applied = Map<string, string>

export function ruleBookRefusal(messages: readonly string[]): Problem {
  return new Problem({
    status: 409,
    title: 'Conflict',
    detail: messages.join(' '),
    code: 'KR_RULE_BOOK',
    remediation: 'Nothing was changed. Do what the message says, then try again.',
    extensions: { rules: [...messages] },
  })
}

type Target = { revisionId: string; documentId: string; status: string }

/**
 * Gives each revision its suitability (each may have its own), by the rule book; refuses all when
 * one is refused. A C revision issued supersedes the one asked, whose recipients are told (`links`).
 */
export async function applySuitabilities(ctx: DomainContext, targets: readonly Target[], origin: Origin, links: OutsideLinks): Promise<Applied> {
  const applied: Applied = new Map()
  if (targets.length === 0) return applied
  const rows = await ctx.tx
    .select({
      revisionId: documentRevisions.id,
      code: documentRevisions.code,
      number: documents.number,
      currentRevisionId: documents.currentRevisionId,
    })
    .from(documentRevisions)
    .innerJoin(documents, and(eq(documents.tenantId, documentRevisions.tenantId), eq(documents.id, documentRevisions.documentId)))
    .where(
      and(
        eq(documentRevisions.tenantId, ctx.actor.tenantId),
        inArray(
          documentRevisions.id,
          targets.map((t) => t.revisionId),
        ),
      ),
    )
  const byId = new Map(rows.map((r) => [r.revisionId, r]))
  const decided: Array<{ target: Target; effect: StatusEffect; current: boolean }> = []
  const refusals: string[] = []
  for (const target of targets) {
    const row = byId.get(target.revisionId)
    if (!row) throw new Error(`applySuitabilities: no revision ${target.revisionId}`)
    let effect = statusEffect({ number: row.number, code: row.code }, target.status)
    const current = row.currentRevisionId === target.revisionId
    if (effect.kind === 'issue' && !current)
      effect = { kind: 'refuse', message: `${row.number} ${row.code} has been superseded: only the current revision can be issued as ${effect.code}.` }
    if (effect.kind === 'refuse') refusals.push(effect.message)
    decided.push({ target, effect, current })
  }
  if (refusals.length > 0) throw ruleBookRefusal(refusals)
  for (const { target, effect, current } of decided) {
    if (effect.kind === 'refuse') continue
    if (effect.kind === 'set') {
      await setStatus(ctx, target, effect.status, current, origin)
      applied.set(target.revisionId, target.revisionId)
    } else {
      applied.set(target.revisionId, await issueFrom(ctx, target, effect.code, effect.status, origin, links))
    }
  }
  return applied
}

/** One suitability for every revision. */
export async function applySuitability(
  ctx: DomainContext,
  links: ReadonlyArray<{ revisionId: string; documentId: string }>,
  status: string,
  origin: Origin,
  mailLinks: OutsideLinks,
): Promise<Applied> {
  return applySuitabilities(
    ctx,
    links.map((l) => ({ revisionId: l.revisionId, documentId: l.documentId, status })),
    origin,
    mailLinks,
  )
}

async function setStatus(ctx: DomainContext, target: Target, status: string, current: boolean, origin: Origin): Promise<void> {
  const state = stateOfStatus(status)
  if (!state) throw new Error(`not a suitability code: ${status}`)
  await ctx.tx
    .update(documentRevisions)
    .set({ status })
    .where(and(eq(documentRevisions.tenantId, ctx.actor.tenantId), eq(documentRevisions.id, target.revisionId)))
  const revision = await recordDocumentChange(ctx, 'Document', target.documentId, 'Updated', 'documents.document.changed', {
    revisionId: target.revisionId,
    status,
    ...(current && { state }),
    ...origin,
  })
  await ctx.tx
    .update(documents)
    .set({ revision, updatedBy: ctx.actor.userId, updatedAt: ctx.now, ...(current && { status, state }) })
    .where(and(eq(documents.tenantId, ctx.actor.tenantId), eq(documents.id, target.documentId)))
}

/**
 * The next contractual revision (C01 after P02) issued from the current one with the same file:
 * a new version, the reviewed revision superseded (it keeps its own suitability and its review),
 * pins moved on, the document current at the new revision. Answers the new revision's id.
 */
async function issueFrom(ctx: DomainContext, target: Target, code: string, status: string, origin: Origin, links: OutsideLinks): Promise<string> {
  const tenantId = ctx.actor.tenantId
  const [from] = await ctx.tx
    .select()
    .from(documentRevisions)
    .where(and(eq(documentRevisions.tenantId, tenantId), eq(documentRevisions.id, target.revisionId)))
    .limit(1)
  if (!from) throw new Error('issueFrom: the revision is gone')
  const [next] = await ctx.tx
    .select({ version: sql<number>`coalesce(max(${documentRevisions.version}), 0)::int + 1` })
    .from(documentRevisions)
    .where(and(eq(documentRevisions.tenantId, tenantId), eq(documentRevisions.documentId, target.documentId)))
  const version = Number(next?.version ?? from.version + 1)
  const [issued] = await ctx.tx
    .insert(documentRevisions)
    .values({
      tenantId,
      documentId: target.documentId,
      version,
      code,
      status,
      comment: `Issued as ${code} (${status}) from ${from.code}${'workflowId' in origin ? ' by its review' : ' by publishing a set'}.`,
      issuedBy: ctx.actor.userId,
      fileName: from.fileName,
      contentType: from.contentType,
      sizeBytes: from.sizeBytes,
      sha256: from.sha256,
      blobKey: from.blobKey,
      sheetWidth: from.sheetWidth,
      sheetHeight: from.sheetHeight,
      sheetKey: from.sheetKey,
      createdAt: ctx.now,
    })
    .returning({ id: documentRevisions.id })
  if (!issued) throw new Error('issueFrom: revision not stored')
  const [document] = await ctx.tx
    .select({ id: documents.id, projectId: documents.projectId, folderId: documents.folderId, number: documents.number, title: documents.title })
    .from(documents)
    .where(and(eq(documents.tenantId, tenantId), eq(documents.id, target.documentId)))
    .limit(1)
  if (!document) throw new Error('issueFrom: the document is gone')
  const told = await supersedeRevision(ctx, links, { document, from: { id: from.id, code: from.code }, to: { id: issued.id, code, status } })
  await movePinsToRevision(ctx, target.documentId, issued.id)
  const revision = await recordDocumentChange(ctx, 'Document', target.documentId, 'Updated', 'documents.revision.issued', {
    revisionId: issued.id,
    version,
    code,
    status,
    supersedes: from.code,
    issuedFrom: from.id,
    told,
    ...origin,
  })
  await ctx.tx
    .update(documents)
    .set({ currentRevisionId: issued.id, status, state: stateOfStatus(status) ?? 'Published', updatedBy: ctx.actor.userId, updatedAt: ctx.now, revision })
    .where(and(eq(documents.tenantId, tenantId), eq(documents.id, target.documentId)))
  return issued.id
}
