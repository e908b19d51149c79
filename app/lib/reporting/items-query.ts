import { STATUS_LABELS } from './labels'
import { type Item, projectTitle, reportTitle } from './types'
import { isUuid } from '~/lib/schemas/uuid'

/**
 * The items screen's state, all of it in the URL (a view is a link, and it works without
 * JavaScript): filters, the columns shown, grouping, layout, the paging cursor and a comparison.
 * Parsing never fails: a value it does not understand is dropped, so an old bookmark or a saved
 * view from an earlier version still opens.
 */

export const ITEM_COLUMNS = ['number', 'title', 'status', 'priority', 'assignee', 'package', 'dueDate', 'project', 'report', 'nextAction'] as const
export type ItemColumn = (typeof ITEM_COLUMNS)[number]

export const COLUMN_LABELS: Record<ItemColumn, string> = {
  number: 'Number',
  title: 'Title',
  status: 'Status',
  priority: 'Priority',
  assignee: 'Assignee',
  package: 'Package',
  dueDate: 'Due date',
  project: 'Project',
  report: 'Report',
  nextAction: 'Next action',
}

export const DEFAULT_COLUMNS: readonly ItemColumn[] = ['number', 'title', 'status', 'priority', 'assignee', 'dueDate', 'nextAction']

export const GROUP_BYS = ['none', 'project', 'report', 'package', 'status', 'assignee'] as const
export type GroupBy = (typeof GROUP_BYS)[number]

export const GROUP_LABELS: Record<GroupBy, string> = {
  none: 'No grouping',
  project: 'Project',
  report: 'Report',
  package: 'Package',
  status: 'Status',
  assignee: 'Assignee',
}

/** `auto`: cards on a phone, a table on a wider screen (chosen by CSS, so it works before script). */
export const LAYOUTS = ['auto', 'table', 'cards'] as const
export type Layout = (typeof LAYOUTS)[number]

/** The outstanding list shows only items that are not closed, so these are the statuses to filter by. */
export const OUTSTANDING_STATUSES = ['open', 'close_requested'] as const
export type OutstandingStatus = (typeof OUTSTANDING_STATUSES)[number]

/** A page of the list: the API's default page size (docs/site-reporting.md). */
export const ITEMS_PAGE_SIZE = 25

/** How many items a comparison shows side by side: more do not fit a screen. */
export const COMPARE_MIN = 2
export const COMPARE_MAX = 5

export type ItemsQuery = {
  projectId: string | null
  reportId: string | null
  packageKey: string | null
  status: OutstandingStatus | null
  /** A member's id, or `me` (kept as `me` so a saved view means whoever opens it). */
  assignee: string | null
  overdue: boolean
  /** `me`: items waiting for my confirmation (close requested on items I created). */
  verifier: 'me' | null
  columns: ItemColumn[]
  groupBy: GroupBy
  layout: Layout
  /** The paging cursor of GET /api/items/outstanding. */
  before: string | null
  /** Item ids shown side by side. */
  compare: string[]
}

export const DEFAULT_ITEMS_QUERY: ItemsQuery = {
  projectId: null,
  reportId: null,
  packageKey: null,
  status: null,
  assignee: null,
  overdue: false,
  verifier: null,
  columns: [...DEFAULT_COLUMNS],
  groupBy: 'none',
  layout: 'auto',
  before: null,
  compare: [],
}

const PACKAGE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/
const CURSOR = /^[A-Za-z0-9_=-]{1,512}$/
const TRUE_VALUES = new Set(['1', 'true', 'yes', 'on'])

function first(params: URLSearchParams, ...names: string[]): string | null {
  for (const name of names) {
    const value = params.get(name)?.trim()
    if (value) return value
  }
  return null
}

function oneOf<T extends string>(value: string | null, allowed: readonly T[]): T | null {
  return value !== null && (allowed as readonly string[]).includes(value) ? (value as T) : null
}

export function isItemId(value: string): boolean {
  return isUuid(value)
}

/** Columns in their fixed order; an item must stay reachable, so a choice without number or title gets the title. */
function parseColumns(values: string[]): ItemColumn[] {
  const chosen = new Set(values.flatMap((value) => value.split(',')).map((value) => value.trim()))
  const columns = ITEM_COLUMNS.filter((column) => chosen.has(column))
  if (columns.length === 0) return [...DEFAULT_COLUMNS]
  if (!columns.includes('number') && !columns.includes('title')) return ITEM_COLUMNS.filter((column) => column === 'title' || chosen.has(column))
  return columns
}

