import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect, useActionData, useLocation } from 'react-router'
import { itemFormFailure, loadError } from '~/components/reporting/item-action'
import { ItemCompare } from '~/components/reporting/item-compare'
import { ActiveFilters, ItemFilters } from '~/components/reporting/item-filters'
import { ItemList } from '~/components/reporting/item-list'
import { exportJobKindOf } from '~/lib/exports/intents'
import { startBackgroundExport } from '~/lib/exports/start-export.server'
import type { ExportEstimate, ExportJobKind } from '~/lib/exports/types'
import { bulkSummary, ItemDeleteConfirmation, ItemSelectionForm } from '~/components/reporting/item-selection'
import { useReportingAbilities } from '~/components/reporting/project-abilities'
import { invalidForm, noticeFailure, noticeOf, resultFor } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { buttonClasses } from '~/components/ui/button'
import { ButtonLink } from '~/components/ui/button-link'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { liveMatch, useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { createServerApi } from '~/lib/api.server'
import type { ApiClient, ApiResult } from '~/lib/api/types'
import { deriveRole } from '~/lib/auth/role'
import { setFlash } from '~/lib/flash.server'
import {
  hasFilters,
  ITEMS_PAGE_SIZE,
  itemsExportHref,
  itemsHref,
  itemsPunchListHref,
  type ItemsQuery,
  punchListParams,
  outstandingSearch,
  parseItemsQuery,
  viewQueryOf,
  waitsForConfirmationBy,
} from '~/lib/reporting/items-query'
import type { Item, Page } from '~/lib/reporting/types'
import { reportTitle } from '~/lib/reporting/types'
import { DeleteViewSchema, ItemSelectionSchema, parseBulkOperation, SaveViewSchema } from '~/lib/schemas/reporting-items'
import { useShellSession } from '~/root'
import type { Route } from './+types/items'
import { deferred, partsBeforeNavigation } from '~/components/ui/deferred'

// The job form of an export too large to stream, fetched only when the screen shows it (app/components/ui/deferred.tsx).
const loadExportForm = async () => (await import('~/components/exports/background-export-form')).BackgroundExportForm
const BackgroundExportForm = deferred(loadExportForm, import.meta.env.SSR ? await loadExportForm() : undefined, { fetchNow: false })

// The saved views' forms hydrate after the rest of the screen (app/components/ui/deferred.tsx), so
// the form library is not in the screen's first load.
const loadItemSavedViews = async () => (await import('~/components/reporting/item-saved-views')).ItemSavedViews
const ItemSavedViews = deferred(loadItemSavedViews, import.meta.env.SSR ? await loadItemSavedViews() : undefined)
await partsBeforeNavigation(ItemSavedViews)

/** "Waiting for my confirmation" is not a filter of the call: it scans this many pages of this size. */
const VERIFIER_SCAN = { pageSize: 100, pages: 4 } as const

/**
 * The outstanding items (spec §2): filters, columns, grouping, layout, paging, a comparison and
 * saved views, all of it in the URL; bulk actions on the items ticked.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const query = parseItemsQuery(new URL(request.url).searchParams)
  const { api, responseHeaders } = createServerApi(request, context)
  const me = query.assignee === 'me' || query.verifier === 'me' ? await signedInUser(api, responseHeaders) : null
  const [list, projects, packages, members, views, report, compared, punchListSize] = await Promise.all([
    loadOutstanding(api, query, me),
    api.GET('/api/projects', { query: { limit: 100 } }),
    api.GET('/api/packages'),
    api.GET('/api/members'),
    // Both lists in one call (no scope: my personal views and the shared ones), split here.
    api.GET('/api/views'),
    query.reportId ? api.GET('/api/reports/{id}', { path: { id: query.reportId } }) : null,
    Promise.all(query.compare.map((id) => api.GET('/api/items/{id}', { path: { id } }))),
    api.GET('/api/exports/estimate', { query: new URLSearchParams([['kind', 'punch-list-pdf'], ...punchListParams(query)]) }),
  ])
  const compareItems = compared.flatMap((result) => (result.ok ? [result.data] : []))
  return data(
    {
      query,
      page: list.ok ? list.data : null,
      loadNotice: list.ok ? null : noticeOf(list.error),
      choices: {
        projects: projects.ok ? projects.data.items.map(({ id, title }) => ({ id, title })) : [],
        packages: packages.ok ? packages.data.items : [],
        members: members.ok ? members.data.items : [],
        reportTitle: report?.ok ? reportTitle(report.data.title) : null,
      },
      views: {
        personal: views.ok ? views.data.items.filter((view) => view.scope === 'personal') : null,
        shared: views.ok ? views.data.items.filter((view) => view.scope === 'shared') : null,
      },
      compare: { items: compareItems, missing: compared.length - compareItems.length },
      // A selection too large to stream is exported as a job, the spreadsheets and the punch list alike (docs/exports.md); without the answer, they stream as before.
      exportJob: punchListSize.ok && punchListSize.data.asJob ? punchListSize.data : null,
    },
    { headers: responseHeaders },
  )
}

/** Who "me" is in the URL's filters. */
async function signedInUser(api: ApiClient, headers: Headers): Promise<{ userId: string; isAdmin: boolean }> {
  const session = await api.GET('/auth/session')
  if (!session.ok) throw loadError(session.error, headers)
  return { userId: session.data.userId, isAdmin: deriveRole(session.data) === 'admin' }
}

/**
 * One page of GET /api/items/outstanding. For "waiting for my confirmation" the call has no filter
 * (docs/site-reporting.md), so close-requested items are read a few large pages at a time and the
 * ones I created kept; paging goes on from where the scan stopped.
 */
async function loadOutstanding(api: ApiClient, query: ItemsQuery, me: { userId: string; isAdmin: boolean } | null): Promise<ApiResult<Page<Item>>> {
  const page = (limit: number, before?: string | null) => api.GET('/api/items/outstanding', { query: outstandingSearch(query, { userId: me?.userId ?? null, limit, before }) })
  if (query.verifier !== 'me' || !me) return page(ITEMS_PAGE_SIZE)
  const mine: Item[] = []
  let before = query.before
  for (let scanned = 0; scanned < VERIFIER_SCAN.pages; scanned++) {
    const result = await page(VERIFIER_SCAN.pageSize, before)
    if (!result.ok) return result
    mine.push(...result.data.items.filter((item) => waitsForConfirmationBy(item, me)))
    before = result.data.nextCursor
    if (!before || mine.length >= ITEMS_PAGE_SIZE) break
  }
  return { ok: true, status: 200, data: { items: mine, nextCursor: before }, headers: new Headers() }
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  // The forms post to the page's own URL, so the state to return to is the one the user was on.
  const query = parseItemsQuery(new URL(request.url).searchParams)
  const intent = String(formData.get('intent') ?? '')
  const exportKind = exportJobKindOf(intent, ITEMS_EXPORTS.map((format) => format.kind))
  if (exportKind) {
    const failed = await startBackgroundExport(api, responseHeaders, formData, { kind: exportKind, ...Object.fromEntries(punchListParams(query)) })
    return noticeFailure(intent, failed.error, responseHeaders)
  }
  switch (intent) {
    case 'bulk':
    case 'compare':
      return selection(api, formData, query, responseHeaders)
    case 'save-view':
      return saveView(api, formData, query, responseHeaders)
    case 'delete-view':
      return deleteView(api, formData, query, responseHeaders)
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

async function selection(api: ApiClient, formData: FormData, query: ItemsQuery, headers: Headers) {
  const submission = parseWithZod(formData, { schema: ItemSelectionSchema })
  if (submission.status !== 'success') return invalidForm('selection', submission)
  const value = submission.value
  if (value.intent === 'compare') throw redirect(itemsHref({ ...query, compare: value.ids }), { headers })
  const operation = parseBulkOperation(value.operation)
  if (!operation) return invalidForm('selection', submission)
  if (operation.action === 'delete' && value.confirmed !== 'yes') return { intent: 'selection', confirmDelete: value.ids }
  const body = operation.action === 'request-close' ? { body: value.body } : {}
  const result = await api.POST('/api/items/bulk', { body: { ids: value.ids, ...operation, ...body }, idempotencyKey: true })
  if (!result.ok) return itemFormFailure('selection', submission, result.error, headers)

  const failedIds = result.data.results.filter((r) => !r.ok).map((r) => r.id)
  const [failedItems, done] = await Promise.all([
    Promise.all(failedIds.slice(0, 10).map((id) => api.GET('/api/items/{id}', { path: { id } }))),
    describeOperation(api, operation),
  ])
  const numbers = new Map(failedItems.flatMap((r) => (r.ok ? [[r.data.id, r.data.number] as const] : [])))
  await setFlash(headers, bulkSummary(done, result.data.results, (id) => numbers.get(id)))
  throw redirect(itemsHref({ ...query, compare: [] }), { headers })
}

/** The past tense of a bulk operation, with the names people know: "assigned to Alex Admin". */
async function describeOperation(api: ApiClient, operation: NonNullable<ReturnType<typeof parseBulkOperation>>): Promise<string> {
  switch (operation.action) {
    case 'assign': {
      const members = await api.GET('/api/members')
      const member = members.ok ? members.data.items.find((m) => m.userId === operation.assigneeUserId) : undefined
      return `assigned to ${member?.displayName ?? 'the chosen member'}`
    }
    case 'package': {
      const packages = await api.GET('/api/packages')
      const found = packages.ok ? packages.data.items.find((p) => p.key === operation.packageKey) : undefined
      return `moved to the package ${found?.name ?? operation.packageKey}`
    }
    case 'request-close':
      return 'asked to be closed'
    case 'delete':
      return 'deleted'
  }
}

async function saveView(api: ApiClient, formData: FormData, query: ItemsQuery, headers: Headers) {
  const submission = parseWithZod(formData, { schema: SaveViewSchema })
  if (submission.status !== 'success') return invalidForm('save-view', submission)
  const result = await api.POST('/api/views', { body: { ...submission.value, query: viewQueryOf(query) }, idempotencyKey: true })
  if (!result.ok) return itemFormFailure('save-view', submission, result.error, headers)
  const who = result.data.scope === 'shared' ? 'Everyone in your organisation can open it' : 'Only you can see it'
  await setFlash(headers, { tone: 'success', message: `View “${result.data.name}” saved. ${who} under Saved views.` })
  throw redirect(itemsHref(query), { headers })
}

async function deleteView(api: ApiClient, formData: FormData, query: ItemsQuery, headers: Headers) {
  const submission = parseWithZod(formData, { schema: DeleteViewSchema })
  if (submission.status !== 'success') throw data('The view is missing.', { status: 400 })
  const result = await api.DELETE('/api/views/{id}', { path: { id: submission.value.id } })
  if (!result.ok) return noticeFailure('delete-view', result.error, headers)
  await setFlash(headers, { tone: 'success', message: 'View deleted.' })
  throw redirect(itemsHref(query), { headers })
}

export default function Items({ loaderData }: Route.ComponentProps) {
  useLiveRevalidation(liveMatch.reporting)
  const { query, page, loadNotice, choices, views, compare, exportJob } = loaderData
  const actionData = useActionData<typeof action>()
  const session = useShellSession()
  const can = useReportingAbilities()
  const location = useLocation()
  const packageName = (key: string) => choices.packages.find((p) => p.key === key)?.name ?? key
  const selectionResult = resultFor(actionData && 'result' in actionData ? actionData : undefined, 'selection')
  const saveResult = resultFor(actionData && 'result' in actionData ? actionData : undefined, 'save-view')
  const confirmDelete = actionData && 'confirmDelete' in actionData ? actionData.confirmDelete : null
  const notice = (actionData && 'notice' in actionData ? actionData.notice : undefined) ?? loadNotice
  const items = page?.items ?? []
  return (
    <>
      <PageHeader title="Items" description="Outstanding items, open or waiting for their close to be confirmed, newest first." actions={<ItemsExports query={query} exportJob={exportJob} />} />
      {notice ? (
        <Banner tone="critical" title="That did not work" correlationId={notice.correlationId} className="mb-6">
          {notice.message}
        </Banner>
      ) : null}
      {compare.items.length >= 2 ? (
        <ItemCompare items={compare.items} missing={compare.missing} closeTo={itemsHref({ ...query, compare: [] })} packageName={packageName} />
      ) : query.compare.length > 0 ? (
        <Banner tone="warning" title="Nothing to compare" className="mb-6">
          Fewer than two of the chosen items still exist.
        </Banner>
      ) : null}
      <div className="mb-6 flex flex-col gap-3">
        <ItemSavedViews
          personal={views.personal}
          shared={views.shared}
          currentQuery={viewQueryOf(query)}
          canShare={can.write}
          userId={session?.userId ?? null}
          isAdmin={session?.isAdmin ?? false}
          lastResult={saveResult}
          open={saveResult?.status === 'error' || actionData?.intent === 'save-view'}
        />
        <ItemFilters query={query} choices={choices} />
        <ActiveFilters query={query} choices={choices} />
      </div>
      {confirmDelete ? <ItemDeleteConfirmation ids={confirmDelete} items={items} /> : null}
      {page && items.length === 0 ? <ItemsEmpty query={query} /> : null}
      {items.length > 0 ? (
        <ItemSelectionForm key={location.key} canWrite={can.write} members={choices.members} packages={choices.packages} lastResult={selectionResult}>
          <ItemList items={items} query={query} packageName={packageName} selected={selectedIds(selectionResult?.initialValue)} />
        </ItemSelectionForm>
      ) : null}
      <ItemsPaging query={query} nextCursor={page?.nextCursor ?? null} />
    </>
  )
}

/** The items screen's exports, as links while they stream and as the buttons of one job form above EXPORT_JOB_ITEMS items. */
const ITEMS_EXPORTS: readonly { kind: ExportJobKind; label: string; href: (query: ItemsQuery) => string }[] = [
  { kind: 'items-csv', label: 'Export CSV', href: (query) => itemsExportHref(query, 'csv') },
  { kind: 'items-xlsx', label: 'Export Excel', href: (query) => itemsExportHref(query, 'xlsx') },
  { kind: 'punch-list-pdf', label: 'Punch list PDF', href: itemsPunchListHref },
]

/**
 * Downloads of every item the filters select, not only this page: plain links the browser saves,
 * or, for a selection too large to stream, a form that prepares the chosen one in the background.
 */
function ItemsExports({ query, exportJob }: { query: ItemsQuery; exportJob: ExportEstimate | null }) {
  if (exportJob) return <BackgroundExportForm label="Export items" estimate={exportJob} formats={ITEMS_EXPORTS} />
  const link = buttonClasses({ variant: 'secondary', size: 'sm' })
  return (
    <>
      {ITEMS_EXPORTS.map((format) => (
        <a key={format.kind} href={format.href(query)} download className={link}>
          {format.label}
        </a>
      ))}
    </>
  )
}

function selectedIds(initialValue: Record<string, unknown> | null | undefined): Set<string> {
  const ids = initialValue?.ids
  return new Set(Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : typeof ids === 'string' ? [ids] : [])
}

function ItemsEmpty({ query }: { query: ItemsQuery }) {
  if (query.before) {
    return (
      <EmptyState heading="No older items" action={<ButtonLink to={itemsHref({ ...query, before: null })}>Back to the newest items</ButtonLink>}>
        Everything outstanding is on the earlier pages.
      </EmptyState>
    )
  }
  if (hasFilters(query)) {
    return (
      <EmptyState heading="No items match these filters" action={<ButtonLink to={itemsHref({ columns: query.columns, groupBy: query.groupBy, layout: query.layout })}>Clear filters</ButtonLink>}>
        Nothing outstanding matches. Closed items are not listed here: find them on their report.
      </EmptyState>
    )
  }
  return <EmptyState heading="Nothing outstanding">Every item is closed. New items recorded on a report appear here.</EmptyState>
}

/** The API pages backwards in time only (`before`), so the way back is to the newest items. */
function ItemsPaging({ query, nextCursor }: { query: ItemsQuery; nextCursor: string | null }) {
  if (!query.before && !nextCursor) return null
  return (
    <nav aria-label="Items pages" className="flex flex-wrap items-center justify-between gap-3 pt-4">
      {query.before ? (
        <ButtonLink to={itemsHref({ ...query, before: null, compare: [] })} variant="secondary" size="sm">
          <span aria-hidden="true">←</span> Newest items
        </ButtonLink>
      ) : (
        <span />
      )}
      {nextCursor ? (
        <ButtonLink to={itemsHref({ ...query, before: nextCursor, compare: [] })} variant="secondary" size="sm" rel="next">
          Older items <span aria-hidden="true">→</span>
        </ButtonLink>
      ) : null}
    </nav>
  )
}

export function meta() {
  return [{ title: 'Items · Site Portal' }]
}
