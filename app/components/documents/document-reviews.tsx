import type { SubmissionResult } from '@conform-to/react'
import { Link } from 'react-router'
import { DueText, WorkflowStatusBadge } from '~/components/doc-control/workflow-badges'
import { workflowsChanged } from '~/components/doc-control/workflow-live'
import type { DocumentReviews as Reviews } from '~/components/doc-control/workflow-start-form'
import { Banner } from '~/components/ui/banner'
import { EmptyState } from '~/components/ui/empty-state'
import { Section } from '~/components/ui/section'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import type { WorkflowSummary } from '~/lib/doc-control/types'
import type { DocumentDetail } from '~/lib/documents/types'
import { formatDateTime } from '~/lib/format'
import { deferred, partsBeforeNavigation } from '~/components/ui/deferred'

// The start form hydrates after the rest of the screen (app/components/ui/deferred.tsx).
const loadReviewTemplateChoice = async () => (await import('~/components/doc-control/workflow-start-form')).ReviewTemplateChoice
const ReviewTemplateChoice = deferred(loadReviewTemplateChoice, import.meta.env.SSR ? await loadReviewTemplateChoice() : undefined)
const loadWorkflowStartForm = async () => (await import('~/components/doc-control/workflow-start-form')).WorkflowStartForm
const WorkflowStartForm = deferred(loadWorkflowStartForm, import.meta.env.SSR ? await loadWorkflowStartForm() : undefined)
await partsBeforeNavigation(ReviewTemplateChoice, WorkflowStartForm)

/**
 * "Reviews" of a document's page (docs/doc-control.md "Workflow"): its reviews newest first, part of
 * its history, and "Start review" for someone with edit on it. A review anyone starts or answers
 * reloads the section (EntityChanged of a `Workflow`).
 */
export function DocumentReviews({
  doc,
  reviews,
  templateParam,
  lastResult,
  locale,
}: {
  doc: DocumentDetail
  reviews: Reviews
  templateParam: string
  lastResult: SubmissionResult<string[]> | undefined
  locale: string
}) {
  useLiveRevalidation(workflowsChanged)
  const { start } = reviews
  const pageHref = `/documents/${encodeURIComponent(doc.id)}`
  const running = reviews.reviews.find((r) => r.status === 'active' || r.status === 'returned')
  return (
    <Section title="Reviews" description="Its reviews, newest first: who approved or returned which revision, and when.">
      {reviews.notice ? (
        <Banner tone="critical" title="The reviews could not be loaded" correlationId={reviews.notice.correlationId}>
          {reviews.notice.message}
        </Banner>
      ) : null}
      <ReviewList reviews={reviews.reviews} locale={locale} />
      {start ? (
        <div id="start-review" className="flex max-w-3xl flex-col gap-4 rounded-lg border border-border bg-surface p-4">
          <h3 className="text-base font-semibold text-text">Start review</h3>
          {running ? (
            <p className="text-sm text-muted">
              This document is already in a review ({running.status === 'returned' ? 'returned to its author' : 'under review'}). Resubmit or cancel that one on{' '}
              <Link
                to={`/doc-control/workflows/${encodeURIComponent(running.id)}?${new URLSearchParams({ projectId: running.projectId })}`}
                className="text-primary-strong underline underline-offset-2"
              >
                its page
              </Link>
              .
            </p>
          ) : (
            <>
              <ReviewTemplateChoice action={pageHref} param={templateParam} templates={start.templates} chosenId={start.chosen?.template.id ?? null} />
              {start.problem ? (
                <Banner tone="warning" title="No reviewers proposed">
                  {start.problem}
                </Banner>
              ) : null}
              {start.chosen ? (
                <WorkflowStartForm
                  key={start.chosen.template.id}
                  template={start.chosen.template}
                  proposal={start.chosen.proposal}
                  members={start.members}
                  revisions={doc.revisions}
                  currentRevisionId={doc.currentRevision?.id ?? null}
                  cancelHref={pageHref}
                  lastResult={lastResult}
                />
              ) : null}
            </>
          )}
        </div>
      ) : null}
    </Section>
  )
}

function ReviewList({ reviews, locale }: { reviews: readonly WorkflowSummary[]; locale: string }) {
  if (reviews.length === 0) {
    return (
      <EmptyState heading="No reviews yet" headingLevel={3}>
        A review sends a revision through a template’s steps; an approval publishes it.
      </EmptyState>
    )
  }
  return (
    <ul aria-label="Reviews, newest first" className="flex flex-col gap-3">
      {reviews.map((review) => (
        <li key={review.id} className="flex flex-col gap-2 rounded-lg border border-border bg-surface p-4 text-sm">
          <div className="flex flex-wrap items-center gap-2">
            <Link
              to={`/doc-control/workflows/${encodeURIComponent(review.id)}?${new URLSearchParams({ projectId: review.projectId })}`}
              className="font-medium text-primary-strong underline underline-offset-2"
            >
              {review.template.name} (version {review.template.version})
            </Link>
            <WorkflowStatusBadge status={review.status} />
          </div>
          <p>
            {review.revisions.map((r) => r.code).join(', ')}
            {review.stepName && review.currentStep !== null ? ` · step ${review.currentStep + 1}, ${review.stepName}` : ''}
            {review.pendingReviewers.length > 0 ? ` · waiting on ${review.pendingReviewers.map((p) => p.displayName).join(', ')}` : ''}
          </p>
          <p className="text-muted">
            Started {review.startedBy ? `by ${review.startedBy.displayName} ` : ''}
            {formatDateTime(review.startedAt, locale)}
            {review.completedAt ? `, finished ${formatDateTime(review.completedAt, locale)}` : ''}
          </p>
          {review.status === 'active' ? <DueText dueAt={review.dueAt} overdue={review.overdue} locale={locale} /> : null}
        </li>
      ))}
    </ul>
  )
}
