import { randomBytes } from 'node:crypto'
import { expect } from 'vitest'
import type { Cookie, Page } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { currentTotp } from '#server/domain/auth/totp'
import type { Item, Project, Report } from '~/lib/reporting/types'
import { checkAccessibility, type Portal } from './harness'

/** The variants every journey runs in: JavaScript on and off, on a desktop and a phone screen. */
export const VARIANTS = [
  { name: 'JS on, desktop', javaScript: true, viewport: 'desktop' },
  { name: 'JS off, desktop', javaScript: false, viewport: 'desktop' },
  { name: 'JS on, phone', javaScript: true, viewport: 'phone' },
  { name: 'JS off, phone', javaScript: false, viewport: 'phone' },
] as const

/**
 * The variants of the journeys that run on both screens: JavaScript on, on a desktop and a phone,
 * and without JavaScript on the phone. The server draws the same forms for both screens, so one
 * screen without JavaScript covers them; the phone is the one where a page is used before its
 * JavaScript has arrived (a weak connection on site), and its layout is the narrower, where a
 * control is likelier to be out of reach. The desktop without JavaScript added a fifth of these
 * files' time and no path the phone's did not take (2026-11-30). Files that run on the desktop
 * only keep it with JavaScript on and off; docs/architecture.md lists each file's variants.
 */
export const JOURNEY_VARIANTS = [VARIANTS[0], VARIANTS[2], VARIANTS[3]] as const

/**
 * The long journeys' variants (document control's, minutes each): JavaScript on and off on a
 * desktop, and the phone layout with JavaScript; the phone without JavaScript draws the same
 * server-rendered forms as the desktop does, so it adds time, not coverage.
 */
export const LONG_JOURNEY_VARIANTS = [VARIANTS[0], VARIANTS[1], VARIANTS[2]] as const

/**
 * With JavaScript: waits until React has hydrated the page's forms (it marks each element it took
 * over) and a frame has passed, so the page's effects have run. A journey that checks what an
 * effect does (a usage event tracked as a screen shows) waits for it: otherwise a fast form post
 * may leave before hydration, as a person on a slow phone can, and the event is never made.
 */
export async function waitUntilHydrated(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const form = document.querySelector('form')
    return form !== null && Object.keys(form).some((key) => key.startsWith('__reactFiber$'))
  })
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))))
}

/** Waits for the screen whose h1 is `name`, and checks it with axe. */
export async function expectScreen(page: Page, name: string | RegExp): Promise<void> {
  await page.getByRole('heading', { level: 1, name }).waitFor()
  await checkAccessibility(page)
}

