import { type ReactNode } from 'react'
import { Link } from 'react-router'
import { Badge } from '~/components/ui/badge'
import { DataTable, type DataTableColumn } from '~/components/ui/data-table'
import type { PaginationProps } from '~/components/ui/pagination'
import { formatDate } from '~/lib/format'
import { PRIORITY_LABELS, STATUS_LABELS, STATUS_TONES } from '~/lib/reporting/labels'
import type { Item, PackageInfo } from '~/lib/reporting/types'
import { useLocale } from '~/root'

export type ReportItemsTableProps = {
  items: readonly Item[]
  /** Every package of the project, switched off ones too: an item keeps the package it was given. */
  packages: readonly PackageInfo[]
  pagination: PaginationProps
  emptyState: ReactNode
}

/** A report's items in the order they were recorded, each linking to its own page. */
export function ReportItemsTable({ items, packages, pagination, emptyState }: ReportItemsTableProps) {
  const locale = useLocale()
  const packageNames = new Map(packages.map((pkg) => [pkg.key, pkg.name]))
  const columns: Array<DataTableColumn<Item>> = [
    { key: 'number', header: 'No.', align: 'end', hideOnMobile: true, cell: (item) => item.number },
    {
      key: 'title',
      header: 'Title',
      rowHeader: true,
      cell: (item) => (
        <span className="block min-w-40">
          {/* A phone has no room for the No. column: the number goes before the title. */}
          <span className="font-normal text-muted sm:hidden">{item.number} · </span>
          <Link to={`/items/${encodeURIComponent(item.id)}`} className="text-primary-strong underline underline-offset-2">
            {item.title}
          </Link>
        </span>
      ),
    },
    { key: 'status', header: 'Status', cell: (item) => <Badge tone={STATUS_TONES[item.status]}>{STATUS_LABELS[item.status]}</Badge> },
    { key: 'priority', header: 'Priority', cell: (item) => PRIORITY_LABELS[item.priority] },
    { key: 'assignee', header: 'Assignee', cell: (item) => item.assignee?.displayName ?? <span className="text-muted">Unassigned</span> },
    {
      key: 'package',
      header: 'Package',
      hideOnMobile: true,
      cell: (item) => (item.packageKey ? (packageNames.get(item.packageKey) ?? item.packageKey) : '—'),
    },
    {
      key: 'due',
      header: 'Due',
      cell: (item) =>
        item.dueDate ? (
          <span className="flex flex-wrap items-center gap-2 whitespace-nowrap">
            <time dateTime={item.dueDate}>{formatDate(item.dueDate, locale)}</time>
            {item.overdue ? <Badge tone="critical">Overdue</Badge> : null}
          </span>
        ) : (
          '—'
        ),
    },
  ]
  return (
    <DataTable
      caption="Items of this report"
      captionHidden
      columns={columns}
      rows={items}
      rowKey={(item) => item.id}
      pagination={pagination}
      emptyState={emptyState}
    />
  )
}
