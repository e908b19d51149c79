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
  const stack = stackOnPhone ? phoneStacking(columns) : undefined
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
          className={cx('scroll-shadow-x relative overflow-x-auto rounded-lg border border-border', stack && STACKED.region)}
        >
          <table className={cx('w-full border-collapse text-left text-sm', stack && STACKED.table)}>
            <caption id={captionId} className={captionHidden ? 'sr-only' : 'px-4 pt-3 pb-2 text-left text-base font-semibold text-text'}>
              {caption}
            </caption>
            <thead className={cx('bg-surface-muted', stack && STACKED.head)}>
              <tr>
                {columns.map((column) => (
                  <th key={column.key} scope="col" className={cellClasses(column, 'font-semibold text-text whitespace-nowrap')}>
                    {column.header}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody className={cx(stack && STACKED.body)}>
              {rows.map((row) => (
                <tr key={rowKey(row)} className={cx('border-t border-border', stack && STACKED.row, stack && (columns.some((column) => column.phone === 'corner') ? STACKED.rowWithCorner : STACKED.rowPlain))}>
                  {columns.map((column, index) =>
                    column.rowHeader ? (
                      <th key={column.key} scope="row" className={cellClasses(column, 'font-medium text-text', stack?.[index])} data-label={stack && labelOf(column)}>
                        {column.cell(row)}
                      </th>
                    ) : (
                      <td key={column.key} className={cellClasses(column, 'text-text', stack?.[index])} data-label={stack && labelOf(column)}>
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

function cellClasses<Row>(column: DataTableColumn<Row>, extra: string, phone?: string) {
  return cx('px-4 py-3 align-top', column.align === 'end' ? 'text-right' : 'text-left', column.hideOnMobile && 'hidden sm:table-cell', extra, phone)
}

/** The phone card's classes (`stackOnPhone`): every one applies below the small breakpoint only. */
const STACKED = {
  region: 'max-sm:overflow-visible max-sm:rounded-none max-sm:border-0 max-sm:bg-none max-sm:bg-transparent',
  table: 'max-sm:block',
  head: 'max-sm:hidden',
  body: 'max-sm:flex max-sm:flex-col max-sm:gap-3',
  row: 'max-sm:relative max-sm:flex max-sm:flex-wrap max-sm:items-start max-sm:gap-x-1.5 max-sm:gap-y-1 max-sm:rounded-lg max-sm:border max-sm:border-border max-sm:bg-surface max-sm:shadow-sm',
  rowWithCorner: 'max-sm:py-3 max-sm:pr-3 max-sm:pl-13',
  rowPlain: 'max-sm:p-4',
  corner: 'max-sm:absolute max-sm:top-3 max-sm:left-3 max-sm:p-0',
  headline: 'max-sm:order-1 max-sm:p-0 max-sm:text-base max-sm:font-medium max-sm:break-words',
  /** The last headline cell takes the rest of its line, so the badges start a new one. */
  headlineRest: 'max-sm:min-w-0 max-sm:grow max-sm:basis-[calc(100%-4rem)]',
  line: 'max-sm:order-2 max-sm:w-full max-sm:p-0 max-sm:break-words',
  badges: 'max-sm:order-3 max-sm:my-1 max-sm:p-0',
  field:
    'max-sm:order-4 max-sm:grid max-sm:w-full max-sm:grid-cols-[5.5rem_minmax(0,1fr)] max-sm:justify-items-start max-sm:gap-x-3 max-sm:p-0 max-sm:font-normal max-sm:break-words max-sm:before:text-muted max-sm:before:content-[attr(data-label)]',
} as const

/** Each column's phone classes, by where its cells go in the card. */
function phoneStacking<Row>(columns: ReadonlyArray<DataTableColumn<Row>>): string[] {
  const lastHeadline = columns.findLastIndex((column) => column.phone === 'headline')
  return columns.map((column, index) => {
    const place = column.phone ?? 'field'
    return place === 'headline' && index === lastHeadline ? cx(STACKED.headline, STACKED.headlineRest) : STACKED[place]
  })
}

function labelOf<Row>(column: DataTableColumn<Row>): string | undefined {
  return column.phoneLabel ?? (typeof column.header === 'string' ? column.header : undefined)
}
