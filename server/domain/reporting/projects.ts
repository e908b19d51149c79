import { randomUUID } from 'node:crypto'
import { and, desc, eq, sql, type AnyColumn, type Placeholder, type SQL } from 'drizzle-orm'
import { reusableSelect, type ValueOf } from '#server/db/reusable-select'
import { projects } from '#server/db/schema-reporting'
import { users } from '#server/db/schema'
import { isUuid } from '~/lib/schemas/uuid'
import { Problem, problems } from '#server/http/problem'
import type { PackageInfo, Page, Project } from '~/lib/reporting/types'
import { recordChange, recordScopeChange } from '../tenancy/change-log'
import type { DomainContext } from '../tenancy/context'
import { type Cursor, pageOf } from '../tenancy/paging'
import { projectPackageListOrNone } from './packages'
import { ensure } from './permissions'
import { refuseStaleWrite } from '../tenancy/edit-conflict'
import { refOf, userRefs } from '../tenancy/user-refs'

/** docs/site-reporting.md "Validation": project and report titles. */
export const TITLE_MAX = 200
/** Ours (the contract is silent): long enough for "2021-SYM-Z2" style codes, short enough for a column. */
export const PROJECT_CODE_MAX = 40

export const LIST_STATUSES = ['active', 'archived', 'all'] as const
export type ListStatus = (typeof LIST_STATUSES)[number]

export function notFound(): Problem {
  return new Problem(problems.notFound())
}

export function archivedConflict(detail: string): Problem {
  return new Problem({ status: 409, title: 'Conflict', detail, code: 'KR_ARCHIVED', remediation: 'Unarchive it first, or choose another.' })
}

/**
 * Keyset condition for lists ordered newest first: rows strictly after the cursor's row in
 * (createdAt desc, id desc). createdAt is always written from the domain clock (millisecond
 * precision), so the cursor's ISO time matches the stored value exactly.
 */
export function olderThan(cursor: Cursor | undefined, createdAt: AnyColumn, id: AnyColumn): SQL | undefined {
  if (!cursor) return undefined
  return olderThanKey(cursor.createdAt.toISOString(), cursor.id, createdAt, id)
}

/** The same condition for a cursor given as the driver's values, or as placeholders (a select built once). */
export function olderThanKey(cursorCreatedAt: string | Placeholder, cursorId: string | Placeholder, createdAt: AnyColumn, id: AnyColumn): SQL {
  return sql`(${createdAt}, ${id}) < (${cursorCreatedAt}::timestamptz, ${cursorId}::uuid)`
}

/** An archived row is one whose status says so; 'all' filters nothing. */
export function statusFilter(column: AnyColumn, status: ListStatus): SQL | undefined {
  return status === 'all' ? undefined : eq(column, status)
}

export const projectColumns = {
  id: projects.id,
  title: projects.title,
  code: projects.code,
  status: projects.status,
  archivedAt: projects.archivedAt,
  createdBy: projects.createdBy,
  updatedBy: projects.updatedBy,
  createdAt: projects.createdAt,
  updatedAt: projects.updatedAt,
  revision: projects.revision,
}

export type ProjectRow = { id: string; title: string | null; code: string | null; status: string; archivedAt: Date | null; createdBy: string | null; updatedBy: string | null; createdAt: Date; updatedAt: Date; revision: number }

export function toProject(row: ProjectRow, refs: Awaited<ReturnType<typeof userRefs>>): Project {
  return {
    id: row.id,
    title: row.title,
    code: row.code,
    status: row.status === 'archived' ? 'archived' : 'active',
    archivedAtUtc: row.archivedAt?.toISOString() ?? null,
    createdBy: refOf(refs, row.createdBy),
    createdAtUtc: row.createdAt.toISOString(),
    updatedAtUtc: row.updatedAt.toISOString(),
    revision: row.revision,
  } satisfies Project
}

async function present(ctx: DomainContext, row: ProjectRow): Promise<Project> {
  return toProject(row, await userRefs(ctx, [row.createdBy]))
}

/** The project row of this tenant, or undefined; `lock` takes a row lock until the transaction ends. */
export async function findProjectRow(ctx: DomainContext, id: string, lock?: 'update' | 'share'): Promise<ProjectRow | undefined> {
  if (!isUuid(id)) return undefined
  const query = ctx.tx
    .select(projectColumns)
    .from(projects)
    .where(and(eq(projects.tenantId, ctx.actor.tenantId), eq(projects.id, id)))
  const [row] = lock ? await query.for(lock) : await query
  return row
}

export async function requireProjectRow(ctx: DomainContext, id: string, lock?: 'update' | 'share'): Promise<ProjectRow> {
  const row = await findProjectRow(ctx, id, lock)
  if (!row) throw notFound()
  return row
}

