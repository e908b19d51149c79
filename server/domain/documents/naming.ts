import { and, asc, eq, sql } from 'drizzle-orm'
import { metadataFields, namingStandards } from '#server/db/schema-documents'
import { Problem, problems, type FieldErrors } from '#server/http/problem'
import { defaultNamingFields, exampleNumber, namingProblems, projectCodeForNaming } from '~/lib/documents/rules'
import type { MetadataField, MetadataFieldKind, MetadataValues, NamingField, NamingStandard } from '~/lib/documents/types'
import type { DomainContext } from '../tenancy/context'
import { bumpListRevision, listRevision, refuseStaleWrite } from '../tenancy/edit-conflict'
import { requireLevel } from './access'
import { findProject, recordDocumentAudit, type ProjectRef } from './places'

/**
 * A project's naming standard and metadata fields (docs/documents.md "Naming" and "Metadata"), and
 * the checks of a proposed number and metadata set, which answer every problem at once.
 */

/** The standard a project has, or the UK annex's starter list when nobody has set one. */
export async function namingFieldsOf(ctx: DomainContext, project: ProjectRef, options: { lock?: boolean } = {}): Promise<{ fields: NamingField[]; updatedAt: Date | null; revision: number; updatedBy: string | null }> {
  const query = ctx.tx
    .select({ fields: namingStandards.fields, updatedAt: namingStandards.updatedAt, revision: namingStandards.revision, updatedBy: namingStandards.updatedBy })
    .from(namingStandards)
    .where(and(eq(namingStandards.tenantId, ctx.actor.tenantId), eq(namingStandards.projectId, project.id)))
    .limit(1)
  const [row] = options.lock ? await query.for('update') : await query
  if (row) return row
  // No row: the default standard, never saved (revision 0).
  return { fields: defaultNamingFields(projectCodeForNaming(project.code, 'PRJ')), updatedAt: null, revision: 0, updatedBy: null }
}

/** GET /api/projects/{projectId}/naming-standard */
export async function getNamingStandard(ctx: DomainContext, projectId: string): Promise<NamingStandard> {
  const { project } = await findProject(ctx, projectId)
  const { fields, updatedAt, revision } = await namingFieldsOf(ctx, project)
  return { projectId, fields, example: exampleNumber(fields), updatedAtUtc: updatedAt?.toISOString() ?? null, revision }
}

/**
 * PUT /api/projects/{projectId}/naming-standard: replaces the fields' code lists and lengths (the
 * seven fields and their order are the standard's; a project decides their codes). Manage on the
 * project. Documents already named keep their numbers. A save against an older revision of the
 * standard is refused (409 KR_EDIT_CONFLICT with the standard as it is now).
 */
export async function putNamingStandard(ctx: DomainContext, projectId: string, fields: NamingField[], expectedRevision?: number): Promise<NamingStandard> {
  const { level, project } = await findProject(ctx, projectId)
  requireLevel(level, 'manage')
  const saved = await namingFieldsOf(ctx, project, { lock: true })
  await refuseStaleWrite(ctx, { ...saved, what: 'naming standard' }, expectedRevision, () => getNamingStandard(ctx, projectId))
  const errors: FieldErrors = {}
  const keys = new Set<string>()
  fields.forEach((field, index) => {
    if (keys.has(field.key)) (errors[`fields.${index}.key`] ??= []).push(`“${field.key}” is named twice.`)
    keys.add(field.key)
    if (field.minLength > field.maxLength) (errors[`fields.${index}.minLength`] ??= []).push('The shortest length cannot be more than the longest.')
    const seen = new Set<string>()
    for (const [i, code] of (field.codes ?? []).entries()) {
      const shape = field.charset === 'digits' ? /^[0-9]+$/ : /^[A-Z0-9]+$/
      if (!shape.test(code.code) || code.code.length < field.minLength || code.code.length > field.maxLength)
        (errors[`fields.${index}.codes.${i}.code`] ??= []).push(
          `“${code.code}” does not fit ${field.label}: ${field.minLength}–${field.maxLength} ${field.charset === 'digits' ? 'digits' : 'capital letters or digits'}.`,
        )
      if (seen.has(code.code)) (errors[`fields.${index}.codes.${i}.code`] ??= []).push(`“${code.code}” is listed twice.`)
      seen.add(code.code)
    }
  })
  if (!keys.has('type') || !keys.has('role')) (errors.fields ??= []).push('The standard needs a Type field and a Role field: documents take their type and discipline from them.')
  if (Object.keys(errors).length > 0) throw new Problem(problems.badRequest('The naming standard has problems.', errors))
  const stored = await ctx.tx
    .insert(namingStandards)
    .values({ tenantId: ctx.actor.tenantId, projectId, fields, updatedBy: ctx.actor.userId, revision: 1, createdAt: ctx.now, updatedAt: ctx.now })
    .onConflictDoUpdate({
      target: [namingStandards.tenantId, namingStandards.projectId],
      set: { fields, updatedBy: ctx.actor.userId, revision: sql`${namingStandards.revision} + 1`, updatedAt: ctx.now },
      // Two first saves of the default standard: the later one finds the earlier one's row, saved since it read.
      setWhere: eq(namingStandards.revision, saved.revision),
    })
    .returning({ revision: namingStandards.revision })
  if (stored.length === 0) {
    const now = await namingFieldsOf(ctx, project, { lock: true })
    await refuseStaleWrite(ctx, { ...now, what: 'naming standard' }, saved.revision, () => getNamingStandard(ctx, projectId))
  }
  await recordDocumentAudit(ctx, 'documents.naming.changed', 'Project', projectId, { fields })
  return getNamingStandard(ctx, projectId)
}

