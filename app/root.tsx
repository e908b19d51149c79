import { useEffect } from 'react'
import { data, Links, Meta, Outlet, redirect, Scripts, ScrollRestoration, useLocation, useRouteLoaderData, type ShouldRevalidateFunctionArgs } from 'react-router'
import { ErrorScreen } from '~/components/errors/error-screen'
import { routeErrorCorrelationId, routeErrorMessage, routeErrorStatus, useReportRouteError } from '~/components/errors/route-error'
import { createServerApi } from '~/lib/api.server'
import { MESSAGES } from '~/lib/api/messages'
import { blockedPath } from '~/lib/api/paths'
import { hasSessionCookie, parseCookieHeader } from '~/lib/api/cookies'
import { buildFlags, isMobileSyncEnabled } from '~/lib/auth/flags'
import { evaluateGuard } from '~/lib/auth/guard'
import { guardModeFor } from '~/lib/auth/guard-mode'
import { deriveRole } from '~/lib/auth/role'
import type { Session } from '~/lib/auth/session'
import { takeFlash } from '~/lib/flash.server'
import { accountAppearanceForDevice } from '~/lib/appearance.server'
import { appearanceFromCookieHeader, documentAppearance } from '~/lib/appearance'
import { documentNonce } from '~/lib/appearance-nonce'
import { preferredLocale } from '~/lib/format'
import { FORGET_KEY } from '~/islands/sync/forget-key'
import { markHydrated } from '~/components/ui/deferred'
import { holdEarlyErrors, track } from '~/lib/telemetry'
import { guardRedirectOf } from '~/lib/telemetry-events'
import { NO_COLLECTION, SIGNED_OUT_COLLECTION } from '~/lib/telemetry-settings'
import type { Route } from './+types/root'
import stylesheetHref from './app.css?url'

/**
 * Resolves the session and applies the guard of spec §4 for every route: public screens pass;
 * a half-finished sign-in goes back to its second step; everything else needs a session, and the
 * Administration area an admin-capable one.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders, csrfToken, blockedCorrelationId } = createServerApi(request, context)
  const url = new URL(request.url)
  const mode = guardModeFor(url.pathname)

  // A browser with a session cookie is asked the organisation's telemetry switches beside the
  // session, not after it: both then read in the page's one shared transaction (issue 37; asked
  // after, it began a second one once the screen's reads were done). A visit without one makes
  // the one call for the session (issue 8 §4). Not signed in after all, the answer is not used.
  const sessionCall = api.GET('/auth/session')
  const collectionCall = hasSessionCookie(parseCookieHeader(request.headers.get('cookie'))) ? api.GET('/api/telemetry/settings') : undefined
  collectionCall?.catch(() => {})
  const result = await sessionCall
  // The backend could not tell whether there is a session (its database is down): a 503 page, not a
  // sign-in page that cannot work either (docs/operations.md "Database outage").
  if (!result.ok && (result.error.status ?? 0) >= 500 && mode !== 'public') {
    throw data({ correlationId: result.error.correlationId ?? null }, { status: 503, statusText: MESSAGES.serviceUnavailable, headers: responseHeaders })
  }
  let session = result.ok ? result.data : null
  // Spec §4: the automatic demo admin session, only in a build made with the adminAutoSession flag.
  if (!session && mode !== 'public' && buildFlags.adminAutoSession) {
    const demo = await api.POST('/auth/demo-session')
    if (demo.ok) session = demo.data
  }

  const blocked = blockedCorrelationId()
  if (blocked !== undefined && !url.pathname.startsWith('/auth/')) throw redirect(blockedPath(blocked), { headers: responseHeaders })

  if (mode !== 'public') {
    if (session?.requiresMfa) {
      throw redirect(`/auth/mfa?redirectTo=${encodeURIComponent(url.pathname + url.search)}`, { headers: responseHeaders })
    }
    // Spec §4 "Session loading": a session that is not admin-like gets one refresh to upgrade it.
    if (mode === 'admin' && session && !session.adminUiAllowed && session.kind !== 'admin') {
      const refreshed = await api.POST('/auth/session/refresh')
      if (refreshed.ok) session = refreshed.data
    }
    const decision = evaluateGuard({ mode, session, path: url.pathname + url.search })
    if (decision.outcome !== 'allow') throw redirect(decision.redirectTo, { headers: responseHeaders })
    context.logger.info({ event: 'Auth.Guard.Resumed', path: url.pathname, mode, userId: session?.userId }, 'guard resumed')
  }

  // What the page's telemetry and error batchers may send (issue 15): the organisation's switches
  // for a signed-in person; signed out there is no organisation to ask.
  const signedIn = session !== null && !session.requiresMfa
  const collection = signedIn ? await (collectionCall ?? api.GET('/api/telemetry/settings')) : null
  const flash = await takeFlash(request, responseHeaders)
  // This device's appearance (spec §9), applied by Layout on the first paint; on a settings page a device without one takes the account's.
  const appearance =
    appearanceFromCookieHeader(request.headers.get('cookie')) ??
    (session && url.pathname.startsWith('/settings') ? await accountAppearanceForDevice(api, request, responseHeaders) : null)
  return data(
    {
      appearance,
      cspNonce: context.cspNonce,
      csrfToken: csrfToken() ?? null,
      flash,
      oidcEnabled: context.oidcEnabled,
      locale: preferredLocale(request.headers.get('accept-language')),
      session: session && !session.requiresMfa ? shellSession(session) : null,
      telemetry: collection === null ? SIGNED_OUT_COLLECTION : collection.ok ? collection.data : NO_COLLECTION,
    },
    { headers: responseHeaders },
  )
}

/** Only what pages need: no tokens or cursors in the HTML. */
function shellSession(session: Session) {
  return {
    userId: session.userId,
    tenantId: session.tenantId,
    displayName: session.displayName,
    email: session.email,
    roles: session.roles,
    tenantName: session.tenantName,
    tenantSlug: session.tenantSlug,
    kind: session.kind,
    adminUiAllowed: session.adminUiAllowed,
    isAdmin: deriveRole(session) === 'admin',
    /** Spec §4: the session's feature flags, else the build's default. */
    mobileSync: isMobileSyncEnabled(session.featureFlags),
  }
}