function parseCompare(value: string | null): string[] {
  if (!value) return []
  const ids = [...new Set(value.split(',').map((id) => id.trim().toLowerCase()))].filter(isItemId)
  return ids.length >= COMPARE_MIN ? ids.slice(0, COMPARE_MAX) : []
}

/**
 * The screen's state from its URL. The API's own names (projectId, reportId, packageKey,
 * assigneeUserId) are accepted too, so other screens can link with either.
 */
export function parseItemsQuery(input: URLSearchParams | string): ItemsQuery {
  const params = typeof input === 'string' ? new URLSearchParams(input.replace(/^\?/, '')) : input
  const id = (value: string | null) => (value !== null && isUuid(value) ? value.toLowerCase() : null)
  const assignee = first(params, 'assignee', 'assigneeUserId')
  const packageKey = first(params, 'package', 'packageKey')
  const before = first(params, 'before')
  const overdue = first(params, 'overdue')
  return {
    projectId: id(first(params, 'project', 'projectId')),
    reportId: id(first(params, 'report', 'reportId')),
    packageKey: packageKey !== null && PACKAGE_KEY.test(packageKey) ? packageKey : null,
    status: oneOf(first(params, 'status'), OUTSTANDING_STATUSES),
    assignee: assignee === 'me' ? 'me' : id(assignee),
    overdue: overdue !== null && TRUE_VALUES.has(overdue.toLowerCase()),
    verifier: first(params, 'verifier') === 'me' ? 'me' : null,
    columns: parseColumns(params.getAll('col').concat(params.getAll('columns'))),
    groupBy: oneOf(first(params, 'group'), GROUP_BYS) ?? 'none',
    layout: oneOf(first(params, 'layout'), LAYOUTS) ?? 'auto',
    before: before !== null && CURSOR.test(before) ? before : null,
    compare: parseCompare(first(params, 'compare')),
  }
}

function sameColumns(columns: readonly ItemColumn[]): boolean {
  return columns.length === DEFAULT_COLUMNS.length && columns.every((column, index) => column === DEFAULT_COLUMNS[index])
}

/** The canonical query string (no leading "?"): defaults are left out, so equal states give equal URLs. */
export function serializeItemsQuery(query: Partial<ItemsQuery>): string {
  const q = { ...DEFAULT_ITEMS_QUERY, ...query }
  const params = new URLSearchParams()
  if (q.projectId) params.set('project', q.projectId)
  if (q.reportId) params.set('report', q.reportId)
  if (q.packageKey) params.set('package', q.packageKey)
  if (q.status) params.set('status', q.status)
  if (q.assignee) params.set('assignee', q.assignee)
  if (q.overdue) params.set('overdue', '1')
  if (q.verifier) params.set('verifier', q.verifier)
  if (q.groupBy !== 'none') params.set('group', q.groupBy)
  if (q.layout !== 'auto') params.set('layout', q.layout)
  if (!sameColumns(q.columns)) for (const column of q.columns) params.append('col', column)
  if (q.before) params.set('before', q.before)
  if (q.compare.length >= COMPARE_MIN) params.set('compare', q.compare.join(','))
  return params.toString()
}

/** `/items` with the state, e.g. for links and redirects. */
export function itemsHref(query: Partial<ItemsQuery>): string {
  const search = serializeItemsQuery(query)
  return search ? `/items?${search}` : '/items'
}

export type ItemsExportFormat = 'csv' | 'xlsx'

/**
 * The download of the screen's whole selection (every page): GET /api/items/outstanding/export
 * takes the screen's own filters, so the file holds what the screen lists.
 */
export function itemsExportHref(query: ItemsQuery, format: ItemsExportFormat): string {
  const filters = exportFilters(query)
  return `/api/items/outstanding/export?format=${format}${filters ? `&${filters}` : ''}`
}

/** The punch list PDF of the same selection, grouped as the screen groups it. */
export function itemsPunchListHref(query: ItemsQuery): string {
  const search = punchListParams(query).toString()
  return `/api/items/outstanding/punch-list${search ? `?${search}` : ''}`
}

