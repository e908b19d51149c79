import { useEffect, useState } from 'react'
import { Link, useRouteLoaderData } from 'react-router'
import { realtime } from '~/islands/realtime/realtime'
import { followUnread } from '~/islands/realtime/unread-follower'
import { createBrowserApi } from '~/lib/api/browser'
import { badgeText, bellLabel } from '~/lib/notifications'

/** What the shell's loader (app/routes/shell.tsx) gives the bell: the unread count, or null when it could not be read. */
export type BellData = { unread: number | null }

/**
 * The header's notifications bell (docs/settings-appearance-notifications.md "In-app
 * notifications"): a link to /notifications with the unread count rendered on the server, so it
 * works without JavaScript. With JavaScript the count follows the hub's NotificationsChanged, so a
 * new notification shows without a reload, and is read again each time the hub connection is back
 * (what it sent while down is lost); the next load of the shell's data takes over again.
 */
export function NotificationBell() {
  const unread = useRouteLoaderData<BellData>('routes/shell')?.unread ?? null
  // The live count, and the server's count it followed: a newer server count wins.
  const [live, setLive] = useState<{ basis: number | null; unread: number } | null>(null)
  const shown = live && live.basis === unread ? live.unread : unread

  useEffect(() => {
    const api = createBrowserApi({ onSignedOut: () => {} })
    const read = async () => {
      const answer = await api.GET('/api/notifications/unread-count')
      return answer.ok ? answer.data.unread : null
    }
    return followUnread(realtime, read, (count) => setLive({ basis: unread, unread: count }))
  }, [unread])

  const badge = shown === null ? null : badgeText(shown)
  return (
    <Link
      to="/notifications"
      aria-label={shown === null ? 'Notifications' : bellLabel(shown)}
      data-unread={shown ?? ''}
      className="relative inline-flex size-10 shrink-0 items-center justify-center rounded-full text-muted no-underline hover:bg-surface-muted hover:text-text"
    >
      <svg aria-hidden="true" viewBox="0 0 24 24" className="size-5" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
        <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
        <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
      </svg>
      {badge ? (
        <span
          aria-hidden="true"
          data-testid="notification-count"
          className="absolute -top-0.5 -right-0.5 min-w-5 rounded-full bg-critical px-1 text-center text-xs leading-5 font-semibold text-white"
        >
          {badge}
        </span>
      ) : null}
    </Link>
  )
}
