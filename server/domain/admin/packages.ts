import { createHash } from 'node:crypto'
import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import { packages, projectPackages, reportItems } from '#server/db/schema-reporting'
import { recordAuditIn } from '#server/domain/audit'
import { unprocessable } from '#server/domain/doc-control/workflow-problems'
import { recordChange, type ChangeType } from '#server/domain/tenancy/change-log'
import type { DomainContext } from '#server/domain/tenancy/context'
import { bumpListRevision, listRevision, refuseStaleWrite } from '#server/domain/tenancy/edit-conflict'
import { projectPackageList } from '#server/domain/reporting/packages'
import { requireProjectRow } from '#server/domain/reporting/projects'
import { isUuid } from '~/lib/schemas/uuid'
import { Problem, problems, type FieldErrors } from '#server/http/problem'
import type { AdminPackage, ProjectPackageSetting } from '~/lib/admin/packages'
import type { PackageListBody, PackagePatch, ProjectPackagesBody } from '~/lib/schemas/admin-packages'

/**
 * Administration › Packages (docs/admin/packages-and-uploads.md): the organisation's packages
 * (add, rename, order, activate, deactivate) and a project's own settings over them. A package
 * items use is never deleted: deactivating it keeps it on those items while new items and edits
 * can no longer choose it (server/domain/reporting/items.ts checks usablePackageKeys).
 */

/** Who asked, for the audit trail. */
export type AuditMeta = { ip?: string | undefined; correlationId?: string | undefined }

type PackageRow = { key: string; name: string; active: boolean; sortOrder: number }

const notFound = () => new Problem(problems.notFound())

/**
 * The change log keys entities by uuid; a package is keyed by its text key. Its change-log id is a
 * name-based uuid (v5 layout over SHA-1) of tenant and key: the same package always has the same id.
 */
