import { CodeText } from '~/components/ui/code-text'
import { type ReactNode } from 'react'
import { Form, Link } from 'react-router'
import { StateBadge, StatusText } from '~/components/documents/document-badges'
import { CsrfInput } from '~/components/ui/csrf-input'
import { DataTable, type DataTableColumn } from '~/components/ui/data-table'
import { SubmitButton } from '~/components/ui/submit-button'
import type { WorkflowRevision } from '~/lib/doc-control/types'
import type { CdeState } from '~/lib/documents/types'
import { documentPage } from './transmittal-paths'

/**
 * The revisions of a transmittal, a set or a wizard draft: each document by number (a link to it),
 * its title, the revision, its suitability and its state. With `removeIntent` each row has a
 * Remove button (its own small form, so it works without JavaScript).
 */
export function RevisionTable({
  caption,
  revisions,
  emptyState,
  removeIntent,
}: {
  caption: string
  revisions: readonly WorkflowRevision[]
  emptyState: ReactNode
  removeIntent?: string
}) {
  const columns: Array<DataTableColumn<WorkflowRevision>> = [
    {
      key: 'number',
      header: 'Document',
      rowHeader: true,
      cell: (row) => (
        <Link to={documentPage(row.documentId)} className="font-mono text-primary-strong underline underline-offset-2">
          <CodeText code={row.number} />
        </Link>
      ),
    },
    { key: 'title', header: 'Title', cell: (row) => row.title, hideOnMobile: true },
    { key: 'code', header: 'Revision', cell: (row) => <span className="font-mono">{row.code}</span> },
    { key: 'status', header: 'Suitability', cell: (row) => <StatusText code={row.status} />, hideOnMobile: true },
    { key: 'state', header: 'State', cell: (row) => <StateBadge state={row.state as CdeState} /> },
  ]
  if (removeIntent) {
    columns.push({
      key: 'remove',
      header: <span className="sr-only">Remove</span>,
      align: 'end',
      cell: (row) => (
        <Form method="post">
          <CsrfInput />
          <input type="hidden" name="revisionId" value={row.revisionId} />
          <SubmitButton intent={removeIntent} variant="secondary" size="sm" aria-label={`Remove ${row.number} ${row.code}`}>
            Remove
          </SubmitButton>
        </Form>
      ),
    })
  }
  return <DataTable caption={caption} columns={columns} rows={revisions} rowKey={(row) => row.revisionId} emptyState={emptyState} />
}
