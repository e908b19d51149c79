import { Link, useLocation } from 'react-router'
import { buttonClasses } from '~/components/ui/button'
import { withoutPaging } from '~/components/reporting/report-paging'

const STATUSES = [
  { value: 'active', label: 'Active' },
  { value: 'archived', label: 'Archived' },
] as const

/**
 * Active or archived projects: two links that set `status` and start again from the first page.
 * Plain links, so the filter works without JavaScript and each view has its own address.
 */
export function ProjectStatusFilter({ current }: { current: 'active' | 'archived' }) {
  const location = useLocation()
  function pathFor(status: string) {
    const params = withoutPaging(new URLSearchParams(location.search))
    params.delete('edit')
    if (status === 'active') params.delete('status')
    else params.set('status', status)
    return params.size > 0 ? `${location.pathname}?${params}` : location.pathname
  }
  return (
    <nav aria-label="Project status">
      <ul className="flex flex-wrap gap-2">
        {STATUSES.map((status) => (
          // Keyed by the current status too: a link that changes look is a new element, not a
          // colour transition (which would briefly show white on light blue).
          <li key={`${status.value}-${current}`}>
            <Link
              to={pathFor(status.value)}
              aria-current={current === status.value ? 'page' : undefined}
              className={buttonClasses({ variant: current === status.value ? 'primary' : 'secondary', size: 'sm' })}
            >
              {status.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  )
}