export async function signIn(page: Page, email: string, password: string, options: { admin?: boolean } = {}): Promise<void> {
  if (options.admin) {
    await page.getByRole('link', { name: 'Admin sign-in' }).click()
    // With script this is a client-side navigation: type only once the admin form is there.
    await page.getByRole('heading', { level: 1, name: 'Admin sign-in' }).waitFor()
  }
  await page.getByLabel('E-mail address').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

/** The demo administrator through the admin sign-in link and the second factor, from a sign-in page the guard showed. */
export async function signInDemoAdmin(page: Page): Promise<void> {
  await signIn(page, DEMO.admin.email, DEMO.admin.password, { admin: true })
  await enterAdminCode(page)
}

/**
 * The demo admin's next authentication code for the portal at `origin`. A code is accepted once,
 * so a second admin sign-in in the same 30 s uses the next step's code (the server accepts one
 * step of drift) and a third waits for the clock.
 */
export async function nextAdminCode(origin: string): Promise<string> {
  for (;;) {
    const code = await adminCodeWithoutWaiting(origin)
    if (code) return code
    const step = Math.floor(Date.now() / 30_000)
    await new Promise((resolve) => setTimeout(resolve, (step + 1) * 30_000 - Date.now() + 50))
  }
}

/**
 * Per portal (its origin), the last time step whose code a journey used. The server refuses a step
 * used before in its own database, and each file's portal has its own: a worker's files share this
 * module (isolate: false), and one shared step made a file's first admin sign-in wait up to 30 s
 * for the codes the file before it had used on another portal.
 */
const lastSteps = new Map<string, number>()
/** The demo admin's next code on the portal at `origin` when the clock allows one now (it counts as used), else undefined. */
async function adminCodeWithoutWaiting(origin: string): Promise<string | undefined> {
  const step = Math.floor(Date.now() / 30_000)
  const usable = Math.max(step, (lastSteps.get(origin) ?? 0) + 1)
  if (usable > step + 1) return undefined
  lastSteps.set(origin, usable)
  return currentTotp(DEMO.adminTotpSecret, new Date(usable * 30_000))
}

/**
 * The demo admin's code on the "Enter your authentication code" screen their sign-in showed
 * (`kind`: through the Admin sign-in link, or the ordinary one), then on to the page the sign-in
 * was for.
 *
 * The clock gives one code per 30 s (nextAdminCode), so a file's third admin sign-in in a row
 * would wait for it: two minutes across the suite. Then, and only then, the journey takes this
 * file's last session of the same kind instead (still signed in: GET /auth/session) and opens the
 * page the sign-in was for. The second factor is still entered whenever a code is free (a file's
 * first two admin sign-ins always, so JavaScript on and off), and tests/e2e/sign-in.test.ts checks
 * it on its own.
 */
export async function enterAdminCode(page: Page, kind: 'admin' | 'user' = 'admin'): Promise<void> {
  await expectScreen(page, 'Enter your authentication code')
  const url = new URL(page.url())
  const key = `${url.origin} ${kind}`
  const code = await adminCodeWithoutWaiting(url.origin)
  const earlier = adminSessions.get(key)
  if (!code && earlier && (await stillSignedIn(url.origin, earlier, kind))) {
    await page.context().addCookies(earlier)
    await page.goto(url.searchParams.get('redirectTo') || '/')
    return
  }
  await page.getByLabel('Authentication code').fill(code ?? (await nextAdminCode(url.origin)))
  await page.getByRole('button', { name: 'Continue' }).click()
  await page.waitForURL((next) => next.pathname !== url.pathname)
  adminSessions.set(key, await page.context().cookies(url.origin))
}

/** This file's last demo-admin session of each kind on each portal, as its cookies. */
const adminSessions = new Map<string, Cookie[]>()

async function stillSignedIn(origin: string, cookies: Cookie[], kind: 'admin' | 'user'): Promise<boolean> {
  const response = await fetch(`${origin}/auth/session`, {
    headers: { accept: 'application/json', cookie: cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ') },
  })
  if (!response.ok) return false
  const session = (await response.json()) as { kind?: string; requiresMfa?: boolean }
  return session.kind === kind && session.requiresMfa === false
}

export async function signOut(page: Page, displayName: string): Promise<void> {
  await page.locator('summary', { hasText: `Account menu for ${displayName}` }).click()
  await page.getByRole('button', { name: 'Sign out' }).click()
  await expectScreen(page, 'Sign in')
  expect(new URL(page.url()).pathname).toBe('/auth/login')
}

/**
 * Follows one of the shell's destinations (Dashboard … Admin). On a phone the bottom bar shows
 * four of them and the others sit under its "More" menu, which this opens first.
 */
export async function openMainDestination(page: Page, name: string): Promise<void> {
  const nav = page.getByRole('navigation', { name: 'Main' })
  // isVisible() does not wait: read the bar once the page shows it, not while it is replaced.
  await nav.waitFor()
  const link = nav.getByRole('link', { name, exact: true })
  // "More" names the current destination after it (", current: Projects") when that is in its menu.
  if (!(await link.isVisible())) await nav.locator('summary', { hasText: /^More\b/ }).click()
  await link.click()
}

/** Follows a link of the Documents sub-navigation: on a phone it is in the menu, opened first. */
export async function openDocumentsLink(page: Page, viewport: 'desktop' | 'phone', name: RegExp): Promise<void> {
  const nav = page.getByRole('navigation', { name: 'Document control' })
  if (viewport === 'phone') await nav.locator('summary').click()
  await nav.getByRole('link', { name }).click()
}

export function pathOf(page: Page): string {
  const url = new URL(page.url())
  return url.pathname + url.search
}

/** A call of the running portal's API as the signed-in demo user. */
export type DemoCall = <T>(method: string, path: string, body?: unknown) => Promise<T>

/** A caller of the running portal's API with its own cookies and the CSRF header, as the web app's client does. */
export type PortalApi = {
  /** The answer's status and JSON, whatever the status. */
  send(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }>
  /** The answer's JSON; a refusal throws with the answer. */
  call: DemoCall
}

export function portalApi(baseUrl: string): PortalApi {
  const jar = new Map<string, string>()
  let csrf: string | undefined
  async function send(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    const headers: Record<string, string> = { accept: 'application/json', cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') }
    // JSON, or a FormData as a form sends it without JavaScript (multipart: fetch sets its boundary).
    if (body !== undefined && !(body instanceof FormData)) headers['content-type'] = 'application/json'
    if (csrf) headers['X-CSRF-Token'] = csrf
    const payload = body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body)
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body: payload })
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const at = pair.indexOf('=')
      jar.set(pair.slice(0, at), pair.slice(at + 1))
    }
    csrf = response.headers.get('x-csrf-token') ?? csrf
    const text = await response.text()
    return { status: response.status, json: text ? (JSON.parse(text) as unknown) : null }
  }
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const answer = await send(method, path, body)
    if (answer.status >= 400 && path !== '/auth/session') throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.json)}`)
    return answer.json as T
  }
  return { send, call }
}

/** Someone signed in to the running portal's API with an e-mail and password, and their user id. */
export async function signedInApi(baseUrl: string, person: { email: string; password: string }): Promise<PortalApi & { userId: string }> {
  const api = portalApi(baseUrl)
  await api.call('GET', '/auth/session')
  await api.call('POST', '/auth/login', { email: person.email, password: person.password })
  const session = await api.call<{ userId: string }>('GET', '/auth/session')
  return { ...api, userId: session.userId }
}

/**
 * The demo administrator signed in to the running portal's API with the second factor (a code is
 * accepted once: sign in once per file). `admin` uses the admin sign-in (Administration's calls).
 */
export async function demoAdminApi(baseUrl: string, options: { admin?: boolean } = {}): Promise<PortalApi> {
  const api = portalApi(baseUrl)
  await api.send('GET', '/auth/session')
  await api.call('POST', options.admin ? '/auth/admin/login' : '/auth/login', { email: DEMO.admin.email, password: DEMO.admin.password })
  await api.call('POST', '/auth/mfa/verify', { code: await nextAdminCode(new URL(baseUrl).origin) })
  return api
}

/** The demo user signed in to the running portal's API, and their user id. */
export async function demoUserApi(baseUrl: string): Promise<{ call: DemoCall; userId: string }> {
  return signedInApi(baseUrl, DEMO.user)
}

/**
 * A new person with an organisation of their own (registered, verified through the mailed link and
 * signed in through the API), as someone from another company is.
 */
export async function newRegisteredPerson(portal: Portal, label: string) {
  const suffix = randomBytes(4).toString('hex')
  const person = { displayName: `${label} ${suffix}`, email: `${label.toLowerCase().replace(/\W+/g, '-')}-${suffix}@example.test`, password: 'a long enough password 123' }
  const api = portalApi(portal.baseUrl)
  await api.send('GET', '/auth/session')
  await api.call('POST', '/auth/register-self', { ...person, organisationName: `${label} Ltd ${suffix}` })
  const mail = await portal.mailTo(person.email)
  const link = /https?:\/\/\S+verify-email\S*/.exec(mail.text)?.[0]
  const token = link ? new URL(link).searchParams.get('token') : null
  if (!token) throw new Error(`no verification link in: ${mail.text}`)
  await api.call('POST', '/auth/email/verify', { token })
  await api.call('POST', '/auth/login', { email: person.email, password: person.password })
  return { ...person, api }
}

/** An item of the demo user's in a new project and report, made through the running portal's API; assigned to them when asked. */
export async function newDemoItem(
  baseUrl: string,
  titles: { project: string; report: string; item: string; priority: 'low' | 'medium' | 'high'; assignToSelf?: boolean },
): Promise<Item> {
  const { call, userId } = await demoUserApi(baseUrl)
  const project = await call<Project>('POST', '/api/projects', { title: titles.project })
  const report = await call<Report>('POST', '/api/reports', { projectId: project.id, title: titles.report })
  return call<Item>('POST', `/api/reports/${report.id}/items`, {
    title: titles.item,
    priority: titles.priority,
    ...(titles.assignToSelf && { assigneeUserId: userId }),
  })
}

/** A project of the demo organisation with a code (its documents' Project field), made through the running portal's API. */
export async function newDemoProject(baseUrl: string, project: { title: string; code: string }): Promise<Project & { call: DemoCall }> {
  const { call } = await demoUserApi(baseUrl)
  return { ...(await call<Project>('POST', '/api/projects', project)), call }
}
