import type { ReactNode } from 'react'
import { Link } from 'react-router'
import type { PaginationProps } from '~/components/ui/pagination'
import { DataTable, type DataTableColumn } from '~/components/ui/data-table'
import type { WorkflowSummary } from '~/lib/doc-control/types'
import { formatDateTime } from '~/lib/format'
import { DueText, WorkflowStatusBadge } from './workflow-badges'

/** A review's name in a list: its first document and revision, and how many more. */
export function reviewName(revisions: WorkflowSummary['revisions']): string {
  const [first] = revisions
  if (!first) return 'Documents you cannot see'
  return `${first.number} ${first.code}${revisions.length > 1 ? ` and ${revisions.length - 1} more` : ''}`
}

export function reviewHref(workflow: Pick<WorkflowSummary, 'id' | 'projectId'>): string {
  return `/doc-control/workflows/${encodeURIComponent(workflow.id)}?${new URLSearchParams({ projectId: workflow.projectId })}`
}

/**
 * Reviews as rows: what is reviewed (to its page), with which template, where it stands and who
 * has yet to answer, when it is due, who started it and when.
 */
export function WorkflowList({
  workflows,
  locale,
  caption,
  emptyState,
  pagination,
}: {
  workflows: readonly WorkflowSummary[]
  locale: string
  caption: string
  emptyState: ReactNode
  pagination?: PaginationProps
}) {
  const columns: Array<DataTableColumn<WorkflowSummary>> = [
    {
      key: 'review',
      header: 'Review',
      rowHeader: true,
      cell: (w) => (
        <Link to={reviewHref(w)} className="font-mono break-all text-primary-strong underline underline-offset-2">
          {reviewName(w.revisions)}
        </Link>
      ),
    },
    { key: 'template', header: 'Template', hideOnMobile: true, cell: (w) => `${w.template.name} (v${w.template.version})` },
    { key: 'status', header: 'Status', cell: (w) => <WorkflowStatusBadge status={w.status} /> },
    {
      key: 'step',
      header: 'Step',
      cell: (w) =>
        w.stepName && w.currentStep !== null ? (
          <>
            {w.currentStep + 1}. {w.stepName}
            {w.pendingReviewers.length > 0 ? <span className="block text-muted">Waiting on {w.pendingReviewers.map((p) => p.displayName).join(', ')}</span> : null}
          </>
        ) : (
          '—'
        ),
    },
    { key: 'due', header: 'Due', cell: (w) => (w.status === 'active' ? <DueText dueAt={w.dueAt} overdue={w.overdue} locale={locale} bare /> : '—') },
    {
      key: 'started',
      header: 'Started',
      hideOnMobile: true,
      cell: (w) => (
        <>
          {w.startedBy?.displayName ?? '—'}
          <span className="block text-muted">{formatDateTime(w.startedAt, locale)}</span>
        </>
      ),
    },
  ]
  return <DataTable caption={caption} captionHidden columns={columns} rows={workflows} rowKey={(w) => w.id} emptyState={emptyState} pagination={pagination} />
}
