import { and, asc, eq, inArray } from 'drizzle-orm'
import { matrixEntries, projectParties } from '#server/db/schema-doc-control'
import { documents } from '#server/db/schema-documents'
import { notFound, type ProjectRef } from '#server/domain/documents/places'
import { namingFieldsOf } from '#server/domain/documents/naming'
import type { DomainContext } from '#server/domain/tenancy/context'
import { bumpListRevision, listRevision, refuseStaleWrite } from '#server/domain/tenancy/edit-conflict'
import { isUuid } from '~/lib/schemas/uuid'
import { Problem, problems, type FieldErrors } from '#server/http/problem'
import type { MatrixEntry, Responsibility, ResponsibilityMatrix } from '~/lib/doc-control/types'
import { auditDocControl, managedProject, readableProject } from './parties'

/**
 * The responsibility matrix (docs/doc-control.md): for a discipline (the naming standard's Role
 * code) and a document type (its Type code, or any), which parties produce and which review.
 * Starting a review proposes reviewers from it (`partiesFor`).
 */

/** A project's discipline and type codes: its standard's lists, or, for a field without a list, the codes its documents use. */
async function codesOf(ctx: DomainContext, project: ProjectRef): Promise<Pick<ResponsibilityMatrix, 'disciplines' | 'docTypes'>> {
  const { fields } = await namingFieldsOf(ctx, project)
  const listed = (key: string) => fields.find((f) => f.key === key)?.codes ?? null
  let disciplines = listed('role')
  let docTypes = listed('type')
  if (disciplines === null || docTypes === null) {
    const used = await ctx.tx
      .selectDistinct({ discipline: documents.discipline, docType: documents.docType })
      .from(documents)
      .where(and(eq(documents.tenantId, ctx.actor.tenantId), eq(documents.projectId, project.id)))
    const distinct = (values: string[]) => [...new Set(values)].sort().map((code) => ({ code, description: '' }))
    disciplines ??= distinct(used.map((u) => u.discipline))
    docTypes ??= distinct(used.map((u) => u.docType))
  }
  return { disciplines, docTypes }
}

async function entriesOf(ctx: DomainContext, projectId: string): Promise<MatrixEntry[]> {
  const rows = await ctx.tx
    .select({ discipline: matrixEntries.discipline, docType: matrixEntries.docType, partyId: matrixEntries.partyId, responsibility: matrixEntries.responsibility })
    .from(matrixEntries)
    .where(and(eq(matrixEntries.tenantId, ctx.actor.tenantId), eq(matrixEntries.projectId, projectId)))
    .orderBy(asc(matrixEntries.discipline), asc(matrixEntries.docType), asc(matrixEntries.partyId), asc(matrixEntries.responsibility))
  return rows.map((r) => ({ discipline: r.discipline, docType: r.docType === '' ? null : r.docType, partyId: r.partyId, responsibility: r.responsibility as Responsibility }))
}

/** GET /api/projects/{projectId}/matrix */
export async function getMatrix(ctx: DomainContext, projectId: string): Promise<ResponsibilityMatrix> {
  const project = await readableProject(ctx, projectId)
  const { revision } = await listRevision(ctx, 'matrix', projectId)
  return { projectId, entries: await entriesOf(ctx, projectId), ...(await codesOf(ctx, project)), revision }
}

/**
 * PUT /api/projects/{projectId}/matrix: replaces every entry. A discipline or type the project's
 * standard does not list is a field error; a party not of this project (another tenant's, an
 * unknown id) is 404. Repeated entries count once. A save against an older revision of the matrix
 * is refused (409 KR_EDIT_CONFLICT with the matrix as it is now).
 */
export async function putMatrix(ctx: DomainContext, projectId: string, entries: MatrixEntry[], expectedRevision?: number): Promise<ResponsibilityMatrix> {
  const project = await managedProject(ctx, projectId)
  const saved = await listRevision(ctx, 'matrix', projectId, { lock: true })
  await refuseStaleWrite(ctx, { ...saved, what: 'responsibility matrix' }, expectedRevision, () => getMatrix(ctx, projectId))
  const codes = await codesOf(ctx, project)
  const disciplines = new Set(codes.disciplines.map((c) => c.code))
  const docTypes = new Set(codes.docTypes.map((c) => c.code))
  const errors: FieldErrors = {}
  entries.forEach((entry, index) => {
    if (!disciplines.has(entry.discipline))
      (errors[`entries.${index}.discipline`] ??= []).push(`${entry.discipline} is not a discipline (Role code) of this project’s naming standard.`)
    if (entry.docType !== null && !docTypes.has(entry.docType))
      (errors[`entries.${index}.docType`] ??= []).push(`${entry.docType} is not a document type (Type code) of this project’s naming standard.`)
  })
  if (Object.keys(errors).length > 0) throw new Problem(problems.badRequest('The matrix has problems.', errors))

  const partyIds = [...new Set(entries.map((e) => e.partyId))]
  if (partyIds.some((id) => !isUuid(id))) throw notFound()
  if (partyIds.length > 0) {
    const found = await ctx.tx
      .select({ id: projectParties.id })
      .from(projectParties)
      .where(and(eq(projectParties.tenantId, ctx.actor.tenantId), eq(projectParties.projectId, projectId), inArray(projectParties.id, partyIds)))
    if (found.length !== partyIds.length) throw notFound()
  }
  const unique = new Map(entries.map((e) => [`${e.discipline}|${e.docType ?? ''}|${e.partyId}|${e.responsibility}`, e]))
  await ctx.tx.delete(matrixEntries).where(and(eq(matrixEntries.tenantId, ctx.actor.tenantId), eq(matrixEntries.projectId, projectId)))
  if (unique.size > 0) {
    await ctx.tx.insert(matrixEntries).values(
      [...unique.values()].map((e) => ({
        tenantId: ctx.actor.tenantId,
        projectId,
        discipline: e.discipline,
        docType: e.docType ?? '',
        partyId: e.partyId,
        responsibility: e.responsibility,
      })),
    )
  }
  const revision = await bumpListRevision(ctx, 'matrix', projectId)
  await auditDocControl(ctx, 'doc-control.matrix.changed', 'Project', projectId, { entries: unique.size })
  return { projectId, entries: await entriesOf(ctx, projectId), ...codes, revision }
}

/**
 * The parties the matrix names for a document's discipline and type with one responsibility:
 * entries for that very type win over the discipline's "any type" entries. For the review
 * proposal (reviewers `{ type: 'matrix' }`). No access check: the caller checked the project.
 */
export async function partiesFor(ctx: DomainContext, projectId: string, document: { discipline: string; docType: string }, responsibility: Responsibility): Promise<string[]> {
  const rows = await ctx.tx
    .select({ docType: matrixEntries.docType, partyId: matrixEntries.partyId })
    .from(matrixEntries)
    .where(
      and(
        eq(matrixEntries.tenantId, ctx.actor.tenantId),
        eq(matrixEntries.projectId, projectId),
        eq(matrixEntries.discipline, document.discipline),
        inArray(matrixEntries.docType, ['', document.docType]),
        eq(matrixEntries.responsibility, responsibility),
      ),
    )
  const specific = rows.filter((r) => r.docType === document.docType && r.docType !== '')
  return [...new Set((specific.length > 0 ? specific : rows).map((r) => r.partyId))]
}