export function packageEntityId(tenantId: string, key: string): string {
  const hash = createHash('sha1').update(`package:${tenantId}:${key}`).digest()
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** The organisation in the path must be the session's own; any other reads as not found. */
function requireOwnOrganisation(ctx: DomainContext, organisationId: string): void {
  if (!isUuid(organisationId) || organisationId.toLowerCase() !== ctx.actor.tenantId.toLowerCase()) throw notFound()
}

/** Package writes of one organisation run one at a time, so two admins cannot add one key twice or remove a package an item just took. */
async function lockPackages(ctx: DomainContext): Promise<void> {
  await ctx.tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`packages:${ctx.actor.tenantId}`}, 0))`)
}

async function announce(ctx: DomainContext, meta: AuditMeta, key: string, changeType: ChangeType, data: Record<string, unknown>): Promise<void> {
  await recordChange(ctx, 'Package', packageEntityId(ctx.actor.tenantId, key), changeType)
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action: 'admin.package.changed',
    targetType: 'Package',
    targetId: key,
    ip: meta.ip,
    correlationId: meta.correlationId,
    data: { key, ...data },
    at: ctx.now,
  })
}

/**
 * The organisation's package list is saved as a whole (PUT) or a package at a time (PATCH); both
 * move one revision (list_revisions 'packages'), and a save against an older one is refused
 * (issue 36 §4). A project's own settings have a revision of their own ('project-packages').
 */
export type PackageList = { items: AdminPackage[]; revision: number }
export type ProjectPackageList = { items: ProjectPackageSetting[]; revision: number }

/** GET /api/admin/organisations/{id}/packages: every package, active or not, with how many items and projects use it. */
export async function listAdminPackages(ctx: DomainContext, organisationId: string): Promise<PackageList> {
  requireOwnOrganisation(ctx, organisationId)
  return packageList(ctx)
}

async function packageList(ctx: DomainContext): Promise<PackageList> {
  const { revision } = await listRevision(ctx, 'packages', ctx.actor.tenantId)
  return { items: await readPackages(ctx, revision), revision }
}

/** Before a save of the list or of one package: refused when someone saved since expectedRevision. */
async function refuseStalePackages(ctx: DomainContext, expectedRevision: number | undefined): Promise<void> {
  const list = await listRevision(ctx, 'packages', ctx.actor.tenantId, { lock: true })
  await refuseStaleWrite(ctx, { ...list, what: 'package list' }, expectedRevision, () => packageList(ctx))
}

async function readPackages(ctx: DomainContext, revision: number): Promise<AdminPackage[]> {
  const rows = await ctx.tx
    .select({
      key: packages.key,
      name: packages.name,
      active: packages.active,
      sortOrder: packages.sortOrder,
      createdAt: packages.createdAt,
      updatedAt: packages.updatedAt,
      itemCount:
        sql<number>`(select count(*) from ${reportItems} where ${reportItems.tenantId} = ${packages.tenantId} and ${reportItems.packageKey} = ${packages.key} and ${reportItems.deletedAt} is null)`.mapWith(
          Number,
        ),
      projectOverrideCount:
        sql<number>`(select count(*) from ${projectPackages} where ${projectPackages.tenantId} = ${packages.tenantId} and ${projectPackages.packageKey} = ${packages.key})`.mapWith(
          Number,
        ),
    })
    .from(packages)
    .where(eq(packages.tenantId, ctx.actor.tenantId))
    .orderBy(asc(packages.sortOrder), asc(packages.name), asc(packages.key))
  return rows.map(({ createdAt, updatedAt, ...row }) => ({ ...row, revision, createdAtUtc: createdAt.toISOString(), updatedAtUtc: updatedAt.toISOString() }))
}

async function currentRows(ctx: DomainContext): Promise<Map<string, PackageRow>> {
  const rows = await ctx.tx
    .select({ key: packages.key, name: packages.name, active: packages.active, sortOrder: packages.sortOrder })
    .from(packages)
    .where(eq(packages.tenantId, ctx.actor.tenantId))
  return new Map(rows.map((r) => [r.key, r]))
}

/** Of `keys`, how many item rows (deleted ones too: their activity names the package) carry each. */
async function itemUse(ctx: DomainContext, keys: string[]): Promise<Map<string, number>> {
  if (keys.length === 0) return new Map()
  const rows = await ctx.tx
    .select({ key: reportItems.packageKey, n: sql<number>`count(*)`.mapWith(Number) })
    .from(reportItems)
    .where(and(eq(reportItems.tenantId, ctx.actor.tenantId), inArray(reportItems.packageKey, keys)))
    .groupBy(reportItems.packageKey)
  return new Map(rows.flatMap((r) => (r.key === null ? [] : [[r.key, r.n] as const])))
}

/** What changed between two versions of a package, field by field. */
function differences(before: PackageRow, after: PackageRow): Record<string, { from: unknown; to: unknown }> {
  const changed: Record<string, { from: unknown; to: unknown }> = {}
  for (const field of ['name', 'active', 'sortOrder'] as const) {
    if (before[field] !== after[field]) changed[field] = { from: before[field], to: after[field] }
  }
  return changed
}

function sameName(a: string, b: string): boolean {
  return a.localeCompare(b, undefined, { sensitivity: 'accent' }) === 0
}

/**
 * PUT /api/admin/organisations/{id}/packages: the whole list. New keys are added, known ones
 * renamed, reordered, activated or deactivated; a key left out is removed only if no item carries
 * it (otherwise 422: deactivate it instead). Keys and names are unique. Every change is audited
 * and announced (EntityChanged Package).
 */
export async function replacePackages(ctx: DomainContext, organisationId: string, input: PackageListBody, meta: AuditMeta): Promise<PackageList> {
  requireOwnOrganisation(ctx, organisationId)
  await lockPackages(ctx)
  await refuseStalePackages(ctx, input.expectedRevision)
  const current = await currentRows(ctx)
  const errors: FieldErrors = {}
  const seenKeys = new Map<string, number>()
  input.items.forEach((row, i) => {
    const first = seenKeys.get(row.key)
    if (first !== undefined) errors[`items.${i}.key`] = [`The key “${row.key}” is already listed as package ${first + 1}.`]
    else seenKeys.set(row.key, i)
    const clash = input.items.findIndex((other, j) => j < i && sameName(other.name, row.name))
    if (clash >= 0) errors[`items.${i}.name`] = [`Package ${clash + 1} already has the name “${row.name}”.`]
  })
  const removed = [...current.keys()].filter((key) => !seenKeys.has(key))
  const used = await itemUse(ctx, removed)
  const kept = removed.filter((key) => (used.get(key) ?? 0) > 0)
  if (kept.length > 0) {
    errors.items = kept.map((key) => `“${current.get(key)?.name ?? key}” (${key}) is on ${used.get(key)} item(s) and cannot be removed: deactivate it instead.`)
  }
  if (Object.keys(errors).length > 0) throw unprocessable('Some packages cannot be saved as sent.', errors)

  for (const key of removed) {
    const before = current.get(key)
    await ctx.tx.delete(packages).where(and(eq(packages.tenantId, ctx.actor.tenantId), eq(packages.key, key)))
    await announce(ctx, meta, key, 'Deleted', { change: 'removed', name: before?.name })
  }
  for (const row of input.items) {
    const before = current.get(row.key)
    if (!before) {
      await ctx.tx.insert(packages).values({ tenantId: ctx.actor.tenantId, ...row, createdAt: ctx.now, updatedAt: ctx.now })
      await announce(ctx, meta, row.key, 'Created', { change: 'added', name: row.name, active: row.active, sortOrder: row.sortOrder })
      continue
    }
    const changed = differences(before, row)
    if (Object.keys(changed).length === 0) continue
    await ctx.tx
      .update(packages)
      .set({ name: row.name, active: row.active, sortOrder: row.sortOrder, updatedAt: ctx.now })
      .where(and(eq(packages.tenantId, ctx.actor.tenantId), eq(packages.key, row.key)))
    await announce(ctx, meta, row.key, 'Updated', { change: 'updated', changes: changed })
  }
  const revision = await bumpListRevision(ctx, 'packages', ctx.actor.tenantId)
  return { items: await readPackages(ctx, revision), revision }
}

/** PATCH /api/admin/organisations/{id}/packages/{key}: one package's name, state or order. */
export async function patchPackage(ctx: DomainContext, organisationId: string, key: string, patch: PackagePatch, meta: AuditMeta): Promise<AdminPackage> {
  requireOwnOrganisation(ctx, organisationId)
  await lockPackages(ctx)
  const current = await currentRows(ctx)
  const before = current.get(key)
  if (!before) throw notFound()
  await refuseStalePackages(ctx, patch.expectedRevision)
  const after: PackageRow = { key, name: patch.name ?? before.name, active: patch.active ?? before.active, sortOrder: patch.sortOrder ?? before.sortOrder }
  if ([...current.values()].some((other) => other.key !== key && sameName(other.name, after.name))) {
    throw unprocessable('Another package has this name.', { name: [`Another package is already called “${after.name}”.`] })
  }
  const changed = differences(before, after)
  if (Object.keys(changed).length > 0) {
    await ctx.tx
      .update(packages)
      .set({ name: after.name, active: after.active, sortOrder: after.sortOrder, updatedAt: ctx.now })
      .where(and(eq(packages.tenantId, ctx.actor.tenantId), eq(packages.key, key)))
    await announce(ctx, meta, key, 'Updated', { change: 'updated', changes: changed })
  }
  const all = await readPackages(ctx, await bumpListRevision(ctx, 'packages', ctx.actor.tenantId))
  const found = all.find((p) => p.key === key)
  if (!found) throw new Error('package vanished')
  return found
}

/** A project's packages: the organisation's setting, the project's own and the outcome. */
async function projectSettings(ctx: DomainContext, projectId: string): Promise<ProjectPackageSetting[]> {
  const [all, overrides, effective] = await Promise.all([
    currentRows(ctx),
    ctx.tx
      .select({ key: projectPackages.packageKey, active: projectPackages.active })
      .from(projectPackages)
      .where(and(eq(projectPackages.tenantId, ctx.actor.tenantId), eq(projectPackages.projectId, projectId))),
    projectPackageList(ctx, projectId),
  ])
  const override = new Map(overrides.map((o) => [o.key, o.active]))
  return effective.map((p) => {
    const org = all.get(p.key)
    return { key: p.key, name: p.name, organisationActive: org?.active ?? false, override: override.get(p.key) ?? null, active: p.active }
  })
}

/** GET /api/admin/projects/{id}/packages: the project's settings (admins; members read GET /api/projects/{id}/packages). */
export async function getProjectPackageSettings(ctx: DomainContext, projectId: string): Promise<ProjectPackageList> {
  const project = await requireProjectRow(ctx, projectId)
  const { revision } = await listRevision(ctx, 'project-packages', project.id)
  return { items: await projectSettings(ctx, project.id), revision }
}

/**
 * PUT /api/projects/{id}/packages: the project's own settings, all at once. A package listed with
 * true or false is switched on or off on this project whatever the organisation says; one listed
 * with null, or not listed, follows the organisation.
 */
export async function setProjectPackages(ctx: DomainContext, projectId: string, input: ProjectPackagesBody, meta: AuditMeta): Promise<ProjectPackageList> {
  const project = await requireProjectRow(ctx, projectId)
  await lockPackages(ctx)
  const list = await listRevision(ctx, 'project-packages', project.id, { lock: true })
  await refuseStaleWrite(ctx, { ...list, what: 'project’s package settings' }, input.expectedRevision, () => getProjectPackageSettings(ctx, project.id))
  const known = await currentRows(ctx)
  const errors: FieldErrors = {}
  const wanted = new Map<string, boolean | null>()
  input.items.forEach((row, i) => {
    if (!known.has(row.packageKey)) errors[`items.${i}.packageKey`] = [`There is no package “${row.packageKey}” in the organisation.`]
    else if (wanted.has(row.packageKey)) errors[`items.${i}.packageKey`] = [`The package “${row.packageKey}” is listed twice.`]
    else wanted.set(row.packageKey, row.active)
  })
  if (Object.keys(errors).length > 0) throw unprocessable('Some package settings cannot be saved as sent.', errors)

  const existing = await ctx.tx
    .select({ key: projectPackages.packageKey, active: projectPackages.active })
    .from(projectPackages)
    .where(and(eq(projectPackages.tenantId, ctx.actor.tenantId), eq(projectPackages.projectId, project.id)))
  const before = new Map(existing.map((o) => [o.key, o.active]))
  for (const key of new Set([...before.keys(), ...wanted.keys()])) {
    const from = before.get(key) ?? null
    const to = wanted.get(key) ?? null
    if (from === to) continue
    const where = and(eq(projectPackages.tenantId, ctx.actor.tenantId), eq(projectPackages.projectId, project.id), eq(projectPackages.packageKey, key))
    if (to === null) await ctx.tx.delete(projectPackages).where(where)
    else if (from === null) await ctx.tx.insert(projectPackages).values({ tenantId: ctx.actor.tenantId, projectId: project.id, packageKey: key, active: to })
    else await ctx.tx.update(projectPackages).set({ active: to }).where(where)
    await announce(ctx, meta, key, 'Updated', { change: 'project', projectId: project.id, from, to })
  }
  const revision = await bumpListRevision(ctx, 'project-packages', project.id)
  return { items: await projectSettings(ctx, project.id), revision }
}
