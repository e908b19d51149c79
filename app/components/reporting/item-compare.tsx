import { Link } from 'react-router'
import { Badge } from '~/components/ui/badge'
import { ButtonLink } from '~/components/ui/button-link'
import { DataTable, type DataTableColumn } from '~/components/ui/data-table'
import { Section } from '~/components/ui/section'
import { formatDate, formatDateTime } from '~/lib/format'
import { PRIORITY_LABELS, STATUS_LABELS } from '~/lib/reporting/labels'
import { type Item, projectTitle, reportTitle } from '~/lib/reporting/types'
import { useLocale } from '~/root'

type Field = { key: string; label: string; value: (item: Item) => string }
type Row = { key: string; label: string; values: string[]; differs: boolean }

function fieldsFor(locale: string, packageName: (key: string) => string): Field[] {
  return [
    { key: 'title', label: 'Title', value: (item) => item.title },
    { key: 'status', label: 'Status', value: (item) => STATUS_LABELS[item.status] },
    { key: 'priority', label: 'Priority', value: (item) => PRIORITY_LABELS[item.priority] },
    { key: 'assignee', label: 'Assignee', value: (item) => item.assignee?.displayName ?? 'Unassigned' },
    { key: 'package', label: 'Package', value: (item) => (item.packageKey ? packageName(item.packageKey) : 'None') },
    { key: 'location', label: 'Location', value: (item) => item.location ?? 'None' },
    { key: 'dueDate', label: 'Due date', value: (item) => (item.dueDate ? `${formatDate(item.dueDate, locale)}${item.overdue ? ' (overdue)' : ''}` : 'None') },
    { key: 'project', label: 'Project', value: (item) => projectTitle(item.projectTitle) },
    { key: 'report', label: 'Report', value: (item) => reportTitle(item.reportTitle) },
    { key: 'nextAction', label: 'Next action', value: (item) => item.nextAction.label },
    { key: 'createdBy', label: 'Created by', value: (item) => item.createdBy?.displayName ?? 'A former member' },
    { key: 'created', label: 'Created', value: (item) => formatDateTime(item.createdAtUtc, locale) },
    { key: 'description', label: 'Description', value: (item) => item.description ?? 'None' },
  ]
}

/**
 * Items side by side, one column each. A field whose values are not all the same is marked in
 * words ("Differs") and its values in bold, so the difference does not rest on colour.
 */
export function ItemCompare({
  items,
  missing,
  closeTo,
  packageName,
}: {
  items: readonly Item[]
  /** How many of the ids asked for no longer exist (deleted, or not ours). */
  missing: number
  closeTo: string
  packageName: (key: string) => string
}) {
  const locale = useLocale()
  const rows: Row[] = fieldsFor(locale, packageName).map((field) => {
    const values = items.map(field.value)
    return { key: field.key, label: field.label, values, differs: new Set(values).size > 1 }
  })
  const differing = rows.filter((row) => row.differs)
  const columns: Array<DataTableColumn<Row>> = [
    {
      key: 'field',
      header: 'Field',
      rowHeader: true,
      cell: (row) => (
        <span className="inline-flex flex-wrap items-center gap-2">
          {row.label}
          {row.differs ? <Badge tone="warning">Differs</Badge> : null}
        </span>
      ),
    },
    ...items.map(
      (item, index): DataTableColumn<Row> => ({
        key: item.id,
        header: (
          <Link to={`/items/${item.id}`} className="text-primary-strong underline underline-offset-2">
            #{item.number}
          </Link>
        ),
        cell: (row) => <span className={row.differs ? 'font-semibold whitespace-pre-line' : 'whitespace-pre-line'}>{row.values[index]}</span>,
      }),
    ),
  ]
  return (
    <Section
      title={`Comparing ${items.length} items`}
      description={
        differing.length === 0
          ? 'All fields are the same.'
          : `${differing.length} of ${rows.length} fields differ: ${differing.map((row) => row.label).join(', ')}.`
      }
      actions={
        <ButtonLink to={closeTo} variant="secondary" size="sm">
          Close comparison
        </ButtonLink>
      }
      className="mb-8"
    >
      {missing > 0 ? (
        <p className="text-sm text-muted">{missing === 1 ? 'One item no longer exists and is left out.' : `${missing} items no longer exist and are left out.`}</p>
      ) : null}
      <DataTable caption="Compared items" captionHidden columns={columns} rows={rows} rowKey={(row) => row.key} />
    </Section>
  )
}
