import { data, Form } from 'react-router'
import { workflowStatusLabel } from '~/components/doc-control/workflow-badges'
import { workflowsChanged } from '~/components/doc-control/workflow-live'
import { WorkflowList } from '~/components/doc-control/workflow-list'
import { numberedPagination } from '~/components/doc-control/workflow-paging'
import { Banner } from '~/components/ui/banner'
import { Button } from '~/components/ui/button'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { SelectField } from '~/components/ui/select-field'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { createServerApi } from '~/lib/api.server'
import { WORKFLOW_STATUSES } from '~/lib/doc-control/types'
import { projectTitle } from '~/lib/reporting/types'
import { useLocale } from '~/root'
import type { Route } from './+types/workflows'
import { loadWorkflowsPage } from './workflows.server'

/**
 * Reviews (docs/doc-control.md "Workflow"): a project's reviews, newest first, filtered by status
 * and paged in the URL. A review is started from its document's page ("Start review").
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const page = await loadWorkflowsPage(api, request, responseHeaders)
  return data(page, { headers: responseHeaders })
}

export default function Workflows({ loaderData }: Route.ComponentProps) {
  const { query, choice, list, notice } = loaderData
  useLiveRevalidation(workflowsChanged)
  const locale = useLocale()
  const filtered = query.status !== null
  return (
    <>
      <PageHeader title="Reviews" description="Document reviews of a project: where each stands, whose turn it is, and what is overdue. Start one from a document’s page." />
      {notice ? (
        <Banner tone="critical" title="The reviews could not be loaded" correlationId={notice.correlationId} className="mb-6">
          {notice.message}
        </Banner>
      ) : null}
      {choice.projectId && choice.project ? (
        <div className="flex flex-col gap-4">
          <Form method="get" action="/doc-control/workflows" key={query.status ?? ''} aria-label="Filter reviews" className="flex flex-col gap-3 sm:flex-row sm:items-end">
            <input type="hidden" name="projectId" value={choice.projectId} />
            <SelectField
              label="Status"
              className="sm:min-w-60"
              selectProps={{ name: 'status', id: 'workflows-status', defaultValue: query.status ?? '' }}
              options={[{ value: '', label: 'Every status' }, ...WORKFLOW_STATUSES.map((status) => ({ value: status, label: workflowStatusLabel(status) }))]}
            />
            <Button type="submit" variant="secondary">
              Show
            </Button>
          </Form>
          {list ? (
            <WorkflowList
              workflows={list.items}
              locale={locale}
              caption={`Reviews of ${projectTitle(choice.project.title)}`}
              pagination={numberedPagination(list, 'Reviews pages')}
              emptyState={
                <EmptyState heading={filtered ? 'No reviews with this status.' : 'No reviews yet.'} headingLevel={2}>
                  {filtered ? 'Choose another status, or every status.' : 'Start a review from a document’s page: open the document and use “Start review”.'}
                </EmptyState>
              }
            />
          ) : null}
        </div>
      ) : (
        <EmptyState heading={choice.projects.length > 0 ? 'Choose a project' : 'No projects yet'}>Its document reviews show here.</EmptyState>
      )}
    </>
  )
}

export function meta() {
  return [{ title: 'Reviews · Document control · Site Portal' }]
}
