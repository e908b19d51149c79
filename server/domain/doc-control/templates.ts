import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm'
import { memberships } from '#server/db/schema'
import { projectParties, workflowTemplates, workflowTemplateVersions } from '#server/db/schema-doc-control'
import { recordAuditIn } from '#server/domain/audit'
import { notFound } from '#server/domain/documents/places'
import type { DomainContext } from '#server/domain/tenancy/context'
import { refuseStaleWrite } from '#server/domain/tenancy/edit-conflict'
import { isUuid } from '~/lib/schemas/uuid'
import type { FieldErrors } from '#server/http/problem'
import type { WorkflowStepDefinition, WorkflowTemplate } from '~/lib/doc-control/types'
import type { TemplateInput } from '~/lib/schemas/workflows'
import { onlyAdmins, templateArchived, templateNameTaken, unprocessable } from './workflow-problems'

/**
 * Workflow templates (docs/doc-control.md "Workflow"): named per organisation, their steps kept in
 * immutable versions. Creating writes version 1; every change writes version n + 1 and moves the
 * template's `current_version`, so a running workflow, which names the version it started with,
 * never sees its steps change. Organisation admins write; every member reads.
 */

type TemplateRow = typeof workflowTemplates.$inferSelect

const templateColumns = {
  id: workflowTemplates.id,
  name: workflowTemplates.name,
  description: workflowTemplates.description,
  currentVersion: workflowTemplates.currentVersion,
  archivedAt: workflowTemplates.archivedAt,
  createdAt: workflowTemplates.createdAt,
  updatedAt: workflowTemplates.updatedAt,
}

type TemplateHead = Pick<TemplateRow, keyof typeof templateColumns>

function view(row: TemplateHead, version: number, steps: WorkflowStepDefinition[]): WorkflowTemplate {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    version,
    steps,
    archived: row.archivedAt !== null,
    revision: row.currentVersion,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }
}

function requireAdmin(ctx: DomainContext): void {
  if (ctx.actor.roleKey !== 'admin') throw onlyAdmins('Only organisation administrators define workflow templates.')
}