export async function metadataFieldsOf(ctx: DomainContext, projectId: string): Promise<MetadataField[]> {
  const rows = await ctx.tx
    .select({
      key: metadataFields.key,
      label: metadataFields.label,
      kind: metadataFields.kind,
      required: metadataFields.required,
      options: metadataFields.options,
      position: metadataFields.position,
    })
    .from(metadataFields)
    .where(and(eq(metadataFields.tenantId, ctx.actor.tenantId), eq(metadataFields.projectId, projectId)))
    .orderBy(asc(metadataFields.position), asc(metadataFields.key))
  return rows.map((r) => ({ ...r, kind: r.kind as MetadataFieldKind }))
}

/** GET /api/projects/{projectId}/metadata-fields */
export async function getMetadataFields(ctx: DomainContext, projectId: string): Promise<{ items: MetadataField[]; revision: number }> {
  await findProject(ctx, projectId)
  const { revision } = await listRevision(ctx, 'metadata-fields', projectId)
  return { items: await metadataFieldsOf(ctx, projectId), revision }
}

/**
 * PUT /api/projects/{projectId}/metadata-fields: the project's custom fields, in order. Manage on
 * the project. A field removed keeps its values in documents (they are no longer shown or checked).
 * A save against an older revision of the list is refused (409 KR_EDIT_CONFLICT).
 */
export async function putMetadataFields(
  ctx: DomainContext,
  projectId: string,
  fields: Omit<MetadataField, 'position'>[],
  expectedRevision?: number,
): Promise<{ items: MetadataField[]; revision: number }> {
  const { level } = await findProject(ctx, projectId)
  requireLevel(level, 'manage')
  const saved = await listRevision(ctx, 'metadata-fields', projectId, { lock: true })
  await refuseStaleWrite(ctx, { ...saved, what: 'metadata fields' }, expectedRevision, () => getMetadataFields(ctx, projectId))
  const errors: FieldErrors = {}
  const keys = new Set<string>()
  fields.forEach((field, index) => {
    if (keys.has(field.key)) (errors[`fields.${index}.key`] ??= []).push(`The key “${field.key}” is used twice.`)
    keys.add(field.key)
    if (field.kind === 'choice' && field.options.length === 0) (errors[`fields.${index}.options`] ??= []).push('A choice needs at least one option.')
    if (field.kind !== 'choice' && field.options.length > 0) (errors[`fields.${index}.options`] ??= []).push('Only a choice has options.')
    if (new Set(field.options).size !== field.options.length) (errors[`fields.${index}.options`] ??= []).push('An option is listed twice.')
  })
  if (Object.keys(errors).length > 0) throw new Problem(problems.badRequest('The metadata fields have problems.', errors))
  await ctx.tx.delete(metadataFields).where(and(eq(metadataFields.tenantId, ctx.actor.tenantId), eq(metadataFields.projectId, projectId)))
  if (fields.length > 0) {
    await ctx.tx
      .insert(metadataFields)
      .values(fields.map((field, position) => ({ tenantId: ctx.actor.tenantId, projectId, ...field, position, createdAt: ctx.now, updatedAt: ctx.now })))
  }
  const revision = await bumpListRevision(ctx, 'metadata-fields', projectId)
  await recordDocumentAudit(ctx, 'documents.fields.changed', 'Project', projectId, { fields })
  return { items: await metadataFieldsOf(ctx, projectId), revision }
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/

/**
 * Checks metadata values against the project's fields: every required field given, each value of
 * its kind, choices from their options, no unknown keys. Answers field errors keyed
 * `metadata.<key>` and the cleaned values (trimmed, numbers as numbers, blanks left out).
 */
export function checkMetadata(fields: MetadataField[], values: Record<string, unknown>): { errors: FieldErrors; clean: MetadataValues } {
  const errors: FieldErrors = {}
  const clean: MetadataValues = {}
  const known = new Map(fields.map((f) => [f.key, f]))
  for (const key of Object.keys(values)) if (!known.has(key)) errors[`metadata.${key}`] = ['This project has no such field.']
  for (const field of fields) {
    const raw = values[field.key]
    const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : raw === undefined || raw === null ? '' : undefined
    const at = `metadata.${field.key}`
    if (text === undefined) {
      errors[at] = [`${field.label} must be ${field.kind === 'number' ? 'a number' : 'text'}.`]
      continue
    }
    if (text === '') {
      if (field.required) errors[at] = [`${field.label} is required.`]
      continue
    }
    switch (field.kind) {
      case 'text':
        if (text.length > 500) errors[at] = [`${field.label} takes at most 500 characters.`]
        else clean[field.key] = text
        break
      case 'choice':
        if (!field.options.includes(text)) errors[at] = [`${field.label} must be one of: ${field.options.join(', ')}.`]
        else clean[field.key] = text
        break
      case 'date': {
        const date = new Date(`${text}T00:00:00Z`)
        if (!ISO_DATE.test(text) || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text) errors[at] = [`${field.label} must be a date (YYYY-MM-DD).`]
        else clean[field.key] = text
        break
      }
      case 'number': {
        const number = Number(text)
        if (!/^-?\d+(\.\d+)?$/.test(text) || !Number.isFinite(number)) errors[at] = [`${field.label} must be a number.`]
        else clean[field.key] = number
        break
      }
    }
  }
  return { errors, clean }
}

/** The number's problems as field errors on `number`, and its parts when it is valid. */
export function checkNumber(fields: NamingField[], number: string): { errors: FieldErrors; parts: Record<string, string> | null } {
  const { problems: found, parts } = namingProblems(number, fields)
  return { errors: found.length > 0 ? { number: found } : {}, parts }
}
