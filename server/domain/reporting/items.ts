import { randomUUID } from 'node:crypto'
import { and, asc, desc, eq, isNull, sql } from 'drizzle-orm'
import { memberships } from '#server/db/schema'
import { itemActivity, projects, reportItems, reports, type ActivityChange } from '#server/db/schema-reporting'
import { rowsOf } from '#server/db/tenancy'
import { Problem, problems, type FieldErrors } from '#server/http/problem'
import type { Item, ItemPriority, Page, UserRef } from '~/lib/reporting/types'
import { recordActivity } from './activity'
import { recordChange } from '../tenancy/change-log'
import type { DomainContext } from '../tenancy/context'
import { refuseStaleWrite } from '../tenancy/edit-conflict'
import { findItem, itemColumns, toItem, toItems, type ItemRow } from './item-view'
import { isUuid } from '~/lib/schemas/uuid'
import { mailItemAssigned, type MailLinks } from './item-mail'
import { refOf, userRefs } from '../tenancy/user-refs'
import { usablePackageKeys } from './packages'
import { pageOf, type Cursor } from '../tenancy/paging'
import { ensure } from './permissions'

/** The editable fields of an item (docs/site-reporting.md "Calls"); null clears one. */
export type ItemFields = {
  title: string
  description: string | null
  priority: ItemPriority
  assigneeUserId: string | null
  packageKey: string | null
  location: string | null
  dueDate: string | null
}

export type NewItem = Pick<ItemFields, 'title'> & Partial<Omit<ItemFields, 'title'>> & { photoIds?: string[] | undefined }
export type ItemPatch = Partial<ItemFields> & { photoIds?: string[] | undefined; expectedRevision?: number | undefined }

export const PHOTOS_NOT_YET = 'Photos arrive with photo upload; none can be attached yet'

export function archivedProblem(detail: string): Problem {
  return new Problem({ status: 409, title: 'Conflict', detail, code: 'KR_ARCHIVED', remediation: 'Unarchive it first.' })
}

/** The report an item belongs to, with its project's status; 404 for another tenant's or a bad id. */
async function findReport(ctx: DomainContext, reportId: string) {
  if (!isUuid(reportId)) throw new Problem(problems.notFound('The report was not found.'))
  const [report] = await ctx.tx
    .select({ id: reports.id, projectId: reports.projectId, status: reports.status, projectStatus: projects.status })
    .from(reports)
    .innerJoin(projects, and(eq(projects.tenantId, reports.tenantId), eq(projects.id, reports.projectId)))
    .where(and(eq(reports.tenantId, ctx.actor.tenantId), eq(reports.id, reportId)))
    .limit(1)
  if (!report) throw new Problem(problems.notFound('The report was not found.'))
  return report
}

/** Photos are attached once photo upload exists (issue 4); until then any photo id is refused. */
export function refusePhotos(photoIds: string[] | undefined, errors: FieldErrors): void {
  if (photoIds && photoIds.length > 0) errors.photoIds = [PHOTOS_NOT_YET]
}

/** An assignee must be an active member of the organisation; answers their UserRef. */
export async function activeMember(ctx: DomainContext, userId: string): Promise<UserRef | undefined> {
  const [member] = await ctx.tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.tenantId, ctx.actor.tenantId), eq(memberships.userId, userId), eq(memberships.status, 'active')))
    .limit(1)
  if (!member) return undefined
  return (await userRefs(ctx, [userId])).get(userId)
}

async function checkFields(ctx: DomainContext, projectId: string, fields: ItemPatch, errors: FieldErrors): Promise<void> {
  if (fields.assigneeUserId && !(await activeMember(ctx, fields.assigneeUserId))) {
    errors.assigneeUserId = ['Choose an active member of the organisation.']
  }
  if (fields.packageKey && !(await usablePackageKeys(ctx, projectId)).has(fields.packageKey)) {
    errors.packageKey = ['Choose a package that is in use on this project.']
  }
  refusePhotos(fields.photoIds, errors)
}

