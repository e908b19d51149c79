import { z } from 'zod'
import {
  ITEM_PRIORITIES,
  ITEM_STATUSES,
  type ActivityEntry,
  type BulkResult,
  type DashboardFigures,
  type Item,
  type ItemResponse,
  type Member,
  type PackageInfo,
  type Project,
  type Report,
  type SavedView,
  type UserRef,
} from '~/lib/reporting/types'

/**
 * The site-reporting API's answers (docs/site-reporting.md), as published in /api/openapi.json and
 * checked against the answers (schema incidents, server/http/contract.ts). `.meta({ id })` names a
 * component of the document (docs/decisions/019-contract-named-components.md). They mirror the types of
 * app/lib/reporting/types.ts (`satisfies` keeps the two together); objects are not strict, so a
 * field added later is not a mismatch.
 */

/** A moment as the API sends it: `Date.toISOString()`, UTC. */
const utc = z.iso.datetime().describe('ISO 8601, UTC.')
/** A calendar date, YYYY-MM-DD. */
const day = z.iso.date()
const count = z.number().int().min(0)
const revision = z.number().int().min(0)

export const UserRefSchema = z.object({ id: z.uuid(), displayName: z.string() }).meta({ id: 'UserRef' }) satisfies z.ZodType<UserRef>
/** Someone named with their address: a support assignee, a workflow step's reviewer. */
export const UserContactSchema = z.object({ id: z.uuid(), displayName: z.string(), email: z.string() }).meta({ id: 'UserContact' }) satisfies z.ZodType<UserRef & { email: string }>

/** A page of a keyset list: `nextCursor` is null on the last page. */
export const pageOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor: z.string().nullable() })

/** A list answered whole, as `{ items }`. */
export const listOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item) })

export const ProjectSchema = z.object({
  id: z.uuid(),
  title: z.string().nullable(),
  code: z.string().nullable(),
  status: z.enum(['active', 'archived']),
  archivedAtUtc: utc.nullable(),
  createdBy: UserRefSchema.nullable(),
  createdAtUtc: utc,
  updatedAtUtc: utc,
  revision,
}).meta({ id: 'Project' }) satisfies z.ZodType<Project>

export const ItemCountsSchema = z.object({ open: count, closeRequested: count, closed: count }).meta({ id: 'ItemCounts' })

export const ReportSchema = z.object({
  id: z.uuid(),
  projectId: z.uuid(),
  projectTitle: z.string().nullable(),
  title: z.string().nullable(),
  status: z.enum(['active', 'archived']),
  archivedAtUtc: utc.nullable(),
  createdBy: UserRefSchema.nullable(),
  createdAtUtc: utc,
  updatedAtUtc: utc,
  revision,
  itemCounts: ItemCountsSchema,
}).meta({ id: 'Report' }) satisfies z.ZodType<Report>

export const NextActionSchema = z.object({ by: z.enum(['assignee', 'verifier', 'none']), user: UserRefSchema.nullable(), label: z.string() }).meta({ id: 'NextAction' })

export const ItemSchema = z.object({
  id: z.uuid(),
  number: z.number().int().min(1),
  reportId: z.uuid(),
  reportTitle: z.string().nullable(),
  projectId: z.uuid(),
  projectTitle: z.string().nullable(),
  title: z.string(),
  description: z.string().nullable(),
  status: z.enum(ITEM_STATUSES),
  priority: z.enum(ITEM_PRIORITIES),
  assignee: UserRefSchema.nullable(),
  packageKey: z.string().nullable(),
  location: z.string().nullable(),
  dueDate: day.nullable(),
  overdue: z.boolean(),
  createdBy: UserRefSchema.nullable(),
  closedAtUtc: utc.nullable(),
  closedBy: UserRefSchema.nullable(),
  createdAtUtc: utc,
  updatedAtUtc: utc,
  revision,
  nextAction: NextActionSchema,
}).meta({ id: 'ReportItem' }) satisfies z.ZodType<Item>

export const ItemResponseSchema = z.object({
  id: z.uuid(),
  itemId: z.uuid(),
  kind: z.enum(['response', 'close_confirmed', 'close_rejected']),
  author: UserRefSchema.nullable(),
  body: z.string().nullable(),
  requestClose: z.boolean(),
  photoIds: z.array(z.uuid()),
  createdAtUtc: utc,
}).meta({ id: 'ItemResponse' }) satisfies z.ZodType<ItemResponse>

