import type { Database } from '#server/db/client'
import { asMember, type DomainContext } from '#server/domain/tenancy/context'
import { listOutstanding, type OutstandingQuery } from '#server/domain/reporting/outstanding'
import { organisationPackages } from '#server/domain/reporting/packages'
import { decodeCursor } from '#server/domain/tenancy/paging'
import { requireProjectRow } from '#server/domain/reporting/projects'
import { getReport } from '#server/domain/reporting/reports'
import { refOf, userRefs } from '#server/domain/tenancy/user-refs'
import { getSite, logoBlob } from '#server/domain/settings/site'
import { waitsForConfirmationBy } from '~/lib/reporting/items-query'
import { PRIORITY_LABELS, STATUS_LABELS } from '~/lib/reporting/labels'
import type { Item } from '~/lib/reporting/types'
import { projectTitle, reportTitle } from '~/lib/reporting/types'
import type { ExportColumn } from '#server/domain/formats/columns'

/**
 * The items screen's selection as rows (docs/exports.md): the same call as the screen
 * (listOutstanding, GET /api/items/outstanding) with the same filters, read a batch at a time so a
 * long list never sits in memory, and every column the screen can show.
 */

/** Rows read per tenant transaction: nothing holds a connection while the client reads. */
export const ITEMS_EXPORT_BATCH = 200

export type ItemsSelection = Omit<OutstandingQuery, 'limit' | 'before'> & {
  /** "Waiting for my confirmation", as the screen's filter: close requested on items I must verify. */
  verifierMe?: boolean | undefined
}

type Session = { tenantId: string; userId: string }

/** The items screen's filters by their names on the screen and in the export calls (app/lib/reporting/items-query.ts). */
export type ItemsFilters = {
  project?: string | undefined
  report?: string | undefined
  package?: string | undefined
  status?: 'open' | 'close_requested' | undefined
  assignee?: string | undefined
  overdue?: string | undefined
  verifier?: 'me' | undefined
}

/** The filters as the query they ask for, for this reader (`assignee=me` is the reader). */
export function selectionOf(filters: ItemsFilters, userId: string): ItemsSelection {
  return {
    projectId: filters.project,
    reportId: filters.report,
    packageKey: filters.package,
    status: filters.status,
    assigneeUserId: filters.assignee === 'me' ? userId : filters.assignee,
    overdue: filters.overdue ? true : undefined,
    verifierMe: filters.verifier === 'me',
  }
}

export type SelectionFacts = {
  packageNames: Map<string, string>
  /** The filters in words, for a PDF's cover. */
  filters: string[]
  organisation: string
  timeZone: string
  madeBy: string
  /** The organisation's logo (Settings → Site), for a PDF's cover; null without one. */
  logoKey: string | null
}

/**
 * Another organisation's project or report, or one that does not exist, is a 404 before anything
 * is written; what a PDF's cover says about the selection and who made it.
 */
export async function checkSelection(ctx: DomainContext, selection: ItemsSelection): Promise<SelectionFacts> {
  const filters: string[] = []
  if (selection.projectId) filters.push(`Project: ${projectTitle((await requireProjectRow(ctx, selection.projectId)).title)}`)
  if (selection.reportId) filters.push(`Report: ${reportTitle((await getReport(ctx, selection.reportId)).title)}`)
  const [packages, site, people] = await Promise.all([organisationPackages(ctx), getSite(ctx), userRefs(ctx, [ctx.actor.userId, selection.assigneeUserId ?? null])])
  const packageNames = new Map(packages.map((p) => [p.key, p.name]))
  if (selection.packageKey) filters.push(`Package: ${packageNames.get(selection.packageKey) ?? selection.packageKey}`)
  if (selection.status) filters.push(`Status: ${STATUS_LABELS[selection.status]}`)
  if (selection.assigneeUserId) filters.push(`Assignee: ${refOf(people, selection.assigneeUserId)?.displayName ?? 'a former member'}`)
  if (selection.overdue) filters.push('Overdue')
  if (selection.verifierMe) filters.push('Waiting for my confirmation')
  const logoKey = site.logo ? (await logoBlob(ctx)).key : null
  return { packageNames, filters, organisation: site.name, timeZone: site.timeZone, madeBy: refOf(people, ctx.actor.userId)?.displayName ?? 'a member', logoKey }
}

/** Only that the selection's project and report are there (404 otherwise): an estimate names nothing. */
export async function checkSelectionFound(ctx: DomainContext, selection: ItemsSelection): Promise<{ filters: string[] }> {
  if (selection.projectId) await requireProjectRow(ctx, selection.projectId)
  if (selection.reportId) await getReport(ctx, selection.reportId)
  return { filters: [] }
}

/** The selection, newest first as on screen, one batch per short tenant transaction. */
export async function* selectedItems(db: Database, session: Session, now: () => Date, selection: ItemsSelection): AsyncGenerator<Item[]> {
  const { verifierMe, ...filters } = selection
  const query: OutstandingQuery = { ...filters, limit: ITEMS_EXPORT_BATCH, ...(verifierMe ? { status: 'close_requested' } : {}) }
  let before: string | null = null
  do {
    const cursor = before === null ? undefined : decodeCursor(before, 'before')
    const page = await asMember(db, session, now(), async (ctx) => {
      const result = await listOutstanding(ctx, { ...query, before: cursor })
      const me = { userId: ctx.actor.userId, isAdmin: ctx.actor.roleKey === 'admin' }
      return verifierMe ? { ...result, items: result.items.filter((item) => waitsForConfirmationBy(item, me)) } : result
    })
    if (page.items.length > 0) yield page.items
    before = page.nextCursor
  } while (before !== null)
}

/** Every column of the items screen (ITEM_COLUMNS), with what a spreadsheet needs besides. */
export function itemColumns(packageNames: Map<string, string>, publicUrl: string): ExportColumn<Item>[] {
  return [
    { header: 'Number', width: 8, value: (item) => item.number },
    { header: 'Title', width: 40, value: (item) => item.title },
    { header: 'Status', width: 16, value: (item) => STATUS_LABELS[item.status] },
    { header: 'Priority', width: 10, value: (item) => PRIORITY_LABELS[item.priority] },
    { header: 'Assignee', width: 24, value: (item) => item.assignee?.displayName ?? '' },
    { header: 'Package', width: 18, value: (item) => (item.packageKey ? (packageNames.get(item.packageKey) ?? item.packageKey) : '') },
    { header: 'Due date', width: 12, value: (item) => item.dueDate ?? '' },
    { header: 'Overdue', width: 9, value: (item) => (item.overdue ? 'yes' : 'no') },
    { header: 'Project', width: 24, value: (item) => projectTitle(item.projectTitle) },
    { header: 'Report', width: 24, value: (item) => reportTitle(item.reportTitle) },
    { header: 'Next action', width: 36, value: (item) => item.nextAction.label },
    { header: 'Location', width: 24, value: (item) => item.location ?? '' },
    { header: 'Created by', width: 24, value: (item) => item.createdBy?.displayName ?? '' },
    { header: 'Created (UTC)', width: 22, value: (item) => item.createdAtUtc },
    { header: 'Updated (UTC)', width: 22, value: (item) => item.updatedAtUtc },
    { header: 'Link', width: 40, value: (item) => `${publicUrl.replace(/\/$/, '')}/items/${item.id}` },
  ]
}