export async function listProjects(ctx: DomainContext, query: { limit: number; after: Cursor | undefined; status: ListStatus }): Promise<Page<Project>> {
  const shape = `${query.status === 'all' ? 'all' : 'status'}${query.after ? ' after' : ''}` as const
  const rows = await selectProjectPage(
    ctx.tx,
    { tenantId: ctx.actor.tenantId, status: query.status, afterCreatedAt: query.after?.createdAt.toISOString(), afterId: query.after?.id, limit: query.limit + 1 },
    shape,
  )
  const page = pageOf(rows, query.limit)
  const refs = new Map(page.rows.flatMap((r) => (r.createdBy !== null && r.createdByName !== null ? [[r.createdBy, { id: r.createdBy, displayName: r.createdByName }] as const] : [])))
  return { items: page.rows.map((row) => toProject(row, refs)), nextCursor: page.nextCursor }
}

/**
 * A page of projects with their creators' names joined in: one statement for the page (issue 37),
 * whose SQL drizzle builds once per shape (server/db/reusable-select.ts).
 */
const selectProjectPage = reusableSelect(
  (tx, value: ValueOf<{ tenantId: string; status: ListStatus; afterCreatedAt: string | undefined; afterId: string | undefined; limit: number }>, shape: `${'all' | 'status'}${'' | ' after'}`) =>
    tx
      .select({ ...projectColumns, createdByName: users.displayName })
      .from(projects)
      .leftJoin(users, eq(users.id, projects.createdBy))
      .where(
        and(
          eq(projects.tenantId, value('tenantId')),
          shape.startsWith('status') ? eq(projects.status, value('status')) : undefined,
          shape.endsWith('after') ? olderThanKey(value('afterCreatedAt'), value('afterId'), projects.createdAt, projects.id) : undefined,
        ),
      )
      .orderBy(desc(projects.createdAt), desc(projects.id))
      .limit(value('limit')),
)

export async function getProject(ctx: DomainContext, id: string): Promise<Project> {
  return present(ctx, await requireProjectRow(ctx, id))
}

/** Titles and codes arrive already trimmed, with "" turned into null (the API's schema does that). */
export type ProjectInput = { title?: string | null | undefined; code?: string | null | undefined }

export async function createProject(ctx: DomainContext, input: ProjectInput): Promise<Project> {
  ensure(ctx.actor, 'project.create')
  const id = randomUUID()
  const revision = await recordChange(ctx, 'Project', id, 'Created')
  const [row] = await ctx.tx
    .insert(projects)
    .values({ tenantId: ctx.actor.tenantId, id, title: input.title ?? null, code: input.code ?? null, createdBy: ctx.actor.userId, revision, createdAt: ctx.now, updatedAt: ctx.now })
    .returning(projectColumns)
  if (!row) throw new Error('project not stored')
  return present(ctx, row)
}

/** PATCH: absent fields stay; a patch that changes nothing records no change. */
export async function updateProject(ctx: DomainContext, id: string, patch: ProjectInput & { expectedRevision?: number | undefined }): Promise<Project> {
  const current = await requireProjectRow(ctx, id, 'update')
  ensure(ctx.actor, 'project.rename', { createdBy: current.createdBy })
  await refuseStaleWrite(ctx, { ...current, what: 'project' }, patch.expectedRevision, () => present(ctx, current))
  const next = { title: patch.title === undefined ? current.title : patch.title, code: patch.code === undefined ? current.code : patch.code }
  if (next.title === current.title && next.code === current.code) return present(ctx, current)
  return present(ctx, await writeProject(ctx, id, next))
}

/** Archiving an archived project (or unarchiving an active one) answers it unchanged. */
export async function setProjectArchived(ctx: DomainContext, id: string, archived: boolean): Promise<Project> {
  const current = await requireProjectRow(ctx, id, 'update')
  ensure(ctx.actor, 'project.archive', { createdBy: current.createdBy })
  if ((current.status === 'archived') === archived) return present(ctx, current)
  const row = await writeProject(ctx, id, archived ? { status: 'archived', archivedAt: ctx.now } : { status: 'active', archivedAt: null })
  await recordScopeChange(ctx, row.revision)
  return present(ctx, row)
}

async function writeProject(ctx: DomainContext, id: string, set: Partial<Pick<typeof projects.$inferInsert, 'title' | 'code' | 'status' | 'archivedAt'>>): Promise<ProjectRow> {
  const revision = await recordChange(ctx, 'Project', id, 'Updated')
  const [row] = await ctx.tx
    .update(projects)
    .set({ ...set, revision, updatedBy: ctx.actor.userId, updatedAt: ctx.now })
    .where(and(eq(projects.tenantId, ctx.actor.tenantId), eq(projects.id, id)))
    .returning(projectColumns)
  if (!row) throw new Error('project not updated')
  return row
}

/** The packages usable on one project of this tenant (404 for any other id). */
export async function packagesOfProject(ctx: DomainContext, id: string): Promise<PackageInfo[]> {
  if (!isUuid(id)) throw notFound()
  const list = await projectPackageListOrNone(ctx, id)
  if (!list) throw notFound()
  return list
}
