import type { PaginationProps } from '~/components/ui/pagination'
import type { NumberedPage } from '~/lib/doc-control/types'

/** The reviews' lists page by number (`?page=`): a page of the URL, 1 when absent or not a page number. */
export function pageOf(searchParams: URLSearchParams): number {
  const page = Number(searchParams.get('page') ?? '1')
  return Number.isInteger(page) && page >= 1 && page <= 10_000 ? page : 1
}

/** Previous and next as plain links that keep the other search parameters (filters). */
export function numberedPagination(page: NumberedPage<unknown>, label: string): PaginationProps {
  const pages = Math.max(1, Math.ceil(page.total / page.pageSize))
  return {
    previous: page.page > 1 ? { page: page.page > 2 ? String(page.page - 1) : null } : null,
    next: page.page < pages ? { page: String(page.page + 1) } : null,
    summary: `Page ${page.page} of ${pages}`,
    label,
  }
}
