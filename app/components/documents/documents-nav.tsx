import { Link, useLocation } from 'react-router'
import { ProjectPicker, type ProjectOption } from '~/components/documents/project-picker'
import { cx } from '~/components/ui/class-names'
import { formatNumber } from '~/lib/format'
import { useLocale } from '~/root'

/**
 * The second level of navigation under the Documents tab (docs/doc-control.md "Finding your way"):
 * the register and every document-control screen, with the count of review tasks waiting for me,
 * and the project switcher. The main tabs stay as the spec lists them.
 *
 * On a phone the links are a plain `<details>` menu (it opens without JavaScript, nothing scrolls
 * sideways); from the small breakpoint up they wrap in a row. Every link keeps the project on
 * screen (`projectId`), and the switcher is a GET form that lands on the same screen.
 */
type Entry = { label: string; to: string; inbox?: boolean }

const ENTRIES: readonly Entry[] = [
  { label: 'Register', to: '/documents' },
  { label: 'Review inbox', to: '/doc-control/inbox', inbox: true },
  { label: 'Issue documents', to: '/doc-control/wizard' },
  { label: 'Transmittals', to: '/doc-control/transmittals' },
  { label: 'Reviews', to: '/doc-control/workflows' },
  { label: 'Sets', to: '/doc-control/sets' },
  { label: 'Deliverables', to: '/doc-control/deliverables' },
  { label: 'Matrix', to: '/doc-control/matrix' },
  { label: 'Parties', to: '/doc-control/parties' },
  // Not "Dashboard": the main tabs have one already, for the whole organisation.
  { label: 'Project dashboard', to: '/doc-control/dashboard' },
]

function isWithin(pathname: string, base: string) {
  return pathname === base || pathname.startsWith(`${base}/`)
}

/** The list screen a path belongs to: a switch on /doc-control/transmittals/… lands on the transmittals of the other project. */
export function switcherAction(pathname: string): string {
  const entry = ENTRIES.find((e) => isWithin(pathname, e.to))
  return entry?.to ?? '/documents'
}

export function DocumentsNav({ projects, projectId, inboxCount }: { projects: readonly ProjectOption[]; projectId: string | null; inboxCount: number | null }) {
  const { pathname } = useLocation()
  const locale = useLocale()
  const query = projectId ? `?${new URLSearchParams({ projectId })}` : ''
  const current = ENTRIES.find((e) => isWithin(pathname, e.to))
  const links = (className: string) => (
    <ul className={className}>
      {ENTRIES.map((entry) => {
        const active = entry === current
        return (
          <li key={entry.to}>
            <Link
              to={`${entry.to}${query}`}
              aria-current={active ? 'page' : undefined}
              className={cx(
                'inline-flex min-h-10 w-full items-center gap-2 rounded-md px-3 text-sm font-medium no-underline',
                active ? 'bg-primary/10 text-primary-strong' : 'text-muted hover:bg-surface-muted hover:text-text',
              )}
            >
              {entry.label}
              {entry.inbox && inboxCount ? (
                <>
                  <span className="sr-only">, </span>
                  <span className="rounded-full bg-primary px-2 py-0.5 text-xs text-white">{formatNumber(inboxCount, locale)}</span>
                  <span className="sr-only"> waiting</span>
                </>
              ) : null}
            </Link>
          </li>
        )
      })}
    </ul>
  )
  return (
    <div className="mb-6 flex flex-col gap-3 border-b border-border pb-3">
      <nav aria-label="Document control">
        {/* A new screen closes the phone menu (the key changes). */}
        <details key={pathname} className="sm:hidden">
          <summary className="inline-flex min-h-11 cursor-pointer items-center gap-2 rounded-md border border-border px-3 text-sm font-medium">
            Documents: {current?.label ?? 'Register'}
            {inboxCount ? <span className="rounded-full bg-primary px-2 py-0.5 text-xs text-white">{formatNumber(inboxCount, locale)}</span> : null}
          </summary>
          {links('mt-2 flex flex-col gap-1')}
        </details>
        {links('hidden flex-wrap gap-1 sm:flex')}
      </nav>
      <ProjectPicker projects={projects} projectId={projectId} action={switcherAction(pathname)} selectId="documents-project" />
    </div>
  )
}
