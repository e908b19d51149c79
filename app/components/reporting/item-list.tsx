import { type ReactNode } from 'react'
import { Link } from 'react-router'
import { ItemPriorityBadge, ItemStatusBadge, OverdueBadge } from '~/components/reporting/item-badges'
import { Badge } from '~/components/ui/badge'
import { Card } from '~/components/ui/card'
import { cx } from '~/components/ui/class-names'
import { DataTable, type DataTableColumn } from '~/components/ui/data-table'
import { formatDate } from '~/lib/format'
import { COLUMN_LABELS, groupItems, type ItemColumn, type ItemGroup, type ItemsQuery } from '~/lib/reporting/items-query'
import { type Item, projectTitle, reportTitle } from '~/lib/reporting/types'
import { useLocale } from '~/root'

export type ItemListProps = {
  items: readonly Item[]
  query: Pick<ItemsQuery, 'columns' | 'groupBy' | 'layout'>
  packageName: (key: string) => string
  /** Ids to show checked (the selection of a submission that came back with an error). */
  selected: ReadonlySet<string>
}

type CellContext = { locale: string; packageName: (key: string) => string; columns: readonly ItemColumn[] }

const linkClass = 'text-primary-strong underline underline-offset-2'

/**
 * The outstanding items in the chosen layout, under group headings when grouped. Every item has a
 * checkbox (`ids`) for the selection form around the list. `auto` shows cards on a phone and a
 * table on a wider screen: one table whose rows CSS draws as cards below the small breakpoint, so
 * it is right before any script runs and the rows are rendered and sent once (issue 37).
 */
export function ItemList({ items, query, packageName, selected }: ItemListProps) {
  const locale = useLocale()
  const ctx: CellContext = { locale, packageName, columns: withProjectWhenSeveral(items, query) }
  const groups = groupItems(items, query.groupBy, packageName)
  const grouped = query.groupBy !== 'none'
  return (
    <div className="flex flex-col gap-6">
      {groups.map((group) => (
        <section key={group.key || 'none'} aria-labelledby={grouped ? `group-${group.key || 'none'}` : undefined} className="flex flex-col gap-3">
          {grouped ? (
            <h2 id={`group-${group.key || 'none'}`} className="flex flex-wrap items-center gap-2 text-lg font-semibold text-text">
              {group.label}
              <Badge>{group.items.length === 1 ? '1 item' : `${group.items.length} items`}</Badge>
            </h2>
          ) : null}
          {query.layout === 'cards' ? (
            <ItemCards group={group} ctx={ctx} selected={selected} />
          ) : (
            <ItemTable group={group} grouped={grouped} ctx={ctx} selected={selected} stackOnPhone={query.layout === 'auto'} />
          )}
        </section>
      ))}
    </div>
  )
}

/**
 * The chosen columns, and the project after the title when the list holds items of more than one
 * project and neither a column nor the grouping already says which (two items "#3 Cracked tile"
 * of different projects must not look alike).
 */
export function withProjectWhenSeveral(items: readonly Item[], query: Pick<ItemsQuery, 'columns' | 'groupBy'>): readonly ItemColumn[] {
  const { columns, groupBy } = query
  if (columns.includes('project') || groupBy === 'project' || new Set(items.map((item) => item.projectId)).size < 2) return columns
  const after = Math.max(columns.indexOf('title'), columns.indexOf('number')) + 1
  return [...columns.slice(0, after), 'project', ...columns.slice(after)]
}

type ItemTableProps = { group: ItemGroup; grouped: boolean; ctx: CellContext; selected: ReadonlySet<string>; stackOnPhone: boolean }

function ItemTable({ group, grouped, ctx, selected, stackOnPhone }: ItemTableProps) {
  const linkOn = linkColumn(ctx.columns)
  const columns: Array<DataTableColumn<Item>> = [
    { key: 'select', header: <span className="sr-only">Select</span>, phone: 'corner', cell: (item) => <SelectBox item={item} idPrefix="t" selected={selected} /> },
    ...ctx.columns.map(
      (column): DataTableColumn<Item> => ({
        key: column,
        header: COLUMN_LABELS[column],
        rowHeader: column === linkOn,
        phone: PHONE_PLACE[column],
        cell: (item) => cell(column, item, ctx, column === linkOn),
      }),
    ),
  ]
  return (
    <DataTable
      caption={grouped ? `Items: ${group.label}` : 'Outstanding items'}
      captionHidden
      columns={columns}
      rows={group.items}
      rowKey={(item) => item.id}
      stackOnPhone={stackOnPhone}
    />
  )
}

