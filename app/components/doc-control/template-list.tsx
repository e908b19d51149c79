import { Link } from 'react-router'
import { Badge } from '~/components/ui/badge'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { DataTable, type DataTableColumn } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import type { WorkflowTemplate } from '~/lib/doc-control/types'
import { formatDateTime } from '~/lib/format'

/**
 * The organisation's review templates: name, version, steps in order, and whether it is archived;
 * each one's editor, and archiving after a confirmation (a running review keeps its version).
 */
export function TemplateList({ templates, locale, editHref }: { templates: readonly WorkflowTemplate[]; locale: string; editHref: (id: string) => string }) {
  const columns: Array<DataTableColumn<WorkflowTemplate>> = [
    {
      key: 'name',
      header: 'Template',
      rowHeader: true,
      cell: (t) => (
        <>
          <span className="font-medium">{t.name}</span>
          {t.description ? <span className="block text-sm font-normal text-muted">{t.description}</span> : null}
        </>
      ),
    },
    { key: 'version', header: 'Version', align: 'end', cell: (t) => t.version },
    {
      key: 'steps',
      header: 'Steps',
      cell: (t) => (
        <ol className="list-decimal pl-5">
          {t.steps.map((step, index) => (
            <li key={index}>
              {step.name}{' '}
              <span className="text-muted">
                ({step.mode === 'parallel' ? 'parallel' : 'serial'}, {step.dueDays} working days)
              </span>
            </li>
          ))}
        </ol>
      ),
    },
    { key: 'status', header: 'Status', cell: (t) => (t.archived ? <Badge tone="warning">Archived</Badge> : <Badge tone="success">In use</Badge>) },
    { key: 'updated', header: 'Changed', hideOnMobile: true, cell: (t) => formatDateTime(t.updatedAt, locale) },
    {
      key: 'actions',
      header: <span className="sr-only">Actions</span>,
      cell: (t) =>
        t.archived ? null : (
          <div className="flex flex-col items-start gap-2">
            <Link to={editHref(t.id)} className="text-primary-strong underline underline-offset-2" aria-label={`Edit ${t.name}`}>
              Edit
            </Link>
            <ConfirmDialog
              triggerLabel={`Archive ${t.name}…`}
              title={`Archive “${t.name}”?`}
              confirmLabel="Yes, archive template"
              pendingLabel="Archiving…"
              intent="archive"
              fields={{ templateId: t.id }}
            >
              No new review can start with it. Reviews already running with it carry on with their version.
            </ConfirmDialog>
          </div>
        ),
    },
  ]
  return (
    <DataTable
      caption="Workflow templates"
      captionHidden
      columns={columns}
      rows={templates}
      rowKey={(t) => t.id}
      emptyState={
        <EmptyState heading="No workflow templates yet" headingLevel={3}>
          A template names the steps of a review, who reviews at each, and what they may answer. Create the first with “New template”.
        </EmptyState>
      }
    />
  )
}
