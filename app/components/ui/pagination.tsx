import { type ReactNode } from 'react'
import { Link, useLocation } from 'react-router'
import { buttonClasses } from '~/components/ui/button'

/** Search parameters to set on the current URL; `null` removes one. */
export type PageParams = Readonly<Record<string, string | null>>

export type PaginationProps = {
  /** Parameters of the previous page, e.g. `{ page: '1' }`; absent or null when on the first page. */
  previous?: PageParams | null
  /** Parameters of the next page, e.g. `{ page: '3' }` or `{ after: cursor }`; null on the last page. */
  next?: PageParams | null
  /** Text between the links, e.g. "Page 2". */
  summary?: ReactNode
  /** The navigation landmark's name; give each one on a page its own. */
  label?: string
}

function searchWith(search: string, params: PageParams) {
  const result = new URLSearchParams(search)
  for (const [name, value] of Object.entries(params)) {
    if (value === null) result.delete(name)
    else result.set(name, value)
  }
  const query = result.toString()
  return query ? `?${query}` : ''
}

/**
 * Previous/next links that keep every other search parameter (filters, sort) of the current URL.
 * Plain links, so paging works without JavaScript and each page has its own address.
 */
export function Pagination({ previous, next, summary, label = 'Pagination' }: PaginationProps) {
  const location = useLocation()
  if (!previous && !next) return null
  const linkClass = buttonClasses({ variant: 'secondary', size: 'sm' })
  // Not a link on the first or last page: still in place so the layout does not jump.
  const inactiveClass = 'inline-flex min-h-9 items-center gap-2 rounded-md border border-border px-3 text-sm font-medium text-muted select-none'
  return (
    <nav aria-label={label} className="flex items-center justify-between gap-3 pt-4">
      {previous ? (
        <Link to={{ pathname: location.pathname, search: searchWith(location.search, previous) }} rel="prev" className={linkClass}>
          <span aria-hidden="true">←</span> Previous
        </Link>
      ) : (
        <span aria-hidden="true" className={inactiveClass}>
          ← Previous
        </span>
      )}
      {summary ? <p className="text-sm text-muted">{summary}</p> : null}
      {next ? (
        <Link to={{ pathname: location.pathname, search: searchWith(location.search, next) }} rel="next" className={linkClass}>
          Next <span aria-hidden="true">→</span>
        </Link>
      ) : (
        <span aria-hidden="true" className={inactiveClass}>
          Next →
        </span>
      )}
    </nav>
  )
}