function throwIfInvalid(errors: FieldErrors): void {
  if (Object.keys(errors).length > 0) throw new Problem(problems.badRequest('Some fields are not valid.', errors))
}

/**
 * The next item number of the tenant. Called after recordChange, which holds the tenant's
 * revision row lock until commit, so concurrent creates take numbers one at a time; deleted items
 * keep theirs, so a number is never handed out twice.
 */
async function nextItemNumber(ctx: DomainContext): Promise<number> {
  const [row] = rowsOf<{ next: number }>(
    await ctx.tx.execute(sql`select coalesce(max(${reportItems.number}), 0) + 1 as next from ${reportItems} where ${reportItems.tenantId} = ${ctx.actor.tenantId}`),
  )
  return Number(row?.next ?? 1)
}

const TRACKED = ['title', 'description', 'priority', 'packageKey', 'location', 'dueDate'] as const

/** POST /api/reports/{reportId}/items */
export async function createItem(ctx: DomainContext, reportId: string, input: NewItem, links: MailLinks): Promise<Item> {
  const report = await findReport(ctx, reportId)
  ensure(ctx.actor, 'item.create')
  if (report.projectStatus === 'archived') throw archivedProblem('The project is archived and takes no new items.')
  if (report.status === 'archived') throw archivedProblem('The report is archived and takes no new items.')
  const errors: FieldErrors = {}
  await checkFields(ctx, report.projectId, input, errors)
  throwIfInvalid(errors)

  const id = randomUUID()
  const revision = await recordChange(ctx, 'ReportItem', id, 'Created')
  const fields = {
    title: input.title,
    description: input.description ?? null,
    priority: input.priority ?? 'medium',
    assigneeUserId: input.assigneeUserId ?? null,
    packageKey: input.packageKey ?? null,
    location: input.location ?? null,
    dueDate: input.dueDate ?? null,
  }
  const [row] = await ctx.tx
    .insert(reportItems)
    .values({
      tenantId: ctx.actor.tenantId,
      id,
      reportId: report.id,
      projectId: report.projectId,
      number: await nextItemNumber(ctx),
      ...fields,
      status: 'open',
      createdBy: ctx.actor.userId,
      revision,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    })
    .returning(itemColumns)
  if (!row) throw new Error('item not stored')

  const changes: ActivityChange[] = [{ field: 'status', from: null, to: 'open' }]
  for (const field of TRACKED) if (fields[field] !== null) changes.push({ field, from: null, to: fields[field] })
  if (fields.assigneeUserId) changes.push({ field: 'assignee', from: null, to: (await userRefs(ctx, [fields.assigneeUserId])).get(fields.assigneeUserId) ?? null })
  await recordActivity(ctx, id, 'created', changes)
  if (row.assigneeUserId) await mailItemAssigned(ctx, row, links)
  return toItem(ctx, row)
}

/** GET /api/items/{id} */
export async function getItem(ctx: DomainContext, id: string): Promise<Item> {
  return toItem(ctx, await findItem(ctx, id))
}

