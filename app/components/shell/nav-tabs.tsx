import { useRef } from 'react'
import { Link, useLocation } from 'react-router'
import { useDismissDisclosure } from './disclosure'
import { cx } from '~/components/ui/class-names'

export type ShellDestination = {
  label: string
  to: string
  /** Other addresses that belong to this destination (spec §2: / and /control-panel are the dashboard). */
  alsoActiveOn?: (pathname: string) => boolean
  /** On a phone: in the bottom bar itself, or behind its "More" menu. */
  phone: 'bar' | 'more'
}

/**
 * Every destination of the signed-in shell (spec §2), in the spec's order. The desktop tab row
 * shows them all; a phone's bottom bar shows the four used most on site and the rest under "More".
 */
const DESTINATIONS: readonly ShellDestination[] = [
  { label: 'Dashboard', to: '/dashboard', phone: 'bar', alsoActiveOn: (pathname) => pathname === '/' || isWithin(pathname, '/control-panel') },
  { label: 'Projects', to: '/projects', phone: 'more' },
  { label: 'Reports', to: '/reports', phone: 'bar' },
  { label: 'Documents', to: '/documents', phone: 'bar', alsoActiveOn: (pathname) => isWithin(pathname, '/doc-control') },
  { label: 'Items', to: '/items', phone: 'bar' },
  { label: 'Settings', to: '/settings', phone: 'more' },
]

const ADMIN_DESTINATION: ShellDestination = { label: 'Admin', to: '/admin', phone: 'more' }

function isWithin(pathname: string, base: string) {
  return pathname === base || pathname.startsWith(`${base}/`)
}

/** The destinations this person has, each with whether the page shown belongs to it. */
export function shellDestinations(pathname: string, showAdminTab: boolean) {
  const all = showAdminTab ? [...DESTINATIONS, ADMIN_DESTINATION] : DESTINATIONS
  return all.map((destination) => ({
    ...destination,
    current: isWithin(pathname, destination.to) || Boolean(destination.alsoActiveOn?.(pathname)),
  }))
}

const tabClass = (active: boolean) =>
  cx(
    'inline-flex min-h-11 items-center border-b-[3px] px-3 text-sm font-medium whitespace-nowrap no-underline',
    active ? 'border-primary text-text' : 'border-transparent text-muted hover:border-border-strong hover:text-text',
  )

/**
 * The top tabs of the signed-in shell (spec §2) from the small breakpoint up; they wrap rather
 * than scroll. On a phone `PhoneNavBar` takes their place.
 */
export function NavTabs({ showAdminTab }: { showAdminTab: boolean }) {
  const { pathname } = useLocation()
  return (
    <nav aria-label="Main" className="hidden sm:block">
      <ul className="flex flex-wrap gap-1 px-2">
        {shellDestinations(pathname, showAdminTab).map((tab) => (
          <li key={tab.to}>
            <Link to={tab.to} aria-current={tab.current ? 'page' : undefined} className={tabClass(tab.current)}>
              {tab.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  )
}

const barItemClass = (active: boolean) =>
  cx(
    'flex min-h-14 w-full flex-col items-center justify-center border-t-[3px] px-1 text-xs font-medium no-underline',
    active ? 'border-primary text-text' : 'border-transparent text-muted hover:text-text',
  )

/**
 * A phone's navigation: a bar fixed to the bottom of the screen with the four destinations used
 * most, and "More" (a native `<details>`, so it opens without JavaScript) listing the others. With
 * JavaScript, a navigation, Escape or a tap elsewhere closes it.
 */
export function PhoneNavBar({ showAdminTab }: { showAdminTab: boolean }) {
  const { pathname } = useLocation()
  const moreRef = useRef<HTMLDetailsElement>(null)
  const destinations = shellDestinations(pathname, showAdminTab)
  const inBar = destinations.filter((d) => d.phone === 'bar')
  const inMore = destinations.filter((d) => d.phone === 'more')
  const moreCurrent = inMore.find((d) => d.current)

  useDismissDisclosure(moreRef)

  return (
    <nav aria-label="Main" className="fixed inset-x-0 bottom-0 z-30 border-t border-border bg-surface pb-[env(safe-area-inset-bottom)] sm:hidden">
      <ul className="grid grid-cols-5">
        {inBar.map((d) => (
          <li key={d.to} className="min-w-0">
            <Link to={d.to} aria-current={d.current ? 'page' : undefined} className={barItemClass(d.current)}>
              {d.label}
            </Link>
          </li>
        ))}
        <li className="min-w-0">
          <details
            ref={moreRef}
            onKeyDown={(event) => {
              const details = moreRef.current
              if (event.key === 'Escape' && details?.open) {
                details.open = false
                details.querySelector('summary')?.focus()
              }
            }}
          >
            <summary className={cx(barItemClass(Boolean(moreCurrent)), 'cursor-pointer list-none [&::-webkit-details-marker]:hidden')}>
              More
              {moreCurrent ? <span className="sr-only">, current: {moreCurrent.label}</span> : null}
            </summary>
            <ul className="absolute right-2 bottom-full mb-2 w-56 max-w-[calc(100vw-1rem)] rounded-lg border border-border bg-surface p-2 shadow-lg">
              {inMore.map((d) => (
                <li key={d.to}>
                  <Link
                    to={d.to}
                    aria-current={d.current ? 'page' : undefined}
                    className={cx(
                      'flex min-h-11 items-center rounded-md px-3 text-sm no-underline',
                      d.current ? 'bg-primary/10 font-medium text-primary-strong' : 'text-text hover:bg-surface-muted',
                    )}
                  >
                    {d.label}
                  </Link>
                </li>
              ))}
            </ul>
          </details>
        </li>
      </ul>
    </nav>
  )
}
