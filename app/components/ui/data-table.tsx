import { type ReactNode, useId } from 'react'
import { cx } from '~/components/ui/class-names'
import { Pagination, type PaginationProps } from '~/components/ui/pagination'

export type DataTableColumn<Row> = {
  key: string
  header: ReactNode
  cell: (row: Row) => ReactNode
  /** Numbers and amounts align to the end. */
  align?: 'start' | 'end'
  /** The cell that names the row (usually the first, a title or link) becomes a row header. */
  rowHeader?: boolean
  /** Hidden below the small breakpoint, for columns a phone can do without. */
  hideOnMobile?: boolean
  /**
   * With `stackOnPhone`, where the cell goes in its row's card on a phone: the card's top-left
   * corner (a checkbox), its headline, a line of its own under it, a line of badges, or (the
   * default) a field under those labelled with `phoneLabel`.
   */
  phone?: 'corner' | 'headline' | 'line' | 'badges' | 'field'
  /** The field's label on a phone (the header, when that is plain text). */
  phoneLabel?: string
}

export type DataTableProps<Row> = {
  /** Names the table for assistive technology; visible unless `captionHidden`. */
  caption: ReactNode
  captionHidden?: boolean
  columns: ReadonlyArray<DataTableColumn<Row>>
  rows: readonly Row[]
  rowKey: (row: Row) => string
  /** Shown instead of the table when there are no rows, e.g. an `EmptyState`. */
  emptyState?: ReactNode
  pagination?: PaginationProps
  className?: string
  /**
   * Below the small breakpoint each row is drawn as a card (`DataTableColumn.phone` places its
   * cells), by CSS alone: a page that would otherwise render its rows twice, as a table and as
   * phone cards, renders and sends them once, and the layout is right before any script runs.
   */
  stackOnPhone?: boolean
}

/**
 * A native table in a horizontally scrollable, keyboard-focusable region (so a wide table works
 * on a phone), with an empty state and previous/next paging driven by the URL.
 */
export function DataTable<Row>({ caption, captionHidden, columns, rows, rowKey, emptyState, pagination, className, stackOnPhone }: DataTableProps<Row>) {
  const captionId = useId()
  const stack = stackOnPhone === true
  return (
    <div className={className}>
      {rows.length === 0 && emptyState !== undefined ? (
        emptyState
      ) : (
        <div
          role="region"
          aria-labelledby={captionId}
          tabIndex={0}
          // relative: the box, not the page, is what a visually hidden header (absolutely positioned)
          // is placed against, so it cannot stretch the page sideways on a phone.
          className={cx('scroll-shadow-x relative overflow-x-auto rounded-lg border border-border', stack && 'max-sm:overflow-visible max-sm:rounded-none max-sm:border-0 max-sm:bg-none max-sm:bg-transparent')}
        >
          <table className={cx('table-cells w-full border-collapse text-left text-sm', stack && 'table-stack-phone')}>
            <caption id={captionId} className={captionHidden ? 'sr-only' : 'px-4 pt-3 pb-2 text-left text-base font-semibold text-text'}>
              {caption}
            </caption>
            <thead className="bg-surface-muted">
              <tr>
                {columns.map((column) => (
                  <th key={column.key} scope="col" className={cellClasses(column)}>
                    {column.header}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={rowKey(row)} className="border-t border-border">
                  {columns.map((column) =>
                    column.rowHeader ? (
                      <th key={column.key} scope="row" className={cellClasses(column)} {...(stack ? phoneAttributes(column) : undefined)}>
                        {column.cell(row)}
                      </th>
                    ) : (
                      <td key={column.key} className={cellClasses(column)} {...(stack ? phoneAttributes(column) : undefined)}>
                        {column.cell(row)}
                      </td>
                    ),
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pagination ? <Pagination {...pagination} /> : null}
    </div>
  )
}

/** Only what sets a column apart: the rest of a cell's look is the table's `table-cells` (app.css). */
function cellClasses<Row>(column: DataTableColumn<Row>): string | undefined {
  return cx(column.align === 'end' && 'text-right', column.hideOnMobile && 'hidden sm:table-cell') || undefined
}

/** Where a cell goes in its row's phone card and the label it shows there (app.css, `table-stack-phone`). */
function phoneAttributes<Row>(column: DataTableColumn<Row>): { 'data-phone'?: string; 'data-label'?: string } {
  if (column.hideOnMobile) return {}
  const place = column.phone ?? 'field'
  const label = column.phoneLabel ?? (typeof column.header === 'string' ? column.header : undefined)
  return place === 'field' && label !== undefined ? { 'data-phone': place, 'data-label': label } : { 'data-phone': place }
}
