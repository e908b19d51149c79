import { data, Link, useActionData } from 'react-router'
import { SetDetailsForm } from '~/components/doc-control/set-forms'
import { SetStatusBadge } from '~/components/doc-control/transmittal-labels'
import { setPage } from '~/components/doc-control/transmittal-paths'
import { isUuid } from '~/lib/schemas/uuid'
import { resultFor, type ReportingActionData } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { DataTable } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { createServerApi } from '~/lib/api.server'
import type { DocumentSet } from '~/lib/doc-control/types'
import { formatDateTime } from '~/lib/format'
import { useLocale } from '~/root'
import type { Route } from './+types/sets'
import { createSet, loadSets } from './sets.server'

/**
 * A project's sets (docs/doc-control.md "Sets"): named selections of revisions, draft until
 * published; and "New set".
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  return data(await loadSets(api, request, responseHeaders), { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const projectId = new URL(request.url).searchParams.get('projectId')
  if (formData.get('intent') !== 'create') throw data('Unknown intent', { status: 400 })
  if (!isUuid(projectId)) throw data('Choose a project first.', { status: 400 })
  return createSet(api, projectId, formData, responseHeaders)
}

export default function Sets({ loaderData }: Route.ComponentProps) {
  const { projects, projectId, list, page, hasNext, notice } = loaderData
  const actionData = useActionData<typeof action>() as ReportingActionData | undefined
  const locale = useLocale()
  useLiveRevalidation((change) => change.entityType === 'DocumentSet')
  const shownNotice = actionData?.notice ?? notice
  return (
    <>
      <PageHeader title="Sets" description="Named issues of many documents at chosen revisions. Publishing a set freezes it and stamps its revisions Published." />
      {shownNotice ? (
        <Banner tone="critical" title="That did not work" correlationId={shownNotice.correlationId} className="mb-6">
          {shownNotice.message}
        </Banner>
      ) : null}
      {projectId ? (
        <div className="flex flex-col gap-8">
          {list ? (
            <DataTable
              caption="Sets of the project"
              columns={[
                {
                  key: 'name',
                  header: 'Set',
                  rowHeader: true,
                  cell: (set: DocumentSet) => (
                    <Link to={setPage(set.id, projectId)} className="text-primary-strong underline underline-offset-2">
                      {set.name}
                    </Link>
                  ),
                },
                { key: 'status', header: 'Status', cell: (set) => <SetStatusBadge status={set.status} /> },
                { key: 'revisions', header: 'Revisions', align: 'end', cell: (set) => set.revisions.length },
                {
                  key: 'published',
                  header: 'Published',
                  hideOnMobile: true,
                  cell: (set) =>
                    set.published ? (
                      `${formatDateTime(set.published.at, locale)}${set.published.by ? ` by ${set.published.by.displayName}` : ''}`
                    ) : (
                      <span className="text-muted">Not yet</span>
                    ),
                },
              ]}
              rows={list}
              rowKey={(set) => set.id}
              emptyState={
                <EmptyState heading="No sets yet." headingLevel={2}>
                  Make the first one with “New set”.
                </EmptyState>
              }
              pagination={{
                previous: page > 1 ? { page: String(page - 1) } : null,
                next: hasNext ? { page: String(page + 1) } : null,
                summary: `Page ${page}`,
                label: 'Pages of sets',
              }}
            />
          ) : null}
          <Section title="New set" description="Give it a name; its revisions are chosen next.">
            <SetDetailsForm intent="create" lastResult={resultFor(actionData, 'create')} />
          </Section>
        </div>
      ) : (
        <EmptyState heading={projects.length > 0 ? 'Choose a project' : 'No projects yet'}>
          {projects.length > 0 ? 'Its sets are listed here.' : 'Sets belong to a project. Once your organisation has one, choose it here.'}
        </EmptyState>
      )}
    </>
  )
}

export function meta() {
  return [{ title: 'Sets · Document control · Site Portal' }]
}
