import { useLocation } from 'react-router'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'

/**
 * Screens of spec §2 whose issues come later (their route modules re-export this one). They show the shell and say plainly that the
 * screen is not built yet: no sample data, nothing that looks like it works and does not.
 */
const TITLES: Array<[RegExp, string]> = [
  [/^\/settings\/site/, 'Site settings'],
  [/^\/settings\/notifications/, 'Notification settings'],
  [/^\/settings\/admin/, 'Admin settings'],
  [/^\/settings\/link/, 'Link subscription'],
  [/^\/settings\/billing\/success/, 'Payment received'],
  [/^\/settings\/billing\/cancel/, 'Payment cancelled'],
  [/^\/settings\/billing/, 'Billing'],
  [/^\/settings\/entitlements/, 'Entitlements'],
]

export function titleFor(pathname: string): string {
  return TITLES.find(([pattern]) => pattern.test(pathname))?.[1] ?? 'Site Portal'
}

export default function ComingLater() {
  const { pathname } = useLocation()
  const title = titleFor(pathname)
  const inSettings = pathname.startsWith('/settings')
  return (
    <>
      {inSettings ? <h2 className="mb-4 text-xl font-semibold">{title}</h2> : <PageHeader title={title} />}
      <EmptyState heading="Not available yet" headingLevel={inSettings ? 3 : 2}>
        This part of Site Portal is not built yet. Nothing is stored or shown here for now.
      </EmptyState>
    </>
  )
}

export function meta({ location }: { location: { pathname: string } }) {
  return [{ title: `${titleFor(location.pathname)} · Site Portal` }]
}
