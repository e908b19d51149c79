import { randomUUID } from 'node:crypto'
import { and, eq, sql } from 'drizzle-orm'
import { documents } from '#server/db/schema-documents'
import { Problem, problems, type FieldErrors } from '#server/http/problem'
import { atLeast, normaliseNumber } from '~/lib/documents/rules'
import type { DocumentDetail, MetadataValues, ValidationResult } from '~/lib/documents/types'
import type { DomainContext } from '../tenancy/context'
import { refOf, userRefs } from '../tenancy/user-refs'
import { forbidden, requireLevel } from './access'
import { LOCKED_NUMBER_MESSAGE } from './rule-book'
import { isNumberLocked } from './document-lock'
import { checkMetadata, checkNumber, metadataFieldsOf, namingFieldsOf } from './naming'
import { breadcrumbsOf, ensureProjectActive, findDocument, findFolder, findProject, recordDocumentChange, type DocumentRow, type ProjectRef } from './places'
import { documentSummaries, revisionsOf } from './views'
import { refuseStaleWrite } from '../tenancy/edit-conflict'

/** docs/documents.md "Documents". */
export const DOCUMENT_TITLE_MAX = 200

export type NewDocument = { number: string; title: string; folderId: string | null; metadata: Record<string, unknown> }
export type DocumentChange = { number?: string | undefined; title?: string | undefined; folderId?: string | null | undefined; archived?: boolean | undefined }

/** What search reads: the number, the title and every metadata value. */
export function searchTextOf(number: string, title: string, metadata: MetadataValues): string {
  return [number, title, ...Object.values(metadata).map(String)].join(' ')
}

