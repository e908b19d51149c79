import { randomUUID } from 'node:crypto'
import { and, asc, count, desc, eq, inArray, sql } from 'drizzle-orm'
import { documentSetRevisions, documentSets, workflowRevisions, workflows } from '#server/db/schema-doc-control'
import { documents } from '#server/db/schema-documents'
import { recordAuditIn, type AuditAction } from '#server/domain/audit'
import { forbidden } from '#server/domain/documents/access'
import { ensureProjectActive, findProject, notFound } from '#server/domain/documents/places'
import { recordChange } from '#server/domain/tenancy/change-log'
import { refuseStaleWrite } from '#server/domain/tenancy/edit-conflict'
import type { DomainContext } from '#server/domain/tenancy/context'
import { isUuid } from '~/lib/schemas/uuid'
import { Problem } from '#server/http/problem'
import type { DocumentSet, IssuePurpose, SetStatus } from '~/lib/doc-control/types'
import { peopleById, revisionsFor, revisionViews, shown, visibleRevisions } from './revisions'
import { PUBLISHED_BY_SET, setPublishEffect } from '#server/domain/documents/rule-book'
import { applySuitabilities } from './rule-book-apply'
import type { OutsideLinks } from '#server/domain/transmittal-link-token'

/**
 * Sets (docs/doc-control.md "Sets"): a named selection of revisions, one per document. A draft is
 * changed by members with `edit` on every document in it; publishing (the set publish body: message
 * and purpose) freezes it, stamps each revision Published and records who and when; a published set
 * never changes again (409 KR_SET_PUBLISHED), but a new draft can be derived from it. Anyone who
 * reaches the project reads its sets, and sees in each the revisions they may view.
 */

/** The suitability a revision shared for coordination or review (an S-code) takes when a set publishes it: the rule book's (A1). */
export const PUBLISHED_STATUS = PUBLISHED_BY_SET

export type SetRow = typeof documentSets.$inferSelect
export type NewSet = { name: string; description?: string | null | undefined; revisionIds?: string[] | undefined }
export type SetPatch = { name?: string | undefined; description?: string | null | undefined }
export type SetQuery = { status?: SetStatus | undefined; page: number; pageSize: number }

/** Read-only members read document control but never change it (docs/doc-control.md "Who may do what"). */
export function refuseReadOnly(ctx: DomainContext, detail = 'Read-only members cannot change document control.'): void {
  if (ctx.actor.roleKey === 'read-only') throw forbidden(detail)
}

function publishedProblem(): Problem {
  return new Problem({
    status: 409,
    title: 'Conflict',
    detail: 'This set is published: it can no longer change. Derive a new set from it instead.',
    code: 'KR_SET_PUBLISHED',
    remediation: 'POST /api/sets/{setId}/derive makes a new draft with the same revisions.',
  })
}

async function findSet(ctx: DomainContext, setId: string, options: { lock?: boolean } = {}): Promise<SetRow> {
  if (!isUuid(setId)) throw notFound()
  const query = ctx.tx
    .select()
    .from(documentSets)
    .where(and(eq(documentSets.tenantId, ctx.actor.tenantId), eq(documentSets.id, setId)))
    .limit(1)
  const [row] = options.lock ? await query.for('update') : await query
  if (!row) throw notFound()
  return row
}

async function revisionIdsOf(ctx: DomainContext, setIds: readonly string[]): Promise<Map<string, string[]>> {
  const byId = new Map<string, string[]>(setIds.map((id) => [id, []]))
  if (setIds.length === 0) return byId
  const rows = await ctx.tx
    .select({ setId: documentSetRevisions.setId, revisionId: documentSetRevisions.revisionId })
    .from(documentSetRevisions)
    .where(and(eq(documentSetRevisions.tenantId, ctx.actor.tenantId), inArray(documentSetRevisions.setId, [...setIds])))
    .orderBy(asc(documentSetRevisions.position))
  for (const row of rows) byId.get(row.setId)?.push(row.revisionId)
  return byId
}

