import { type ReactNode } from 'react'
import { Link } from 'react-router'
import { NavTabs, PhoneNavBar } from '~/components/shell/nav-tabs'
import { NotificationBell } from '~/components/shell/notification-bell'
import { FlashToast } from '~/components/ui/toast'
import { RealtimeIndicator } from '~/islands/realtime/realtime-indicator'
import { SyncIndicator } from '~/islands/sync/sync-indicator'
import { useLocale } from '~/root'
import { deferred, partsBeforeNavigation } from '~/components/ui/deferred'

// The account menu (a native <details>, open without JavaScript) hydrates after the rest of the
// page (app/components/ui/deferred.tsx): Escape and a click elsewhere are what its script adds.
const loadUserMenu = async () => (await import('~/components/shell/user-menu')).UserMenu
const UserMenu = deferred(loadUserMenu, import.meta.env.SSR ? await loadUserMenu() : undefined)
await partsBeforeNavigation(UserMenu)

/** What the shell needs from the session; the root maps the real session onto it. */
export type ShellSession = { displayName: string; email: string; showAdminTab: boolean; userId: string; tenantId: string; mobileSync: boolean }

/**
 * The signed-in frame (spec §2): skip link, product name, live indicator (which starts the tab's
 * realtime connection), user menu, top tabs, the flash message and `<main id="main">` around the screen.
 * The header holds three parts, each a place to add to: the product name, the status-and-account
 * cluster on the right, and the destinations row (desktop). On a phone the destinations are a bar
 * at the bottom of the screen instead (`PhoneNavBar`), so nothing scrolls sideways.
 */
export function AppShell({ session, children }: { session: ShellSession; children: ReactNode }) {
  const locale = useLocale()
  return (
    <div className="flex min-h-screen flex-col">
      <a
        href="#main"
        className="fixed top-2 left-2 z-50 -translate-y-[200%] rounded-md bg-surface px-4 py-2 font-medium text-primary-strong shadow-lg focus:translate-y-0"
      >
        Skip to main content
      </a>
      <header className="border-b border-border bg-surface">
        <div className="mx-auto flex max-w-7xl items-center justify-between gap-4 px-4 py-1 sm:pb-0">
          <Link to="/dashboard" className="rounded-sm text-lg font-semibold text-text no-underline">
            Site Portal
          </Link>
          <div className="flex min-w-0 items-center gap-3">
            <SyncIndicator owner={{ userId: session.userId, tenantId: session.tenantId }} enabled={session.mobileSync} locale={locale} />
            <RealtimeIndicator />
            <NotificationBell />
            <UserMenu displayName={session.displayName} email={session.email} />
          </div>
        </div>
        <div className="mx-auto max-w-7xl sm:px-2">
          <NavTabs showAdminTab={session.showAdminTab} />
        </div>
      </header>
      {/* On a phone the bottom bar covers the last 3.5 rem of the screen: the page ends above it. */}
      <main id="main" tabIndex={-1} className="mx-auto w-full max-w-7xl flex-1 px-4 pt-6 pb-24 outline-none sm:py-8">
        <FlashToast />
        {children}
      </main>
      <PhoneNavBar showAdminTab={session.showAdminTab} />
    </div>
  )
}