/** PATCH /api/items/{id}: one activity entry with every changed field; nothing changed, nothing recorded. */
export async function updateItem(ctx: DomainContext, id: string, patch: ItemPatch, links: MailLinks): Promise<Item> {
  const row = await findItem(ctx, id, { lock: true })
  ensure(ctx.actor, 'item.edit')
  // Optimistic concurrency (the one convention, tenancy/edit-conflict.ts): an editor who read an
  // older revision would overwrite the change they never saw. Who changed it last is the item's
  // latest activity (every change of an item records one).
  if (patch.expectedRevision !== undefined && patch.expectedRevision !== row.revision) {
    const [last] = await ctx.tx
      .select({ actor: itemActivity.actorUserId })
      .from(itemActivity)
      .where(and(eq(itemActivity.tenantId, ctx.actor.tenantId), eq(itemActivity.itemId, row.id)))
      .orderBy(desc(itemActivity.createdAt))
      .limit(1)
    await refuseStaleWrite(ctx, { revision: row.revision, updatedBy: last?.actor ?? null, what: 'item' }, patch.expectedRevision, () => toItem(ctx, row))
  }
  const errors: FieldErrors = {}
  // An assignee or package already on the item stays acceptable; only a new one is checked.
  await checkFields(
    ctx,
    row.projectId,
    {
      assigneeUserId: patch.assigneeUserId === row.assigneeUserId ? undefined : patch.assigneeUserId,
      packageKey: patch.packageKey === row.packageKey ? undefined : patch.packageKey,
      photoIds: patch.photoIds,
    },
    errors,
  )
  throwIfInvalid(errors)

  const set: Partial<ItemFields> = {}
  const changes: ActivityChange[] = []
  for (const field of TRACKED) {
    const next = patch[field]
    if (next !== undefined && next !== row[field]) {
      changes.push({ field, from: row[field], to: next })
      Object.assign(set, { [field]: next })
    }
  }
  if (patch.assigneeUserId !== undefined && patch.assigneeUserId !== row.assigneeUserId) {
    const people = await userRefs(ctx, [row.assigneeUserId, patch.assigneeUserId])
    changes.push({ field: 'assignee', from: refOf(people, row.assigneeUserId), to: refOf(people, patch.assigneeUserId) })
    set.assigneeUserId = patch.assigneeUserId
  }
  if (changes.length === 0) return toItem(ctx, row)

  const revision = await recordChange(ctx, 'ReportItem', row.id, 'Updated')
  const updated = await storeItem(ctx, row.id, { ...set, revision, updatedAt: ctx.now })
  await recordActivity(ctx, row.id, 'updated', changes)
  if (set.assigneeUserId) await mailItemAssigned(ctx, updated, links)
  return toItem(ctx, updated)
}

/** DELETE /api/items/{id}: a soft delete; the activity stays, sync hears Deleted. */
export async function deleteItem(ctx: DomainContext, id: string): Promise<void> {
  const row = await findItem(ctx, id, { lock: true })
  ensure(ctx.actor, 'item.delete', { createdBy: row.createdBy })
  const revision = await recordChange(ctx, 'ReportItem', row.id, 'Deleted')
  await storeItem(ctx, row.id, { deletedAt: ctx.now, revision, updatedAt: ctx.now })
  await recordActivity(ctx, row.id, 'deleted')
}

/** Writes columns of a live item (the caller holds its row lock) and answers the new row. */
export async function storeItem(ctx: DomainContext, id: string, set: Partial<typeof reportItems.$inferInsert>): Promise<ItemRow> {
  const [row] = await ctx.tx
    .update(reportItems)
    .set(set)
    .where(and(eq(reportItems.tenantId, ctx.actor.tenantId), eq(reportItems.id, id)))
    .returning(itemColumns)
  if (!row) throw new Error('item not updated')
  return row
}

/** GET /api/reports/{reportId}/items: oldest first, the order they were recorded. */
export async function listReportItems(ctx: DomainContext, reportId: string, page: { limit: number; after?: Cursor | undefined }): Promise<Page<Item>> {
  const report = await findReport(ctx, reportId)
  const rows = await ctx.tx
    .select(itemColumns)
    .from(reportItems)
    .where(
      and(
        eq(reportItems.tenantId, ctx.actor.tenantId),
        eq(reportItems.reportId, report.id),
        isNull(reportItems.deletedAt),
        page.after ? sql`(${reportItems.createdAt}, ${reportItems.id}) > (${page.after.createdAt.toISOString()}::timestamptz, ${page.after.id}::uuid)` : undefined,
      ),
    )
    .orderBy(asc(reportItems.createdAt), asc(reportItems.id))
    .limit(page.limit + 1)
  const { rows: pageRows, nextCursor } = pageOf(rows, page.limit)
  return { items: await toItems(ctx, pageRows), nextCursor }
}