/** The sets as the caller reads them, in a fixed number of queries whatever their number. */
async function setViews(ctx: DomainContext, projectId: string, rows: readonly SetRow[]): Promise<DocumentSet[]> {
  const idsBySet = await revisionIdsOf(
    ctx,
    rows.map((r) => r.id),
  )
  const views = await revisionViews(ctx, [...idsBySet.values()].flat())
  const visible = new Set((await visibleRevisions(ctx, projectId, [...views.values()])).map((v) => v.revisionId))
  const people = await peopleById(
    ctx,
    rows.map((r) => r.publishedBy),
  )
  return rows.map((row) => {
    const by = row.publishedBy === null ? null : (people.get(row.publishedBy) ?? null)
    return {
      id: row.id,
      projectId: row.projectId,
      name: row.name,
      description: row.description,
      status: row.status as SetStatus,
      derivedFromId: row.derivedFromId,
      revisions: (idsBySet.get(row.id) ?? []).flatMap((id) => {
        const view = views.get(id)
        return view && visible.has(id) ? [shown(view)] : []
      }),
      published:
        row.status === 'published' && row.publishedAt
          ? {
              at: row.publishedAt.toISOString(),
              by: by && { id: by.id, displayName: by.displayName },
              message: row.publishMessage ?? '',
              purpose: row.publishPurpose as IssuePurpose,
            }
          : null,
      revision: row.revision,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    }
  })
}

async function viewOf(ctx: DomainContext, row: SetRow): Promise<DocumentSet> {
  const [view] = await setViews(ctx, row.projectId, [row])
  if (!view) throw new Error('set view not made')
  return view
}

export async function listSets(ctx: DomainContext, projectId: string, query: SetQuery): Promise<{ items: DocumentSet[]; total: number; page: number; pageSize: number }> {
  await findProject(ctx, projectId)
  const where = and(
    eq(documentSets.tenantId, ctx.actor.tenantId),
    eq(documentSets.projectId, projectId),
    query.status === undefined ? undefined : eq(documentSets.status, query.status),
  )
  const [total] = await ctx.tx.select({ n: count() }).from(documentSets).where(where)
  const rows = await ctx.tx
    .select()
    .from(documentSets)
    .where(where)
    .orderBy(desc(documentSets.createdAt), desc(documentSets.id))
    .limit(query.pageSize)
    .offset((query.page - 1) * query.pageSize)
  return { items: await setViews(ctx, projectId, rows), total: Number(total?.n ?? 0), page: query.page, pageSize: query.pageSize }
}

export async function getSet(ctx: DomainContext, setId: string): Promise<DocumentSet> {
  const row = await findSet(ctx, setId)
  await findProject(ctx, row.projectId)
  return viewOf(ctx, row)
}