/** The punch list's query: the selection's filters and the grouping (also what a punch list run as a job is asked with). */
export function punchListParams(query: ItemsQuery): URLSearchParams {
  const params = new URLSearchParams(exportFilters(query))
  if (query.groupBy !== 'none') params.set('group', query.groupBy)
  return params
}

function exportFilters(query: ItemsQuery): string {
  return serializeItemsQuery({
    projectId: query.projectId,
    reportId: query.reportId,
    packageKey: query.packageKey,
    status: query.status,
    assignee: query.assignee,
    overdue: query.overdue,
    verifier: query.verifier,
  })
}

/** What a saved view keeps: the filters and the display, not the page one was on nor a comparison. */
export function viewQueryOf(query: ItemsQuery): string {
  return serializeItemsQuery({ ...query, before: null, compare: [] })
}

/** Whether any filter narrows the list (for the empty state's wording). */
export function hasFilters(query: ItemsQuery): boolean {
  return Boolean(query.projectId || query.reportId || query.packageKey || query.status || query.assignee || query.overdue || query.verifier)
}

/**
 * The search of GET /api/items/outstanding for this state. `me` needs the signed-in user's id.
 * Waiting for my confirmation narrows to close requested; the creator check is the caller's, as
 * the call has no such filter (docs/site-reporting.md).
 */
export function outstandingSearch(query: ItemsQuery, options: { userId: string | null; limit: number; before?: string | null }): URLSearchParams {
  const params = new URLSearchParams()
  params.set('limit', String(options.limit))
  if (query.projectId) params.set('projectId', query.projectId)
  if (query.reportId) params.set('reportId', query.reportId)
  if (query.packageKey) params.set('packageKey', query.packageKey)
  const status = query.verifier ? 'close_requested' : query.status
  if (status) params.set('status', status)
  const assignee = query.assignee === 'me' ? options.userId : query.assignee
  if (assignee) params.set('assigneeUserId', assignee)
  if (query.overdue) params.set('overdue', 'true')
  const before = options.before === undefined ? query.before : options.before
  if (before) params.set('before', before)
  return params
}

/**
 * Whether an item waits for this user's confirmation, as the dashboard counts it: the verifier
 * is the item's creator; an administrator also takes the close requests nobody else can verify.
 */
export function waitsForConfirmationBy(item: Item, user: { userId: string; isAdmin: boolean }): boolean {
  if (item.status !== 'close_requested') return false
  if (item.createdBy?.id === user.userId) return true
  return user.isAdmin && item.nextAction.user === null
}

export type ItemGroup = { key: string; label: string; items: Item[] }

/**
 * The page's items under headings, groups in alphabetical order with the empty group ("No
 * assignee") last, items in their list order. Only the items on this page are grouped.
 */
export function groupItems(items: readonly Item[], groupBy: GroupBy, packageName: (key: string) => string): ItemGroup[] {
  if (groupBy === 'none') return [{ key: 'all', label: 'All items', items: [...items] }]
  const groups = new Map<string, ItemGroup>()
  for (const item of items) {
    const [key, label] = groupKey(item, groupBy, packageName)
    const group = groups.get(key) ?? { key, label, items: [] }
    group.items.push(item)
    groups.set(key, group)
  }
  const order = groupBy === 'status' ? (g: ItemGroup) => OUTSTANDING_STATUSES.indexOf(g.key as OutstandingStatus) : null
  return [...groups.values()].sort((a, b) => {
    if (order) return order(a) - order(b)
    if (a.key === '' || b.key === '') return a.key === '' ? 1 : -1
    return a.label.localeCompare(b.label) || a.key.localeCompare(b.key)
  })
}

function groupKey(item: Item, groupBy: Exclude<GroupBy, 'none'>, packageName: (key: string) => string): [string, string] {
  switch (groupBy) {
    case 'project':
      return [item.projectId, projectTitle(item.projectTitle)]
    case 'report':
      return [item.reportId, reportTitle(item.reportTitle)]
    case 'package':
      return item.packageKey ? [item.packageKey, packageName(item.packageKey)] : ['', 'No package']
    case 'status':
      return [item.status, STATUS_LABELS[item.status]]
    case 'assignee':
      return item.assignee ? [item.assignee.id, item.assignee.displayName] : ['', 'No assignee']
  }
}
