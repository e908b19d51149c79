import { and, eq, sql } from 'drizzle-orm'
import { users } from '#server/db/schema'
import { transmittalNumbering, transmittals } from '#server/db/schema-doc-control'
import { namingStandards } from '#server/db/schema-documents'
import { recordAuditIn } from '#server/domain/audit'
import { requireLevel } from '#server/domain/documents/access'
import { ensureProjectActive, findProject, type ProjectRef } from '#server/domain/documents/places'
import type { DomainContext } from '#server/domain/tenancy/context'
import { refuseStaleWrite } from '#server/domain/tenancy/edit-conflict'
import { Problem, problems } from '#server/http/problem'
import { DEFAULT_TRANSMITTAL_FORMAT, parseTransmittalFormat, renderTransmittalNumber, type TransmittalNumbering } from '~/lib/doc-control/transmittal-numbering'
import type { PermissionLevel } from '~/lib/documents/types'
import { projectCodeForNaming } from '~/lib/documents/rules'
import { refuseReadOnly } from './sets'

/**
 * Transmittal numbers (docs/doc-control.md "Transmittal numbers"): each project's format, the
 * project's naming code it is filled with, and the number a new transmittal takes. A number once
 * given is kept: changing the format numbers only the transmittals started after it.
 */

/** The project's naming code: the first code of its naming standard's Project field, else its code without separators (`RSA-A` → `RSAA`); empty when it has neither. */
export async function namingCodeOf(ctx: DomainContext, project: ProjectRef): Promise<string> {
  const [standard] = await ctx.tx
    .select({ fields: namingStandards.fields })
    .from(namingStandards)
    .where(and(eq(namingStandards.tenantId, ctx.actor.tenantId), eq(namingStandards.projectId, project.id)))
    .limit(1)
  const code = standard?.fields.find((f) => f.key === 'project')?.codes?.[0]?.code
  return code ?? projectCodeForNaming(project.code, '')
}

async function formatRow(ctx: DomainContext, projectId: string) {
  const [row] = await ctx.tx
    .select({
      format: transmittalNumbering.format,
      updatedAt: transmittalNumbering.updatedAt,
      updatedBy: users.displayName,
      updatedById: transmittalNumbering.updatedBy,
      revision: transmittalNumbering.revision,
    })
    .from(transmittalNumbering)
    .leftJoin(users, eq(users.id, transmittalNumbering.updatedBy))
    .where(and(eq(transmittalNumbering.tenantId, ctx.actor.tenantId), eq(transmittalNumbering.projectId, projectId)))
    .limit(1)
  return row ?? null
}

/** The number the transmittal of this sequence takes in the project, by the project's format. */
export async function transmittalNumberFor(ctx: DomainContext, project: ProjectRef, seq: number): Promise<string> {
  const row = await formatRow(ctx, project.id)
  return renderTransmittalNumber(row?.format ?? DEFAULT_TRANSMITTAL_FORMAT, { project: await namingCodeOf(ctx, project), seq, year: ctx.now.getUTCFullYear() })
}

/** The setting as the screen shows it, with the number the next transmittal of the project will take. */
async function numberingView(ctx: DomainContext, project: ProjectRef, level: PermissionLevel): Promise<TransmittalNumbering> {
  const row = await formatRow(ctx, project.id)
  const [next] = await ctx.tx
    .select({ seq: sql<number>`coalesce(max(${transmittals.seq}), 0)::int + 1` })
    .from(transmittals)
    .where(and(eq(transmittals.tenantId, ctx.actor.tenantId), eq(transmittals.projectId, project.id)))
  const format = row?.format ?? DEFAULT_TRANSMITTAL_FORMAT
  const namingCode = await namingCodeOf(ctx, project)
  const nextSeq = Number(next?.seq ?? 1)
  return {
    projectId: project.id,
    format,
    defaultFormat: DEFAULT_TRANSMITTAL_FORMAT,
    namingCode,
    nextSeq,
    nextNumber: renderTransmittalNumber(format, { project: namingCode, seq: nextSeq, year: ctx.now.getUTCFullYear() }),
    canChange: ctx.actor.roleKey !== 'read-only' && level === 'manage',
    updatedAtUtc: row?.updatedAt.toISOString() ?? null,
    updatedByName: row?.updatedBy ?? null,
    revision: row?.revision ?? 0,
  }
}

/** GET /api/projects/{projectId}/transmittal-numbering: anyone who can open the project reads it. */
export async function getTransmittalNumbering(ctx: DomainContext, projectId: string): Promise<TransmittalNumbering> {
  const { project, level } = await findProject(ctx, projectId)
  return numberingView(ctx, project, level)
}

/**
 * PUT /api/projects/{projectId}/transmittal-numbering: a new format for the transmittals started
 * from now on (manage on the project, not read-only); numbers already given stay as they are. A
 * save against an older revision of the setting is refused (409 KR_EDIT_CONFLICT).
 */
export async function putTransmittalNumbering(ctx: DomainContext, projectId: string, input: { format: string; expectedRevision?: number | undefined }): Promise<TransmittalNumbering> {
  const { project, level } = await findProject(ctx, projectId)
  requireLevel(level, 'manage')
  refuseReadOnly(ctx, 'Read-only members cannot change how transmittals are numbered.')
  ensureProjectActive(project)
  const format = input.format.trim()
  const { problems: found } = parseTransmittalFormat(format)
  if (found.length > 0) throw new Problem({ ...problems.badRequest('The format has problems.', { format: found }), code: 'KR_VALIDATION' })
  const before = await formatRow(ctx, projectId)
  const refuseSince = (now: Awaited<ReturnType<typeof formatRow>>, expected: number | undefined) =>
    refuseStaleWrite(ctx, { revision: now?.revision ?? 0, updatedBy: now?.updatedById ?? null, what: 'transmittal numbering' }, expected, () => numberingView(ctx, project, level))
  await refuseSince(before, input.expectedRevision)
  const stored = await ctx.tx
    .insert(transmittalNumbering)
    .values({ tenantId: ctx.actor.tenantId, projectId, format, updatedBy: ctx.actor.userId, revision: 1, createdAt: ctx.now, updatedAt: ctx.now })
    .onConflictDoUpdate({
      target: [transmittalNumbering.tenantId, transmittalNumbering.projectId],
      set: { format, updatedBy: ctx.actor.userId, revision: sql`${transmittalNumbering.revision} + 1`, updatedAt: ctx.now },
      // Saved by someone else between the read above and this write: the later save is the stale one.
      setWhere: eq(transmittalNumbering.revision, before?.revision ?? 0),
    })
    .returning({ revision: transmittalNumbering.revision })
  if (stored.length === 0) await refuseSince(await formatRow(ctx, projectId), before?.revision ?? 0)
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action: 'doc-control.numbering.changed',
    targetType: 'Project',
    targetId: projectId,
    data: { from: before?.format ?? DEFAULT_TRANSMITTAL_FORMAT, to: format },
    at: ctx.now,
  })
  return numberingView(ctx, project, level)
}