/** A set's name is unique in its project whatever its case; the project's set-name lock makes the check and the write one step. */
async function ensureNameFree(ctx: DomainContext, projectId: string, name: string, except?: string): Promise<void> {
  await ctx.tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`set-names:${projectId}`}, 0))`)
  const [taken] = await ctx.tx
    .select({ id: documentSets.id })
    .from(documentSets)
    .where(
      and(
        eq(documentSets.tenantId, ctx.actor.tenantId),
        eq(documentSets.projectId, projectId),
        sql`lower(${documentSets.name}) = lower(${name})`,
        except === undefined ? undefined : sql`${documentSets.id} <> ${except}::uuid`,
      ),
    )
    .limit(1)
  if (taken)
    throw new Problem({
      status: 409,
      title: 'Conflict',
      detail: `There is already a set called “${name}” in this project.`,
      code: 'KR_SET_NAME_TAKEN',
      errors: { name: [`There is already a set called “${name}” in this project: choose another name.`] },
    })
}

async function writeRevisions(ctx: DomainContext, setId: string, revisions: ReadonlyArray<{ revisionId: string; documentId: string }>): Promise<void> {
  await ctx.tx.delete(documentSetRevisions).where(and(eq(documentSetRevisions.tenantId, ctx.actor.tenantId), eq(documentSetRevisions.setId, setId)))
  if (revisions.length === 0) return
  await ctx.tx
    .insert(documentSetRevisions)
    .values(revisions.map((r, position) => ({ tenantId: ctx.actor.tenantId, setId, documentId: r.documentId, revisionId: r.revisionId, position })))
}

async function recordSetChange(ctx: DomainContext, setId: string, changeType: 'Created' | 'Updated', action: AuditAction, data: Record<string, unknown>): Promise<number> {
  const revision = await recordChange(ctx, 'DocumentSet', setId, changeType)
  await recordAuditIn(ctx.tx, { tenantId: ctx.actor.tenantId, actorUserId: ctx.actor.userId, action, targetType: 'DocumentSet', targetId: setId, data, at: ctx.now })
  return revision
}

async function insertSet(
  ctx: DomainContext,
  projectId: string,
  input: { name: string; description: string | null; derivedFromId: string | null },
  revisions: ReadonlyArray<{ revisionId: string; documentId: string }>,
): Promise<SetRow> {
  await ensureNameFree(ctx, projectId, input.name)
  const id = randomUUID()
  const revision = await recordSetChange(ctx, id, 'Created', 'doc-control.set.changed', {
    name: input.name,
    revisions: revisions.length,
    ...(input.derivedFromId && { derivedFrom: input.derivedFromId }),
  })
  const [row] = await ctx.tx
    .insert(documentSets)
    .values({ tenantId: ctx.actor.tenantId, id, projectId, ...input, createdBy: ctx.actor.userId, revision, createdAt: ctx.now, updatedAt: ctx.now })
    .returning()
  if (!row) throw new Error('set not stored')
  await writeRevisions(ctx, id, revisions)
  return row
}

export async function createSet(ctx: DomainContext, projectId: string, input: NewSet): Promise<DocumentSet> {
  const { project } = await findProject(ctx, projectId)
  refuseReadOnly(ctx)
  const revisions = await revisionsFor(ctx, projectId, input.revisionIds ?? [], 'edit')
  ensureProjectActive(project)
  const row = await insertSet(ctx, projectId, { name: input.name, description: input.description ?? null, derivedFromId: null }, revisions)
  return viewOf(ctx, row)
}

/**
 * The revisions a set holds, with `edit` on each: the caller reads the set, so one they may not even
 * view makes it a 403 like one they only view (not a 404 that would depend on the set's order).
 */
async function heldRevisions(ctx: DomainContext, set: SetRow) {
  const ids = (await revisionIdsOf(ctx, [set.id])).get(set.id) ?? []
  try {
    return await revisionsFor(ctx, set.projectId, ids, 'edit')
  } catch (error) {
    if (error instanceof Problem && error.init.status === 404) throw forbidden('This set holds documents you may not change.')
    throw error
  }
}

/**
 * A draft set the caller may change: they see its project, are not read-only, and have `edit` on
 * every document in it (403 otherwise); a published set is 409 whoever asks. Locked until the
 * transaction ends, so a change and a publish never interleave.
 */
async function changeableSet(ctx: DomainContext, setId: string) {
  const set = await findSet(ctx, setId, { lock: true })
  const { project } = await findProject(ctx, set.projectId)
  refuseReadOnly(ctx)
  const revisions = await heldRevisions(ctx, set)
  if (set.status === 'published') throw publishedProblem()
  ensureProjectActive(project)
  return { set, revisions }
}

/** PATCH /api/sets/{setId}: a change against an older revision of the set is refused (409 KR_EDIT_CONFLICT). */
export async function updateSet(ctx: DomainContext, setId: string, patch: SetPatch & { expectedRevision?: number | undefined }): Promise<DocumentSet> {
  const { set } = await changeableSet(ctx, setId)
  await refuseStaleWrite(ctx, { ...set, what: 'set' }, patch.expectedRevision, () => viewOf(ctx, set))
  const change: Partial<SetRow> = {}
  if (patch.name !== undefined && patch.name !== set.name) {
    await ensureNameFree(ctx, set.projectId, patch.name, set.id)
    change.name = patch.name
  }
  if (patch.description !== undefined && patch.description !== set.description) change.description = patch.description
  if (Object.keys(change).length === 0) return viewOf(ctx, set)
  const revision = await recordSetChange(ctx, set.id, 'Updated', 'doc-control.set.changed', { fields: Object.keys(change) })
  const [row] = await ctx.tx
    .update(documentSets)
    .set({ ...change, revision, updatedBy: ctx.actor.userId, updatedAt: ctx.now })
    .where(and(eq(documentSets.tenantId, ctx.actor.tenantId), eq(documentSets.id, set.id)))
    .returning()
  if (!row) throw new Error('set not updated')
  return viewOf(ctx, row)
}

/** Replaces the set's revisions (one per document): `edit` on the documents it held and on those it gets. */
export async function putSetRevisions(ctx: DomainContext, setId: string, revisionIds: string[], expectedRevision?: number): Promise<DocumentSet> {
  const { set } = await changeableSet(ctx, setId)
  await refuseStaleWrite(ctx, { ...set, what: 'set' }, expectedRevision, () => viewOf(ctx, set))
  const revisions = await revisionsFor(ctx, set.projectId, revisionIds, 'edit')
  await writeRevisions(ctx, set.id, revisions)
  const revision = await recordSetChange(ctx, set.id, 'Updated', 'doc-control.set.changed', { revisions: revisions.length })
  const [row] = await ctx.tx
    .update(documentSets)
    .set({ revision, updatedBy: ctx.actor.userId, updatedAt: ctx.now })
    .where(and(eq(documentSets.tenantId, ctx.actor.tenantId), eq(documentSets.id, set.id)))
    .returning()
  if (!row) throw new Error('set not updated')
  return viewOf(ctx, row)
}

function conflict(code: string, detail: string, extensions?: Record<string, unknown>): Problem {
  return new Problem({ status: 409, title: 'Conflict', detail, code, extensions })
}

/**
 * Publishes a draft set: the set publish body (message, purpose) and who and when are recorded, and
 * each revision is stamped Published. A revision shared for coordination or review (an S-code, or
 * S0) takes A1; one already at an A, B or CR code keeps it. Its document takes the status and the
 * Published state when the revision is its current one, as issuing a revision does. Refused (409)
 * while a document is archived, has a newer revision than the set's, or is under an active review
 * (the review's outcome decides its status then).
 */
export async function publishSet(ctx: DomainContext, setId: string, body: { message: string; purpose: IssuePurpose }, links: OutsideLinks): Promise<DocumentSet> {
  const { set, revisions } = await changeableSet(ctx, setId)
  if (revisions.length === 0) {
    throw new Problem({
      status: 422,
      title: 'Invalid request',
      detail: 'A set with no revisions cannot be published: add revisions first.',
      code: 'KR_VALIDATION',
      errors: { revisionIds: ['Add the revisions to publish first.'] },
    })
  }
  const documentIds = revisions.map((r) => r.documentId)
  const docs = await ctx.tx
    .select({ id: documents.id, number: documents.number, status: documents.status, state: documents.state, currentRevisionId: documents.currentRevisionId })
    .from(documents)
    .where(and(eq(documents.tenantId, ctx.actor.tenantId), inArray(documents.id, documentIds)))
    .for('update')
  const byId = new Map(docs.map((d) => [d.id, d]))
  const archived = docs.filter((d) => d.state === 'Archived').map((d) => d.number)
  if (archived.length > 0)
    throw conflict('KR_ARCHIVED', `Archived documents cannot be published: ${archived.join(', ')}. Bring them back or take them out of the set.`, { documents: archived })
  const superseded = revisions.filter((r) => byId.get(r.documentId)?.currentRevisionId !== r.revisionId).map((r) => `${r.number} ${r.code}`)
  if (superseded.length > 0) {
    throw conflict('KR_SET_SUPERSEDED', `These revisions have been superseded by newer ones: ${superseded.join(', ')}. Choose the current revisions before publishing.`, {
      revisions: superseded,
    })
  }
  const reviewed = await ctx.tx
    .selectDistinct({ revisionId: workflowRevisions.revisionId })
    .from(workflowRevisions)
    .innerJoin(workflows, and(eq(workflows.tenantId, workflowRevisions.tenantId), eq(workflows.id, workflowRevisions.workflowId)))
    .where(
      and(
        eq(workflowRevisions.tenantId, ctx.actor.tenantId),
        inArray(
          workflowRevisions.revisionId,
          revisions.map((r) => r.revisionId),
        ),
        eq(workflowRevisions.current, true),
        inArray(workflows.status, ['active', 'returned']),
      ),
    )
  if (reviewed.length > 0) {
    const under = new Set(reviewed.map((r) => r.revisionId))
    const numbers = revisions.filter((r) => under.has(r.revisionId)).map((r) => `${r.number} ${r.code}`)
    throw conflict('KR_UNDER_REVIEW', `These revisions are under review: ${numbers.join(', ')}. Publish them once the review is finished or cancelled.`, { revisions: numbers })
  }

  // The rule book: a revision not yet published takes A1, which issues the next C revision from a preliminary one (the set then holds it).
  const targets = revisions.flatMap((r) => {
    const effect = setPublishEffect(r)
    return effect ? [{ revisionId: r.revisionId, documentId: r.documentId, status: PUBLISHED_STATUS }] : []
  })
  const applied = await applySuitabilities(ctx, targets, { setId: set.id }, links)
  for (const [from, to] of applied) {
    if (from === to) continue
    await ctx.tx
      .update(documentSetRevisions)
      .set({ revisionId: to })
      .where(and(eq(documentSetRevisions.tenantId, ctx.actor.tenantId), eq(documentSetRevisions.setId, set.id), eq(documentSetRevisions.revisionId, from)))
  }
  const revision = await recordSetChange(ctx, set.id, 'Updated', 'doc-control.set.published', { name: set.name, purpose: body.purpose, revisions: revisions.length })
  const [row] = await ctx.tx
    .update(documentSets)
    .set({ status: 'published', publishedAt: ctx.now, publishedBy: ctx.actor.userId, publishMessage: body.message, publishPurpose: body.purpose, revision, updatedBy: ctx.actor.userId, updatedAt: ctx.now })
    .where(and(eq(documentSets.tenantId, ctx.actor.tenantId), eq(documentSets.id, set.id)))
    .returning()
  if (!row) throw new Error('set not published')
  return viewOf(ctx, row)
}

/** A new draft with the same revisions (of a published set, or a copy of a draft): `edit` on every document in it. */
export async function deriveSet(ctx: DomainContext, setId: string, input: { name: string }): Promise<DocumentSet> {
  const source = await findSet(ctx, setId)
  const { project } = await findProject(ctx, source.projectId)
  refuseReadOnly(ctx)
  const revisions = await heldRevisions(ctx, source)
  ensureProjectActive(project)
  const row = await insertSet(ctx, source.projectId, { name: input.name, description: source.description, derivedFromId: source.id }, revisions)
  return viewOf(ctx, row)
}

/** The revision ids of a set the caller may read (for a transmittal made from a set): 404 as for any set they cannot reach. */
export async function setRevisionIds(ctx: DomainContext, setId: string, projectId: string): Promise<string[]> {
  const set = await findSet(ctx, setId)
  if (set.projectId !== projectId) throw notFound()
  return (await revisionIdsOf(ctx, [set.id])).get(set.id) ?? []
}
