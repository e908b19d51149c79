import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Browser, BrowserContextOptions, Page } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { bound, launchBrowser, newJourneyContext, startPortal, type Journey, type Portal } from './harness'
import { signIn, signInDemoAdmin } from './steps'

/**
 * Every screen of the portal (app/routes.ts) on a 360 × 740 phone, JavaScript on and off: none may
 * be wider than the phone (the page must not scroll sideways, and no element may stick out of it
 * unless it sits inside a box of its own that scrolls or clips), and none may show a person
 * developer language: file paths, issue numbers, environment-variable names or raw ids.
 *
 * Kept fast for CI: one browser, one sign-in per kind of person (the JavaScript-off context takes
 * the same cookies), no axe (each screen's own journey checks that). The ids of the pages with an
 * id in their address (an item, its activity, a document …) are the demo seed's, found by
 * following the first matching link on the list page, as a person would.
 */

const WIDTH = 360

let portal: Portal
let browser: Browser

beforeAll(async () => {
  // Request lines are info: /admin/logs then has lines with ids and paths in them to check for raw ids.
  portal = await startPortal({ env: { LOG_LEVEL: 'info' } })
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await portal?.stop()
})

const PUBLIC_SCREENS = [
  '/auth/login',
  '/auth/mfa',
  '/auth/register',
  '/auth/verify-email',
  '/auth/confirm-email',
  '/auth/forgot-password',
  '/auth/blocked',
  '/invite/no-such-invite',
  '/invite/project/no-such-invite',
]

const USER_SCREENS = [
  '/',
  '/control-panel',
  '/dashboard',
  '/projects',
  '/reports',
  '/documents',
  '/doc-control/parties',
  '/doc-control/matrix',
  '/doc-control/deliverables',
  '/doc-control/wizard',
  '/doc-control/dashboard',
  '/doc-control/inbox',
  '/doc-control/transmittals',
  '/doc-control/sets',
  '/doc-control/workflows',
  '/join',
  '/items',
  '/exports',
  '/settings',
  '/settings/user',
  '/settings/site',
  '/settings/notifications',
  '/settings/support',
  '/forbidden/admin',
  '/no-such-page',
]

const ADMIN_SCREENS = [
  '/admin',
  '/admin/control-panel',
  '/admin/drawings-overlay',
  '/admin/workflow-templates',
  '/admin/users',
  '/admin/invites',
  '/admin/join-requests',
  '/admin/devices',
  '/admin/audit',
  '/admin/packages',
  '/admin/uploads',
  '/admin/support',
  '/admin/retention',
  '/admin/configuration',
  '/admin/email-templates',
  '/admin/mail-outbox',
  '/admin/telemetry',
  '/admin/frontend-errors',
  '/admin/diagnostics',
  '/admin/diagnostics/analysis',
  '/admin/schema-incidents',
  '/admin/security/csp-reports',
  '/admin/logs',
  '/admin/no-such-page',
  '/settings/admin',
  '/settings/link',
  '/settings/billing',
  '/settings/billing/success',
  '/settings/billing/cancel',
  '/settings/entitlements',
]