export const ACTIVITY_ACTIONS = ['created', 'updated', 'responded', 'close_requested', 'closed', 'reopened', 'deleted'] as const satisfies readonly ActivityEntry['action'][]

const activityFields = {
  id: z.uuid(),
  itemId: z.uuid(),
  action: z.enum(ACTIVITY_ACTIONS),
  actor: UserRefSchema.nullable(),
  /** Old → new of each changed field; the values are the field's own (text, date, user id, null…). */
  changes: z.array(z.object({ field: z.string(), from: z.unknown(), to: z.unknown() })),
  reason: z.string().nullable(),
  createdAtUtc: utc,
}

export const ActivityEntrySchema = z.object(activityFields).meta({ id: 'ActivityEntry' }) satisfies z.ZodType<ActivityEntry>

export const PackageInfoSchema = z.object({ key: z.string(), name: z.string(), active: z.boolean() }).meta({ id: 'PackageInfo' }) satisfies z.ZodType<PackageInfo>

export const MemberSchema = z.object({
  userId: z.uuid(),
  displayName: z.string(),
  email: z.string(),
  roleKey: z.enum(['admin', 'read-write', 'read-only']),
}).meta({ id: 'Member' }) satisfies z.ZodType<Member>

export const SavedViewSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  scope: z.enum(['personal', 'shared']),
  query: z.string(),
  owner: UserRefSchema.nullable(),
  createdAtUtc: utc,
  updatedAtUtc: utc,
}).meta({ id: 'SavedView' }) satisfies z.ZodType<SavedView>

export const BulkResultSchema = z.object({
  results: z.array(z.object({ id: z.uuid(), ok: z.boolean(), error: z.string().optional() })),
}).meta({ id: 'BulkResult' }) satisfies z.ZodType<BulkResult>

export const DashboardFiguresSchema = z.object({
  openCount: count,
  awaitingMyConfirmationCount: count,
  overdueCount: count,
  assignedToMeCount: count,
  recentActivity: z.array(z.object({ ...activityFields, item: z.object({ id: z.uuid(), number: z.number().int().min(1), title: z.string() }) })),
}).meta({ id: 'DashboardFigures' }) satisfies z.ZodType<DashboardFigures>

export const ProjectPageSchema = pageOf(ProjectSchema)
export const ReportPageSchema = pageOf(ReportSchema)
export const ItemPageSchema = pageOf(ItemSchema).meta({ id: 'ItemPage' })
export const ItemResponseListSchema = listOf(ItemResponseSchema)
export const ActivityListSchema = listOf(ActivityEntrySchema)
export const PackageListSchema = listOf(PackageInfoSchema).meta({ id: 'PackageList' })
export const MemberListSchema = listOf(MemberSchema)
export const SavedViewListSchema = listOf(SavedViewSchema)

// ---- Sync (docs/site-reporting.md "Change log") ----

const SyncCursorSchema = z.object({ value: z.string(), expiresAtUtc: utc }).meta({ id: 'SyncCursor' })
const changeType = z.enum(['Created', 'Updated', 'Deleted'])
const changeFields = { changeType, revision: z.number().int().min(0), entityId: z.uuid() }

/** One change: `data` is the entity as it is now, null when it was deleted (or left the mobile scope). */
export const SyncChangeSchema = z.discriminatedUnion('entity', [
  z.object({ entity: z.literal('Project'), ...changeFields, data: ProjectSchema.nullable() }),
  z.object({ entity: z.literal('Report'), ...changeFields, data: ReportSchema.nullable() }),
  z.object({ entity: z.literal('ReportItem'), ...changeFields, data: ItemSchema.nullable() }),
]).meta({ id: 'SyncChange' })

/** A snapshot page (no cursor, or a snapshot continuation) or the changes after a revision cursor. */
export const SyncAnswerSchema = z.union([
  z
    .object({
      snapshot: z.object({ projects: z.array(ProjectSchema), reports: z.array(ReportSchema), reportItems: z.array(ItemSchema) }),
      cursor: SyncCursorSchema,
      hasMore: z.boolean(),
    })
    .meta({ id: 'SyncSnapshot' }),
  z.object({ changes: z.array(SyncChangeSchema), cursor: SyncCursorSchema, hasMore: z.boolean() }).meta({ id: 'SyncChanges' }),
]).meta({ id: 'SyncAnswer' })
