import { and, asc, eq } from 'drizzle-orm'
import { reusableSelect, type ValueOf } from '#server/db/reusable-select'
import { packages, projectPackages, projects } from '#server/db/schema-reporting'
import type { PackageInfo } from '~/lib/reporting/types'
import type { DomainContext } from '../tenancy/context'

/** The organisation's packages (trades, work packages), in their order. */
export async function organisationPackages(ctx: DomainContext): Promise<PackageInfo[]> {
  return organisationPackagesStatement(ctx.tx, {})
}

/** Every items screen reads them: built once (server/db/reusable-select.ts). Row-level security keeps them the tenant's. */
const organisationPackagesStatement = reusableSelect((tx, _value: ValueOf<Record<string, never>>) =>
  tx
    .select({ key: packages.key, name: packages.name, active: packages.active })
    .from(packages)
    .orderBy(asc(packages.sortOrder), asc(packages.name)),
)

/**
 * The packages usable on a project: the organisation's active ones, unless the project switched
 * one off, plus any the project switched on itself.
 */
export async function projectPackageList(ctx: DomainContext, projectId: string): Promise<PackageInfo[]> {
  const [all, overrides] = await Promise.all([
    organisationPackages(ctx),
    ctx.tx
      .select({ key: projectPackages.packageKey, active: projectPackages.active })
      .from(projectPackages)
      .where(and(eq(projectPackages.tenantId, ctx.actor.tenantId), eq(projectPackages.projectId, projectId))),
  ])
  const override = new Map(overrides.map((o) => [o.key, o.active]))
  return all.map((p) => ({ ...p, active: override.get(p.key) ?? p.active }))
}

/**
 * The same in one statement (the item page asks it: issue 37), or undefined when the project is
 * not one of this tenant's: the project, its organisation's packages and its own switches joined.
 */
export async function projectPackageListOrNone(ctx: DomainContext, projectId: string): Promise<PackageInfo[] | undefined> {
  const rows = await projectPackagesStatement(ctx.tx, { tenantId: ctx.actor.tenantId, projectId })
  if (rows.length === 0) return undefined
  return rows.flatMap((r) => (r.key === null || r.name === null || r.active === null ? [] : [{ key: r.key, name: r.name, active: r.override ?? r.active }]))
}

/** Every item page reads them: built once (server/db/reusable-select.ts). */
const projectPackagesStatement = reusableSelect((tx, value: ValueOf<{ tenantId: string; projectId: string }>) =>
  tx
    .select({ key: packages.key, name: packages.name, active: packages.active, override: projectPackages.active })
    .from(projects)
    .leftJoin(packages, eq(packages.tenantId, projects.tenantId))
    .leftJoin(projectPackages, and(eq(projectPackages.tenantId, projects.tenantId), eq(projectPackages.projectId, projects.id), eq(projectPackages.packageKey, packages.key)))
    .where(and(eq(projects.tenantId, value('tenantId')), eq(projects.id, value('projectId'))))
    .orderBy(asc(packages.sortOrder), asc(packages.name)),
)

export async function usablePackageKeys(ctx: DomainContext, projectId: string): Promise<Set<string>> {
  return new Set((await projectPackageList(ctx, projectId)).filter((p) => p.active).map((p) => p.key))
}
