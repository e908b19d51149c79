import { data, Link, useActionData, useLocation } from 'react-router'
import { ApproveForm, CancelForm, CommentForm, ReassignForm, RejectForm, ResubmitForm } from '~/components/doc-control/workflow-action-forms'
import { allowedText } from '~/components/doc-control/workflow-badges'
import { WorkflowFacts, WorkflowRevisions, WorkflowSteps } from '~/components/doc-control/workflow-details'
import { WorkflowHistory } from '~/components/doc-control/workflow-history'
import { workflowChanged } from '~/components/doc-control/workflow-live'
import { resultFor } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { Card } from '~/components/ui/card'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { createServerApi } from '~/lib/api.server'
import { useLocale } from '~/root'
import type { Route } from './+types/workflow'
import { loadWorkflowPage, runWorkflowAction, type WorkflowActionData, workflowIntent } from './workflow.server'

/**
 * One review (docs/doc-control.md "Workflow"): the revisions under review, the steps with their
 * reviewers and answers, due and overdue, the history, and the forms of the actions the caller may
 * take now (allowedActions). A wrong action for the state (409) comes back as a notice naming what
 * is allowed now.
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const page = await loadWorkflowPage(api, params.workflowId, responseHeaders)
  return data(page, { headers: responseHeaders })
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const url = new URL(request.url)
  return runWorkflowAction(api, workflowIntent(formData), params.workflowId, formData, responseHeaders, { back: url.pathname + url.search })
}

export default function WorkflowPage({ loaderData }: Route.ComponentProps) {
  const { workflow, projectName, members, resubmit, loadNotice } = loaderData
  useLiveRevalidation(workflowChanged(workflow.id))
  const actionData = useActionData<typeof action>() as WorkflowActionData | undefined
  const locale = useLocale()
  const location = useLocation()
  const can = new Set(workflow.allowedActions)
  const step = workflow.currentStep !== null ? workflow.steps[workflow.currentStep] : undefined
  const notice = actionData?.notice ?? loadNotice
  const listHref = `/doc-control/workflows?${new URLSearchParams({ projectId: workflow.projectId })}`
  const openTasks = workflow.tasks.filter((t) => t.round === workflow.round && (t.status === 'pending' || t.status === 'waiting'))
  const stepName = (index: number) => `Step ${index + 1}${workflow.steps[index] ? ` (${workflow.steps[index].name})` : ''}`
  // After a successful action the page is loaded afresh: a new key empties the forms.
  const formKey = `${location.key}-${workflow.status}-${workflow.round}-${workflow.currentStep ?? 'none'}`
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-3 text-sm">
        <Link to={listHref} className="text-primary-strong underline underline-offset-2">
          Reviews of {projectName}
        </Link>
      </nav>
      <PageHeader title={`Review of ${reviewTitle(workflow.revisions)}`} description={`${workflow.template.name}, version ${workflow.template.version}`} />
      {notice ? (
        <Banner tone="critical" title={actionData?.allowed ? 'Not possible now' : 'That did not work'} correlationId={notice.correlationId} className="mb-6">
          {notice.message}
          {actionData?.allowed && !notice.message.includes(allowedText(actionData.allowed)) ? ` ${allowedText(actionData.allowed)}` : null}
        </Banner>
      ) : null}
      <div className="grid gap-8 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <div className="flex min-w-0 flex-col gap-8">
          <Card>
            <h2 className="sr-only">Details</h2>
            <WorkflowFacts workflow={workflow} locale={locale} />
          </Card>
          <Section title="Documents under review">
            <WorkflowRevisions revisions={workflow.revisions} />
          </Section>
          <Section title="Steps">
            <WorkflowSteps workflow={workflow} locale={locale} />
          </Section>
          <Section title="History" description="Who did what, and when.">
            <WorkflowHistory workflow={workflow} locale={locale} />
          </Section>
        </div>
        <div className="flex min-w-0 flex-col gap-8">
          {can.size === 0 ? (
            <Section title="Your part">
              <p className="text-sm text-muted">{workflow.status === 'active' ? 'Nothing for you to do on this review now.' : allowedText([])}</p>
            </Section>
          ) : null}
          {can.has('approve') && step ? (
            <Section title="Approve" description={`Your answer at step ${(workflow.currentStep ?? 0) + 1}, ${step.name}.`}>
              <ApproveForm key={formKey} workflowId={workflow.id} outcomes={step.outcomes} lastResult={resultFor(actionData, 'approve')} />
            </Section>
          ) : null}
          {can.has('reject') && step ? (
            <Section
              title="Reject"
              description={step.onReject.to === 'author' ? 'It goes back to the author for a new revision.' : `It goes back to ${stepName(step.onReject.step)}.`}
            >
              <RejectForm key={formKey} workflowId={workflow.id} outcomes={step.outcomes} lastResult={resultFor(actionData, 'reject')} />
            </Section>
          ) : null}
          {can.has('resubmit') ? (
            <Section title="Resubmit" description="With the new revision of each document; the review starts again at step 1.">
              {resubmit.length > 0 ? (
                <ResubmitForm key={formKey} workflowId={workflow.id} documents={resubmit} lastResult={resultFor(actionData, 'resubmit')} />
              ) : (
                <p className="text-sm text-muted">Its documents could not be loaded. Reload the page to try again.</p>
              )}
            </Section>
          ) : null}
          {can.has('comment') ? (
            <Section title="Comment" description="Everyone on the review reads it in the history.">
              <CommentForm key={formKey} workflowId={workflow.id} revisions={workflow.revisions} lastResult={resultFor(actionData, 'comment')} />
            </Section>
          ) : null}
          {can.has('reassign') && openTasks.length > 0 ? (
            <Section title="Reassign a task" description="Hand a reviewer’s task to someone else.">
              <ReassignForm key={formKey} workflowId={workflow.id} tasks={openTasks} members={members} stepName={stepName} lastResult={resultFor(actionData, 'reassign')} />
            </Section>
          ) : null}
          {can.has('cancel') ? (
            <Section title="Cancel">
              <CancelForm key={formKey} workflowId={workflow.id} lastResult={resultFor(actionData, 'cancel')} />
            </Section>
          ) : null}
        </div>
      </div>
    </>
  )
}

/** "SYM01-ARC-ZZ-00-DR-A-0001 P02", and how many more documents. */
function reviewTitle(revisions: ReadonlyArray<{ number: string; code: string }>): string {
  const [first] = revisions
  if (!first) return 'documents you cannot see'
  return `${first.number} ${first.code}${revisions.length > 1 ? ` and ${revisions.length - 1} more` : ''}`
}

export function meta({ data: loaderData }: Route.MetaArgs) {
  return [{ title: loaderData ? `Review of ${reviewTitle(loaderData.workflow.revisions)} · Site Portal` : 'Review · Site Portal' }]
}
