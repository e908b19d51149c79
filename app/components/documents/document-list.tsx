import { type ReactNode } from 'react'
import { Link } from 'react-router'
import { CodeText } from '~/components/ui/code-text'
import { DataTable, type DataTableColumn } from '~/components/ui/data-table'
import { Pagination, type PaginationProps } from '~/components/ui/pagination'
import { formatDate } from '~/lib/format'
import type { DocumentSummary, SearchPage } from '~/lib/documents/types'
import { StateBadge, StatusText } from './document-badges'

export type DocumentListProps = {
  page: SearchPage
  caption: string
  emptyState: ReactNode
  locale: string
}

/**
 * Documents as a table on a wide screen and as cards on a phone (one table, its rows drawn as
 * cards by CSS below the small breakpoint), with paging that keeps the URL's filters.
 */
export function DocumentList({ page, caption, emptyState, locale }: DocumentListProps) {
  if (page.items.length === 0) return <>{emptyState}</>
  const pagination = pagingOf(page)
  const columns: Array<DataTableColumn<DocumentSummary>> = [
    { key: 'number', header: 'Number', rowHeader: true, phone: 'headline', cell: (doc) => <DocumentLink doc={doc} /> },
    { key: 'title', header: 'Title', phone: 'line', cell: (doc) => <span className="break-words">{doc.title}</span> },
    { key: 'revision', header: 'Revision', cell: (doc) => doc.currentRevision?.code ?? <NoRevision /> },
    { key: 'status', header: 'Status', cell: (doc) => <StatusText code={doc.status} /> },
    { key: 'state', header: 'State', cell: (doc) => <StateBadge state={doc.state} /> },
    { key: 'updated', header: 'Updated', cell: (doc) => <span className="whitespace-nowrap">{formatDate(doc.updatedAtUtc, locale)}</span> },
  ]
  return (
    <div>
      <DataTable caption={caption} captionHidden columns={columns} rows={page.items} rowKey={(doc) => doc.id} stackOnPhone />
      {pagination ? <Pagination {...pagination} /> : null}
    </div>
  )
}

function DocumentLink({ doc }: { doc: DocumentSummary }) {
  return (
    <Link to={`/documents/${encodeURIComponent(doc.id)}`} className="font-medium text-primary-strong underline underline-offset-2">
      <CodeText code={doc.number} />
    </Link>
  )
}

function NoRevision() {
  return <span className="text-muted">None yet</span>
}

/** Page numbers in the URL (`page`), as the search call pages. */
function pagingOf(page: SearchPage): PaginationProps | undefined {
  const pages = Math.max(1, Math.ceil(page.total / page.pageSize))
  if (pages <= 1) return undefined
  return {
    previous: page.page > 1 ? { page: page.page > 2 ? String(page.page - 1) : null } : null,
    next: page.page < pages ? { page: String(page.page + 1) } : null,
    summary: `Page ${page.page} of ${pages}`,
    label: 'Document pages',
  }
}