/** Numbers are unique per project; creating or renumbering takes the project's numbering lock. */
export async function lockNumbers(ctx: DomainContext, projectId: string): Promise<void> {
  await ctx.tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`document-numbers:${projectId}`}, 0))`)
}

async function numberTaken(ctx: DomainContext, projectId: string, number: string, except?: string): Promise<boolean> {
  const [row] = await ctx.tx
    .select({ id: documents.id })
    .from(documents)
    .where(
      and(
        eq(documents.tenantId, ctx.actor.tenantId),
        eq(documents.projectId, projectId),
        sql`upper(${documents.number}) = ${normaliseNumber(number)}`,
        except === undefined ? undefined : sql`${documents.id} <> ${except}::uuid`,
      ),
    )
    .limit(1)
  return row !== undefined
}

/**
 * The checks of a proposed number and metadata set, every problem at once (POST …/documents/validate,
 * and before every save). A number already used by another document of the project is a problem
 * too, unless it is `documentId`'s own.
 */
export async function checkProposal(
  ctx: DomainContext,
  project: ProjectRef,
  input: { number?: string | undefined; metadata?: Record<string, unknown> | undefined; documentId?: string | undefined },
): Promise<ValidationResult & { clean: MetadataValues }> {
  const errors: FieldErrors = {}
  let parsed: Record<string, string> | null = null
  if (input.number !== undefined) {
    const naming = await namingFieldsOf(ctx, project)
    const checked = checkNumber(naming.fields, input.number)
    Object.assign(errors, checked.errors)
    parsed = checked.parts
    if (parsed && (await numberTaken(ctx, project.id, input.number, input.documentId))) errors.number = [`${normaliseNumber(input.number)} is already used in this project.`]
  }
  let clean: MetadataValues = {}
  if (input.metadata !== undefined) {
    const checked = checkMetadata(await metadataFieldsOf(ctx, project.id), input.metadata)
    Object.assign(errors, checked.errors)
    clean = checked.clean
  }
  return { valid: Object.keys(errors).length === 0, errors, parsed: Object.keys(errors).length === 0 ? parsed : null, clean }
}

/** POST /api/projects/{projectId}/documents/validate */
export async function validateProposal(
  ctx: DomainContext,
  projectId: string,
  input: { number?: string | undefined; metadata?: Record<string, unknown> | undefined; documentId?: string | undefined },
): Promise<ValidationResult> {
  const { project } = await findProject(ctx, projectId)
  const { valid, errors, parsed } = await checkProposal(ctx, project, input)
  return { valid, errors, parsed }
}

/** The plain edit refused a new number of a locked document: a field error on `number` that says what to do instead. */
export function numberLockedProblem(): Problem {
  return new Problem({
    status: 409,
    title: 'Conflict',
    detail: LOCKED_NUMBER_MESSAGE,
    code: 'KR_DOCUMENT_LOCKED',
    remediation: 'Use Renumber (a document controller or an administrator), with a reason.',
    errors: { number: [LOCKED_NUMBER_MESSAGE] },
  })
}

function invalid(errors: FieldErrors): Problem {
  return new Problem({ ...problems.badRequest('The document has problems: see each field.', errors), code: 'KR_DOCUMENT_INVALID' })
}

/**
 * POST /api/projects/{projectId}/documents: a document with no revision yet (WIP, S0), named by
 * the project's standard. Upload on the folder (or the project's top). Every problem of the
 * number, title and metadata comes back at once.
 */
export async function createDocument(ctx: DomainContext, projectId: string, input: NewDocument): Promise<DocumentDetail> {
  const { project, level: projectLevel } = await findProject(ctx, projectId)
  ensureProjectActive(project)
  const errors: FieldErrors = {}
  if (input.folderId !== null) {
    const found = await findFolder(ctx, input.folderId).catch((error: unknown) => {
      if (error instanceof Problem && error.init.status === 404) return undefined
      throw error
    })
    if (!found || found.folder.projectId !== projectId) errors.folderId = ['Choose a folder of this project.']
    else requireLevel(found.level, 'upload')
  } else {
    requireLevel(projectLevel, 'upload')
  }
  await lockNumbers(ctx, projectId)
  const proposal = await checkProposal(ctx, project, { number: input.number, metadata: input.metadata })
  Object.assign(errors, proposal.errors)
  if (input.title.trim() === '') errors.title = ['Give the document a title.']
  if (Object.keys(errors).length > 0 || !proposal.parsed) throw invalid(errors)
  const number = normaliseNumber(input.number)
  const id = randomUUID()
  const revision = await recordDocumentChange(ctx, 'Document', id, 'Created', 'documents.document.created', { projectId, number, title: input.title, folderId: input.folderId })
  await ctx.tx.insert(documents).values({
    tenantId: ctx.actor.tenantId,
    id,
    projectId,
    folderId: input.folderId,
    number,
    title: input.title.trim(),
    discipline: (proposal.parsed.role ?? '').toUpperCase(),
    docType: (proposal.parsed.type ?? '').toUpperCase(),
    status: 'S0',
    state: 'WIP',
    metadata: proposal.clean,
    searchText: searchTextOf(number, input.title.trim(), proposal.clean),
    createdBy: ctx.actor.userId,
    revision,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  })
  return getDocument(ctx, id)
}

/** GET /api/documents/{id}: the document, where it is, its metadata and every revision, newest first. */
export async function getDocument(ctx: DomainContext, documentId: string): Promise<DocumentDetail> {
  const { doc, level, place } = await findDocument(ctx, documentId)
  return detailOf(ctx, doc, level, place.folderPath)
}

async function detailOf(ctx: DomainContext, doc: DocumentRow, level: DocumentDetail['access'], folderPath: readonly string[]): Promise<DocumentDetail> {
  const [summary] = await documentSummaries(ctx, [doc])
  if (!summary) throw new Error('document summary not made')
  const [kept] = await ctx.tx
    .select({ renumbers: documents.renumbers })
    .from(documents)
    .where(and(eq(documents.tenantId, ctx.actor.tenantId), eq(documents.id, doc.id)))
  const renumbers = kept?.renumbers ?? []
  const refs = await userRefs(ctx, [doc.createdBy, ...renumbers.map((r) => r.byUserId)])
  return {
    numberLocked: await isNumberLocked(ctx, doc),
    renumbers: renumbers.map((r) => ({ atUtc: r.at, by: refOf(refs, r.byUserId), from: r.from, to: r.to, reason: r.reason, told: r.told })),
    ...summary,
    metadata: doc.metadata,
    breadcrumbs: await breadcrumbsOf(ctx, folderPath),
    revisions: await revisionsOf(ctx, doc.id),
    createdBy: refOf(refs, doc.createdBy),
    createdAtUtc: doc.createdAt.toISOString(),
    access: level,
    revision: doc.revision,
  }
}

/**
 * PATCH /api/documents/{id}: title and number (edit), folder (edit here and upload where it goes),
 * archive or bring back (manage). An archived document is read-only until it is brought back.
 */
export async function updateDocument(ctx: DomainContext, documentId: string, change: DocumentChange & { expectedRevision?: number | undefined }): Promise<DocumentDetail> {
  const { doc, level } = await findDocument(ctx, documentId, 'view', { lock: true })
  requireLevel(level, change.archived !== undefined ? 'manage' : 'edit')
  await refuseStaleWrite(ctx, { ...doc, what: 'document' }, change.expectedRevision, () => getDocument(ctx, documentId))
  if (doc.state === 'Archived' && change.archived !== false && (change.title !== undefined || change.number !== undefined || change.folderId !== undefined))
    throw new Problem({ status: 409, title: 'Conflict', detail: 'This document is archived: bring it back before changing it.', code: 'KR_ARCHIVED' })
  const errors: FieldErrors = {}
  const set: Partial<typeof documents.$inferInsert> = {}
  const audit: Record<string, unknown> = {}
  if (change.title !== undefined && change.title !== doc.title) {
    if (change.title.trim() === '') errors.title = ['Give the document a title.']
    set.title = change.title.trim()
    audit.title = { from: doc.title, to: set.title }
  }
  if (change.number !== undefined && normaliseNumber(change.number) !== doc.number) {
    // The rule book: a published or sent document keeps its number (and so its discipline and type) until a controller renumbers it.
    if (await isNumberLocked(ctx, doc)) throw numberLockedProblem()
    const { project } = await findProject(ctx, doc.projectId)
    await lockNumbers(ctx, doc.projectId)
    const proposal = await checkProposal(ctx, project, { number: change.number, documentId: doc.id })
    Object.assign(errors, proposal.errors)
    if (proposal.parsed) {
      set.number = normaliseNumber(change.number)
      set.discipline = (proposal.parsed.role ?? '').toUpperCase()
      set.docType = (proposal.parsed.type ?? '').toUpperCase()
      audit.number = { from: doc.number, to: set.number }
    }
  }
  if (change.folderId !== undefined && change.folderId !== doc.folderId) {
    if (change.folderId === null) {
      const { level: top } = await findProject(ctx, doc.projectId)
      if (!atLeast(top, 'upload')) throw forbidden('You may not add documents at the top of this project.')
    } else {
      const found = await findFolder(ctx, change.folderId).catch((error: unknown) => {
        if (error instanceof Problem && error.init.status === 404) return undefined
        throw error
      })
      if (!found || found.folder.projectId !== doc.projectId) errors.folderId = ['Choose a folder of this project.']
      else if (!atLeast(found.level, 'upload')) throw forbidden('You may not add documents to that folder.')
    }
    set.folderId = change.folderId
    audit.folderId = { from: doc.folderId, to: change.folderId }
  }
  if (change.archived !== undefined && change.archived !== (doc.state === 'Archived')) {
    set.state = change.archived ? 'Archived' : stateAfterUnarchive(doc.status)
    audit.state = { from: doc.state, to: set.state }
  }
  if (Object.keys(errors).length > 0) throw invalid(errors)
  if (Object.keys(set).length === 0) return getDocument(ctx, documentId)
  set.searchText = searchTextOf(set.number ?? doc.number, set.title ?? doc.title, doc.metadata)
  set.updatedAt = ctx.now
  set.updatedBy = ctx.actor.userId
  set.revision = await recordDocumentChange(ctx, 'Document', doc.id, 'Updated', 'documents.document.changed', audit)
  await ctx.tx
    .update(documents)
    .set(set)
    .where(and(eq(documents.tenantId, ctx.actor.tenantId), eq(documents.id, doc.id)))
  return getDocument(ctx, documentId)
}

function stateAfterUnarchive(status: string): 'WIP' | 'Shared' | 'Published' {
  if (status === 'S0') return 'WIP'
  return /^S\d$/.test(status) ? 'Shared' : 'Published'
}

/** PUT /api/documents/{id}/metadata: replaces every value, after the project's checks (edit). */
export async function putDocumentMetadata(ctx: DomainContext, documentId: string, values: Record<string, unknown>, expectedRevision?: number): Promise<DocumentDetail> {
  const { doc, level } = await findDocument(ctx, documentId, 'view', { lock: true })
  requireLevel(level, 'edit')
  await refuseStaleWrite(ctx, { ...doc, what: 'document' }, expectedRevision, () => getDocument(ctx, documentId))
  if (doc.state === 'Archived') throw new Problem({ status: 409, title: 'Conflict', detail: 'This document is archived: bring it back before changing it.', code: 'KR_ARCHIVED' })
  const { errors, clean } = checkMetadata(await metadataFieldsOf(ctx, doc.projectId), values)
  if (Object.keys(errors).length > 0) throw invalid(errors)
  const revision = await recordDocumentChange(ctx, 'Document', doc.id, 'Updated', 'documents.metadata.changed', { from: doc.metadata, to: clean })
  await ctx.tx
    .update(documents)
    .set({ metadata: clean, searchText: searchTextOf(doc.number, doc.title, clean), updatedBy: ctx.actor.userId, updatedAt: ctx.now, revision })
    .where(and(eq(documents.tenantId, ctx.actor.tenantId), eq(documents.id, doc.id)))
  return getDocument(ctx, documentId)
}