/** Pages with an id in their address: the list page to find it on, and the link to follow there. */
type Found = { on: string; link: RegExp; then?: string[] }
const USER_RECORDS: Found[] = [
  { on: '/reports', link: /^\/reports\/[^/?#]+$/ },
  { on: '/items', link: /^\/items\/[^/?#]+$/, then: ['/activity', '/pin'] },
  { on: '/documents', link: /^\/documents\/[^/?#]+$/, then: ['/sheet'] },
  { on: '/doc-control/transmittals', link: /^\/doc-control\/transmittals\/[^/?#]+$/ },
  { on: '/doc-control/sets', link: /^\/doc-control\/sets\/[^/?#]+$/ },
  { on: '/doc-control/workflows', link: /^\/doc-control\/workflows\/[^/?#]+$/ },
  { on: '/settings/support', link: /^\/settings\/support\/[^/?#]+$/ },
]
const ADMIN_RECORDS: Found[] = [
  { on: '/admin/drawings-overlay', link: /^\/admin\/projects\/[^/?#]+\/drawings-overlay$/ },
  { on: '/admin/users', link: /^\/admin\/users\/[^/?#]+$/ },
  { on: '/admin/support', link: /^\/admin\/support\/[^/?#]+$/ },
  { on: '/admin/configuration', link: /^\/admin\/configuration\/[^/?#]+$/ },
  { on: '/admin/email-templates', link: /^\/admin\/email-templates\/[^/?#]+$/ },
  { on: '/admin/mail-outbox', link: /^\/admin\/mail-outbox\/[^/?#]+$/ },
  { on: '/admin/frontend-errors', link: /^\/admin\/frontend-errors\/[^/?#]+$/ },
  { on: '/admin/diagnostics', link: /^\/admin\/diagnostics\/(?!analysis)[^/?#]+$/ },
]

/** Pages that must be found in the demo seed (the walk fails without them). */
// A document's page is walked when the register links one from its first folders; it is not required
// yet: since the register remembers one project and opens at its folders, the walk does not always
// reach a document (documents.test.ts checks the document page on a phone, JS on and off).
const REQUIRED_RECORDS = [/^\/items\/[^/]+$/, /^\/items\/[^/]+\/activity$/]

/**
 * Developer language a person must not see. Each allowed exception says why it is not one.
 */
const DEVELOPER_WORDS: { name: string; pattern: RegExp }[] = [
  { name: 'a raw id (UUID)', pattern: /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/i },
  { name: 'an issue number', pattern: /\bissue\s+#?\d+/i },
  { name: 'an environment-variable name', pattern: /\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b/ },
  { name: 'a file path', pattern: /(?:^|[\s("'])(?:\.{0,2}\/)?(?:[\w.-]+\/)+[\w.-]+\.(?:md|ts|tsx|js|mjs|json|sql|yml|yaml|env)\b/ },
]
const ALLOWED_WORDS: { screen: RegExp; text: RegExp; why: string }[] = []

/** Where the page is wider than the phone, and the elements that stick out. Runs in the page. */
function measure(width: number) {
  const clips = (element: Element) => {
    const style = getComputedStyle(element)
    return style.overflowX !== 'visible'
  }
  const problems: string[] = []
  const page = document.documentElement.scrollWidth
  if (page > width || page > window.innerWidth) problems.push(`the page is ${page} px wide`)
  for (const element of document.body.querySelectorAll('*')) {
    const box = element.getBoundingClientRect()
    if (box.width === 0 && box.height === 0) continue
    if (box.right <= width + 0.5 && box.left >= -0.5) continue
    let parent = element.parentElement
    let clipped = false
    while (parent && parent !== document.body) {
      if (clips(parent)) {
        clipped = true
        break
      }
      parent = parent.parentElement
    }
    if (clipped) continue
    const name = `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}.${String(element.getAttribute('class') ?? '')
      .split(/\s+/)
      .slice(0, 4)
      .join('.')}`
    problems.push(`${name} spans ${Math.round(box.left)}–${Math.round(box.right)} px ("${(element.textContent ?? '').trim().slice(0, 40)}")`)
    if (problems.length > 8) break
  }
  // A navigation (the shell's, Document control's, Settings' tabs, Administration's menu) must not
  // hide its links in a box that scrolls sideways either: the rule above lets such a box pass.
  for (const nav of document.body.querySelectorAll('nav')) {
    for (const element of [nav, ...nav.querySelectorAll('*')]) {
      const overflow = getComputedStyle(element).overflowX
      if ((overflow === 'auto' || overflow === 'scroll') && element.scrollWidth > element.clientWidth + 1) {
        problems.push(`the navigation "${nav.getAttribute('aria-label') ?? ''}" scrolls sideways (${element.scrollWidth} px in ${element.clientWidth} px)`)
        break
      }
    }
  }
  return { problems, text: document.body.innerText }
}

/**
 * Where a JavaScript-off screen is measured: a page with JavaScript on but every script of the
 * page refused (its CSP), given the screen's markup. One per walk: a new context per screen cost a
 * renderer process and the stylesheets fetched again each time.
 */
type Inspector = { page: Page; close: () => Promise<void> }

async function openInspector(contextOptions: BrowserContextOptions): Promise<Inspector> {
  const context = await browser.newContext({ ...contextOptions, javaScriptEnabled: true })
  return { page: await context.newPage(), close: () => context.close() }
}

/** What a screen breaks; measured in the page, or, with JavaScript off, in a copy of it in the inspector. */
async function inspect(page: Page, inspector: Inspector | undefined) {
  if (!inspector) return page.evaluate(measure, WIDTH)
  const url = page.url().split('#')[0] ?? ''
  const html = await page.content()
  await inspector.page.route(
    (target) => target.href === url,
    (route) => route.fulfill({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "script-src 'none'" }, body: html }),
    { times: 1 },
  )
  await inspector.page.goto(url)
  return await inspector.page.evaluate(measure, WIDTH)
}

/** Walks the screens and returns what is wrong with each. */
async function walk(journey: Journey, screens: readonly string[], javaScript: boolean, options: BrowserContextOptions): Promise<string[]> {
  const failures: string[] = []
  const inspector = javaScript ? undefined : await openInspector(options)
  try {
    for (const screen of screens) failures.push(...(await walkScreen(journey, screen, inspector)))
  } finally {
    await inspector?.close()
  }
  return failures
}

/** What is wrong with one screen of a walk. */
async function walkScreen(journey: Journey, screen: string, inspector: Inspector | undefined): Promise<string[]> {
  const javaScript = !inspector
  const failures: string[] = []
  const before = journey.problems.length
  await journey.page.goto(screen, { waitUntil: 'load' })
  if (javaScript) await journey.page.waitForLoadState('networkidle').catch(() => undefined)
  // What the browser reported on this screen (console errors, page errors), named by the screen.
  for (const problem of journey.problems.splice(before)) failures.push(`${screen}: ${problem.slice(0, 200)}`)
  const { problems, text } = await inspect(journey.page, inspector)
  for (const problem of problems) failures.push(`${screen}: ${problem}`)
  for (const { name, pattern } of DEVELOPER_WORDS) {
    for (const line of text.split('\n')) {
      const match = pattern.exec(line)
      if (!match) continue
      if (ALLOWED_WORDS.some((allowed) => allowed.screen.test(screen) && allowed.text.test(match[0]))) continue
      failures.push(`${screen}: shows ${name}: "${match[0].trim()}" in "${line.trim().slice(0, 80)}"`)
      break
    }
  }
  return failures
}

/** The pages with an id in their address, found by following links on their list pages. */
async function records(page: Page, found: readonly Found[]): Promise<string[]> {
  const screens: string[] = []
  for (const { on, link, then = [] } of found) {
    await page.goto(on)
    const linksHere = () => page.locator('main a[href]').evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''))
    let hrefs = await linksHere()
    let href = hrefs.map((h) => h.split(/[?#]/)[0] ?? '').find((h) => link.test(h))
    // A list that shows its records once narrowed (Documents by project): follow the first narrowing link.
    const narrowed = href ? undefined : hrefs.find((h) => h.startsWith(`${on}?`))
    if (narrowed) {
      await page.goto(narrowed)
      hrefs = await linksHere()
      href = hrefs.map((h) => h.split(/[?#]/)[0] ?? '').find((h) => link.test(h))
    }
    // A list that asks for its project first (Documents' project switcher, a plain GET form): open the first project.
    const project = href ? undefined : await page.locator('select[name="projectId"] option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value).find(Boolean))
    if (project) {
      await page.goto(`${on}?projectId=${project}`)
      hrefs = await linksHere()
      href = hrefs.map((h) => h.split(/[?#]/)[0] ?? '').find((h) => link.test(h))
      // The project's register opens at its folders: follow the first folder that holds documents.
      for (const folder of href ? [] : hrefs.filter((h) => h.startsWith(`${on}?`) && h.includes('folderId=')).slice(0, 5)) {
        await page.goto(folder)
        href = (await linksHere()).map((h) => h.split(/[?#]/)[0] ?? '').find((h) => link.test(h))
        if (href) break
      }
    }
    if (!href) continue
    screens.push(href, ...then.map((suffix) => href + suffix))
    if (on === '/items') {
      await page.goto(href)
      const markup = await page.locator('main a[href$="/markup"]').first().getAttribute('href', { timeout: 1000 }).catch(() => null)
      if (markup) screens.push(markup.split(/[?#]/)[0] ?? '')
    }
  }
  return screens
}

async function walkBothWays(signInAs: (page: Page) => Promise<void>, screens: readonly string[], found: readonly Found[]) {
  const on = await newJourneyContext(browser, { javaScript: true, viewport: 'small-phone', baseUrl: portal.baseUrl })
  try {
    await on.page.goto('/dashboard')
    await signInAs(on.page)
    const withIds = [...screens, ...(await records(on.page, found))]
    const failures = on.problems.splice(0).map((problem) => `signing in or following links: ${problem.slice(0, 200)}`)
    failures.push(...(await walk(on, withIds, true, {})))
    const storageState = await on.context.storageState()
    const off = await newJourneyContext(browser, { javaScript: false, viewport: 'small-phone', baseUrl: portal.baseUrl, storageState })
    try {
      const options: BrowserContextOptions = { viewport: { width: WIDTH, height: 740 }, isMobile: true, hasTouch: true, baseURL: portal.baseUrl, storageState }
      failures.push(...(await walk(off, withIds, false, options)).map((failure) => `JS off ${failure}`))
    } finally {
      await off.close()
    }
    // Every problem the browser reported is in `failures`, named by its screen.
    return { failures, withIds, assertNoConsoleErrors: () => on.assertNoConsoleErrors() }
  } finally {
    await on.close()
  }
}

describe('every screen on a 360 px phone, JavaScript on and off', () => {
  test('the public screens', { timeout: bound(60_000) }, async () => {
    const on = await newJourneyContext(browser, { javaScript: true, viewport: 'small-phone', baseUrl: portal.baseUrl })
    const off = await newJourneyContext(browser, { javaScript: false, viewport: 'small-phone', baseUrl: portal.baseUrl })
    try {
      const failures = [
        ...(await walk(on, PUBLIC_SCREENS, true, {})),
        ...(await walk(off, PUBLIC_SCREENS, false, { viewport: { width: WIDTH, height: 740 }, isMobile: true, baseURL: portal.baseUrl })).map((f) => `JS off ${f}`),
      ]
      expect(failures).toEqual([])
      on.assertNoConsoleErrors()
      off.assertNoConsoleErrors()
    } finally {
      await on.close()
      await off.close()
    }
  })

  test('the screens of a member', { timeout: bound(480_000) }, async () => {
    const { failures, withIds, assertNoConsoleErrors } = await walkBothWays(
      async (page) => {
        await signIn(page, DEMO.user.email, DEMO.user.password)
        await expectScreenQuick(page, 'Dashboard')
      },
      USER_SCREENS,
      USER_RECORDS,
    )
    expect(failures).toEqual([])
    for (const required of REQUIRED_RECORDS) expect(withIds.some((screen) => required.test(screen)), String(required)).toBe(true)
    assertNoConsoleErrors()
  })

  test('the screens of an administrator', { timeout: bound(480_000) }, async () => {
    const { failures, assertNoConsoleErrors } = await walkBothWays(
      async (page) => {
        await signInDemoAdmin(page)
        await expectScreenQuick(page, 'Dashboard')
      },
      ADMIN_SCREENS,
      ADMIN_RECORDS,
    )
    expect(failures).toEqual([])
    assertNoConsoleErrors()
  })
})

/** The screen's heading, without the axe check expectScreen adds. */
async function expectScreenQuick(page: Page, name: string) {
  await page.getByRole('heading', { level: 1, name }).waitFor()
}