/** Where a column goes in a row's card on a phone (the `auto` layout), as the `cards` layout places it. */
const PHONE_PLACE: Record<ItemColumn, DataTableColumn<Item>['phone']> = {
  number: 'headline',
  title: 'headline',
  status: 'badges',
  priority: 'badges',
  assignee: 'field',
  package: 'field',
  dueDate: 'field',
  project: 'field',
  report: 'field',
  nextAction: 'field',
}

function ItemCards({ group, ctx, selected }: { group: ItemGroup; ctx: CellContext; selected: ReadonlySet<string> }) {
  const headline: ItemColumn[] = ctx.columns.filter((column) => column === 'number' || column === 'title')
  const badges: ItemColumn[] = ctx.columns.filter((column) => column === 'status' || column === 'priority')
  const rest = ctx.columns.filter((column) => !headline.includes(column) && !badges.includes(column))
  return (
    <ul className="flex flex-col gap-3">
      {group.items.map((item) => (
        <li key={item.id}>
          <Card className="flex items-start gap-2 p-3 sm:p-4">
            <SelectBox item={item} idPrefix="c" selected={selected} />
            <div className="min-w-0 flex-1 py-2">
              <p className="font-medium break-words">
                <Link to={`/items/${item.id}`} className={linkClass}>
                  {headline.includes('number') ? `#${item.number}` : null}
                  {headline.length === 2 ? ' ' : null}
                  {headline.includes('title') ? item.title : null}
                </Link>
              </p>
              {badges.length > 0 ? (
                <div className="mt-2 flex flex-wrap gap-1.5">
                  {badges.map((column) => (
                    <span key={column}>{cell(column, item, ctx, false)}</span>
                  ))}
                </div>
              ) : null}
              {rest.length > 0 ? (
                <dl className="mt-2 grid grid-cols-[max-content_minmax(0,1fr)] gap-x-3 gap-y-1 text-sm">
                  {rest.map((column) => (
                    <CardField key={column} label={COLUMN_LABELS[column]}>
                      {cell(column, item, ctx, false)}
                    </CardField>
                  ))}
                </dl>
              ) : null}
            </div>
          </Card>
        </li>
      ))}
    </ul>
  )
}

function CardField({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-muted">{label}</dt>
      <dd className="min-w-0 break-words">{children}</dd>
    </>
  )
}

/** A row's checkbox with a 44 px target and a name that says which item it selects. */
function SelectBox({ item, idPrefix, selected }: { item: Item; idPrefix: string; selected: ReadonlySet<string> }) {
  const id = `select-${idPrefix}-${item.id}`
  return (
    <label htmlFor={id} className="-m-2 inline-flex min-h-11 min-w-11 shrink-0 cursor-pointer items-center justify-center">
      <input id={id} type="checkbox" name="ids" value={item.id} defaultChecked={selected.has(item.id)} className="size-5 cursor-pointer accent-primary" />
      <span className="sr-only">
        Select item #{item.number}: {item.title}
      </span>
    </label>
  )
}

/** The column that links to the item: the title, or the number when the title is not shown. */
function linkColumn(columns: readonly ItemColumn[]): ItemColumn {
  return columns.includes('title') ? 'title' : 'number'
}

function muted(text: string) {
  return <span className="text-muted">{text}</span>
}

function cell(column: ItemColumn, item: Item, ctx: CellContext, asLink: boolean): ReactNode {
  const link = (text: string) =>
    asLink ? (
      <Link to={`/items/${item.id}`} className={cx(linkClass, 'break-words')}>
        {text}
      </Link>
    ) : (
      text
    )
  switch (column) {
    case 'number':
      return link(`#${item.number}`)
    case 'title':
      return link(item.title)
    case 'status':
      return (
        <span className="inline-flex flex-wrap gap-1.5">
          <ItemStatusBadge status={item.status} />
          {item.overdue && !ctx.columns.includes('dueDate') ? <OverdueBadge /> : null}
        </span>
      )
    case 'priority':
      return <ItemPriorityBadge priority={item.priority} />
    case 'assignee':
      return item.assignee ? item.assignee.displayName : muted('Unassigned')
    case 'package':
      return item.packageKey ? ctx.packageName(item.packageKey) : muted('None')
    case 'dueDate':
      if (!item.dueDate) return muted('None')
      return (
        <span className="inline-flex flex-wrap items-center gap-1.5 whitespace-nowrap">
          {formatDate(item.dueDate, ctx.locale)}
          {item.overdue ? <OverdueBadge /> : null}
        </span>
      )
    case 'project':
      return projectTitle(item.projectTitle)
    case 'report':
      return (
        <Link to={`/reports/${item.reportId}`} className={linkClass}>
          {reportTitle(item.reportTitle)}
        </Link>
      )
    case 'nextAction':
      return item.nextAction.label
  }
}