/**
 * A live update (the realtime island revalidates a screen when someone else changes what it
 * shows) reloads the screen's data, not the root's: the root hands out the flash message once,
 * and reloading it would take a "Saved." away from the person who just saved. Form submissions
 * and navigations revalidate as usual.
 */
export function shouldRevalidate({ formMethod, currentUrl, nextUrl, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  if (!formMethod && currentUrl.href === nextUrl.href) return false
  return defaultShouldRevalidate
}

export type ShellSession = ReturnType<typeof shellSession>

export function useShellSession(): ShellSession | null {
  return useRouteLoaderData<typeof loader>('root')?.session ?? null
}

/** The user's locale (from the browser's Accept-Language), for dates and numbers. */
export function useLocale(): string {
  return useRouteLoaderData<typeof loader>('root')?.locale ?? 'en-GB'
}

export function Layout({ children }: { children: React.ReactNode }) {
  const root = useRouteLoaderData<typeof loader>('root')
  const nonce = root?.cspNonce
  const appearance = documentAppearance(root?.appearance ?? null)
  return (
    <html lang={root?.locale ?? 'en'} data-theme={appearance.theme} data-contrast={appearance.contrast} data-palette={appearance.palette}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <Meta />
        {/* In production entry.server.tsx inlines the stylesheet ahead of every script. Here, with a
            precedence, React writes the link ahead of the modulepreload links it hoists into <head>. */}
        {import.meta.env.DEV && <link rel="stylesheet" href={stylesheetHref} precedence="default" />}
        <Links />
        <AppearanceStyle css={appearance.css} nonce={nonce} />
      </head>
      <body className="min-h-screen">
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  )
}

/** A custom palette's colours: inline style attributes are refused by the CSP, a <style> with the document's nonce is not. */
function AppearanceStyle({ css, nonce }: { css: string | undefined; nonce: string | undefined }) {
  if (!css) return null
  return (
    <style nonce={documentNonce(nonce)} suppressHydrationWarning>
      {css}
    </style>
  )
}

export default function App() {
  // From now on a route module is evaluated by an in-app navigation (app/components/ui/deferred.tsx).
  useEffect(markHydrated, [])
  useForgetSignedOutCopy()
  usePageTelemetry()
  useTrackGuardRedirects()
  return <Outlet />
}

/**
 * The invisible telemetry and error batchers (issue 15), started once the page is idle so they never
 * delay its first paint, with what the organisation allows; started again when that changes (a
 * sign-in). Errors of the page before then are held for them.
 */
function usePageTelemetry(): void {
  const root = useRouteLoaderData<typeof loader>('root')
  const collection = root?.telemetry
  const signedIn = Boolean(root?.session)
  const key = collection ? `${signedIn}:${collection.usage}:${collection.samplingPercent}:${collection.errors}` : ''
  useEffect(() => {
    if (!collection) return
    let unhold: (() => void) | undefined = holdEarlyErrors(window)
    let stop: (() => void) | undefined
    let cancelled = false
    const start = () =>
      void import('~/islands/telemetry/connect').then(({ connectPageTelemetry }) => {
        if (cancelled) return
        unhold?.()
        unhold = undefined
        stop = connectPageTelemetry(collection, signedIn)
      })
    const idle = window.requestIdleCallback ? window.requestIdleCallback(start, { timeout: 2000 }) : window.setTimeout(start, 200)
    return () => {
      cancelled = true
      if (window.cancelIdleCallback) window.cancelIdleCallback(idle)
      window.clearTimeout(idle)
      unhold?.()
      stop?.()
    }
    // The key names everything of `collection` and `signedIn` the batchers use.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key])
}

/** `web.auth.guard.redirect` when the guard (the root loader) sent the browser to sign in or to the forbidden page. */
function useTrackGuardRedirects(): void {
  const { pathname, search } = useLocation()
  useEffect(() => {
    const redirect = guardRedirectOf(pathname, new URLSearchParams(search))
    if (redirect) track('web.auth.guard.redirect', redirect)
  }, [pathname, search])
}

/** After a sign-out from this device, its offline copy is deleted (app/islands/sync/forget.ts). */
function useForgetSignedOutCopy(): void {
  const signedIn = useShellSession() !== null
  useEffect(() => {
    if (!signedIn && window.localStorage.getItem(FORGET_KEY)) void import('~/islands/sync/forget').then(({ forgetSignedOut }) => forgetSignedOut())
  }, [signedIn])
}

export function meta() {
  return [{ title: 'Site Portal' }]
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  useReportRouteError(error)
  return (
    <ErrorScreen standalone message={routeErrorMessage(error)} status={routeErrorStatus(error)} correlationId={routeErrorCorrelationId(error)} />
  )
}