/** Template names are unique per organisation whatever their case; writes of one organisation's templates run one at a time so two cannot take one name. */
async function ensureFreeName(ctx: DomainContext, name: string, except?: string): Promise<void> {
  await ctx.tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`workflow-templates:${ctx.actor.tenantId}`}, 0))`)
  const [clash] = await ctx.tx
    .select({ id: workflowTemplates.id })
    .from(workflowTemplates)
    .where(
      and(
        eq(workflowTemplates.tenantId, ctx.actor.tenantId),
        sql`lower(${workflowTemplates.name}) = lower(${name})`,
        except === undefined ? undefined : sql`${workflowTemplates.id} <> ${except}::uuid`,
      ),
    )
    .limit(1)
  if (clash) throw templateNameTaken(name)
}

/**
 * What the body's schema cannot know: each named person is an active member who may review (not
 * read-only), and each named party is one of this organisation's. Every problem at once, under the
 * field it belongs to.
 */
export async function checkStepReferences(ctx: DomainContext, steps: readonly WorkflowStepDefinition[]): Promise<void> {
  const userIds = new Set<string>()
  const partyIds = new Set<string>()
  for (const step of steps) {
    for (const rule of step.reviewers) {
      if (rule.type === 'user') userIds.add(rule.userId)
      if (rule.type === 'party') partyIds.add(rule.partyId)
    }
  }
  const members =
    userIds.size === 0
      ? []
      : await ctx.tx
          .select({ userId: memberships.userId, roleKey: memberships.roleKey, status: memberships.status })
          .from(memberships)
          .where(and(eq(memberships.tenantId, ctx.actor.tenantId), inArray(memberships.userId, [...userIds])))
  const parties =
    partyIds.size === 0
      ? []
      : await ctx.tx
          .select({ id: projectParties.id })
          .from(projectParties)
          .where(and(eq(projectParties.tenantId, ctx.actor.tenantId), inArray(projectParties.id, [...partyIds])))
  const memberById = new Map(members.map((m) => [m.userId, m]))
  const knownParties = new Set(parties.map((p) => p.id))
  const errors: FieldErrors = {}
  steps.forEach((step, i) =>
    step.reviewers.forEach((rule, j) => {
      const field = `steps.${i}.reviewers.${j}`
      if (rule.type === 'user') {
        const member = memberById.get(rule.userId)
        if (!member || member.status !== 'active') errors[field] = ['This person is not an active member of the organisation.']
        else if (member.roleKey === 'read-only') errors[field] = ['This person is a read-only member: read-only members cannot review.']
      }
      if (rule.type === 'party' && !knownParties.has(rule.partyId)) errors[field] = ['There is no such party in the organisation.']
    }),
  )
  if (Object.keys(errors).length > 0) throw unprocessable('Some reviewers of the steps do not exist or cannot review.', errors)
}

async function findTemplate(ctx: DomainContext, templateId: string, options: { lock?: boolean } = {}): Promise<TemplateHead> {
  if (!isUuid(templateId)) throw notFound()
  const query = ctx.tx
    .select(templateColumns)
    .from(workflowTemplates)
    .where(and(eq(workflowTemplates.tenantId, ctx.actor.tenantId), eq(workflowTemplates.id, templateId)))
    .limit(1)
  const [row] = options.lock ? await query.for('update') : await query
  if (!row) throw notFound()
  return row
}

async function versionOf(ctx: DomainContext, templateId: string, version: number): Promise<{ id: string; steps: WorkflowStepDefinition[]; createdBy: string | null } | undefined> {
  const [row] = await ctx.tx
    .select({ id: workflowTemplateVersions.id, steps: workflowTemplateVersions.steps, createdBy: workflowTemplateVersions.createdBy })
    .from(workflowTemplateVersions)
    .where(and(eq(workflowTemplateVersions.tenantId, ctx.actor.tenantId), eq(workflowTemplateVersions.templateId, templateId), eq(workflowTemplateVersions.version, version)))
    .limit(1)
  return row
}

async function audit(ctx: DomainContext, templateId: string, data: Record<string, unknown>): Promise<void> {
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action: 'doc-control.template.changed',
    targetType: 'WorkflowTemplate',
    targetId: templateId,
    data,
    at: ctx.now,
  })
}

/** GET /api/workflow-templates: by name; archived ones only when asked. */
export async function listTemplates(ctx: DomainContext, options: { includeArchived: boolean }): Promise<WorkflowTemplate[]> {
  const rows = await ctx.tx
    .select({ ...templateColumns, steps: workflowTemplateVersions.steps })
    .from(workflowTemplates)
    .innerJoin(
      workflowTemplateVersions,
      and(
        eq(workflowTemplateVersions.tenantId, workflowTemplates.tenantId),
        eq(workflowTemplateVersions.templateId, workflowTemplates.id),
        eq(workflowTemplateVersions.version, workflowTemplates.currentVersion),
      ),
    )
    .where(and(eq(workflowTemplates.tenantId, ctx.actor.tenantId), options.includeArchived ? undefined : isNull(workflowTemplates.archivedAt)))
    .orderBy(sql`lower(${workflowTemplates.name})`, asc(workflowTemplates.id))
  return rows.map((row) => view(row, row.currentVersion, row.steps))
}

/** POST /api/workflow-templates: version 1. Admins only. */
export async function createTemplate(ctx: DomainContext, input: TemplateInput): Promise<WorkflowTemplate> {
  requireAdmin(ctx)
  await ensureFreeName(ctx, input.name)
  await checkStepReferences(ctx, input.steps)
  const [row] = await ctx.tx
    .insert(workflowTemplates)
    .values({
      tenantId: ctx.actor.tenantId,
      name: input.name,
      description: input.description ?? null,
      currentVersion: 1,
      createdBy: ctx.actor.userId,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    })
    .returning(templateColumns)
  if (!row) throw new Error('workflow template not stored')
  await ctx.tx
    .insert(workflowTemplateVersions)
    .values({ tenantId: ctx.actor.tenantId, templateId: row.id, version: 1, steps: input.steps, createdBy: ctx.actor.userId, createdAt: ctx.now })
  await audit(ctx, row.id, { change: 'created', name: input.name, version: 1, steps: input.steps.length })
  return view(row, 1, input.steps)
}

/** GET /api/workflow-templates/{templateId}: its current version, or `version` (any member). */
export async function getTemplate(ctx: DomainContext, templateId: string, version?: number): Promise<WorkflowTemplate> {
  const row = await findTemplate(ctx, templateId)
  const wanted = version ?? row.currentVersion
  const found = await versionOf(ctx, row.id, wanted)
  if (!found) throw notFound()
  return view(row, wanted, found.steps)
}

/**
 * PUT /api/workflow-templates/{templateId}: a new version, n + 1; workflows already running keep
 * theirs. Admins only. Sent against an older version than the current one (`expectedRevision`,
 * the template's revision read), nothing is written: 409 KR_EDIT_CONFLICT with the template now
 * and who wrote its current version.
 */
export async function updateTemplate(ctx: DomainContext, templateId: string, input: TemplateInput & { expectedRevision?: number | undefined }): Promise<WorkflowTemplate> {
  requireAdmin(ctx)
  const current = await findTemplate(ctx, templateId, { lock: true })
  if (current.archivedAt) throw templateArchived()
  const written = await versionOf(ctx, current.id, current.currentVersion)
  const currentView = async () => view(current, current.currentVersion, written?.steps ?? [])
  await refuseStaleWrite(ctx, { revision: current.currentVersion, updatedBy: written?.createdBy ?? null, what: 'workflow template' }, input.expectedRevision, currentView)
  await ensureFreeName(ctx, input.name, current.id)
  await checkStepReferences(ctx, input.steps)
  const version = current.currentVersion + 1
  await ctx.tx
    .insert(workflowTemplateVersions)
    .values({ tenantId: ctx.actor.tenantId, templateId: current.id, version, steps: input.steps, createdBy: ctx.actor.userId, createdAt: ctx.now })
  const [row] = await ctx.tx
    .update(workflowTemplates)
    .set({ name: input.name, description: input.description ?? null, currentVersion: version, updatedAt: ctx.now })
    .where(and(eq(workflowTemplates.tenantId, ctx.actor.tenantId), eq(workflowTemplates.id, current.id)))
    .returning(templateColumns)
  if (!row) throw new Error('workflow template not updated')
  await audit(ctx, row.id, { change: 'versioned', name: input.name, version, steps: input.steps.length })
  return view(row, version, input.steps)
}

/** POST /api/workflow-templates/{templateId}/archive: it starts no new review; running ones go on. Archiving twice is the same. Admins only. */
export async function archiveTemplate(ctx: DomainContext, templateId: string): Promise<WorkflowTemplate> {
  requireAdmin(ctx)
  const current = await findTemplate(ctx, templateId, { lock: true })
  let row: TemplateHead = current
  if (!current.archivedAt) {
    const [updated] = await ctx.tx
      .update(workflowTemplates)
      .set({ archivedAt: ctx.now, updatedAt: ctx.now })
      .where(and(eq(workflowTemplates.tenantId, ctx.actor.tenantId), eq(workflowTemplates.id, current.id)))
      .returning(templateColumns)
    if (!updated) throw new Error('workflow template not archived')
    row = updated
    await audit(ctx, row.id, { change: 'archived' })
  }
  const found = await versionOf(ctx, row.id, row.currentVersion)
  if (!found) throw new Error('workflow template without its current version')
  return view(row, row.currentVersion, found.steps)
}

/** The template version a new workflow starts with: the current one of a template that is not archived. */
export async function startingVersion(
  ctx: DomainContext,
  templateId: string,
): Promise<{ versionId: string; template: { id: string; name: string; version: number }; steps: WorkflowStepDefinition[] }> {
  const row = await findTemplate(ctx, templateId)
  if (row.archivedAt) throw templateArchived()
  const found = await versionOf(ctx, row.id, row.currentVersion)
  if (!found) throw new Error('workflow template without its current version')
  return { versionId: found.id, template: { id: row.id, name: row.name, version: row.currentVersion }, steps: found.steps }
}
