import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { checkAccessibility, launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, newDemoItem, signIn } from './steps'

let portal: Portal
let browser: Browser

beforeAll(async () => {
  portal = await startPortal()
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await portal?.stop()
})

describe.each([
  { mode: 'JavaScript on', javaScript: true },
  { mode: 'JavaScript off', javaScript: false },
])('$mode', ({ javaScript }) => {
  test.each(['desktop', 'phone'] as const)('the home page answers as "Site Portal", is accessible and logs no errors (%s)', async (viewport) => {
    const journey = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => journey.close())
    const { page } = journey

    const response = await page.goto('/', { waitUntil: javaScript ? 'networkidle' : 'load' })

    // Signed out, / leads to the sign-in screen; which screen it is will change, these will not.
    expect(response?.status()).toBe(200)
    expect(await page.title()).toMatch(/Site Portal$/)
    const heading = page.getByRole('heading', { level: 1 })
    expect(await heading.count()).toBe(1)
    expect(await heading.isVisible()).toBe(true)
    await checkAccessibility(page)
    journey.assertNoConsoleErrors()
  })

  test('/api/health answers on the portal’s origin', async () => {
    const journey = await newJourneyContext(browser, { javaScript, baseUrl: portal.baseUrl })
    onTestFinished(() => journey.close())
    const { page } = journey
    await page.goto('/')

    // With script, as an island would call it (so the page's CSP must allow it); without, as a plain request.
    const health = javaScript
      ? await page.evaluate(async () => {
          const response = await fetch('/api/health', { headers: { accept: 'application/json' } })
          return { status: response.status, body: (await response.json()) as unknown }
        })
      : await page.request.get('/api/health').then(async (response) => ({ status: response.status(), body: (await response.json()) as unknown }))

    expect(health).toMatchObject({ status: 200, body: { status: 'ok', database: 'reachable', clientVersion: '0.1.0' } })
    journey.assertNoConsoleErrors()
  })
})

// On a slow phone a person taps the account menu before the page's JavaScript has run: the menu
// opens natively (a <details>) and must stay open once the page hydrates (it closed itself then).
test.each(['desktop', 'phone'] as const)('JS on: the account menu opened before the scripts ran stays open after them (%s)', async (viewport) => {
  const journey = await newJourneyContext(browser, { javaScript: true, viewport, baseUrl: portal.baseUrl })
  onTestFinished(() => journey.close())
  const { page } = journey
  await page.goto('/auth/login')
  await signIn(page, DEMO.user.email, DEMO.user.password)
  await expectScreen(page, 'Dashboard')

  // The next page's scripts wait until the menu is open.
  let release: () => void = () => {}
  const held = new Promise<void>((resolve) => (release = resolve))
  await page.route('**/assets/*.js', async (route) => {
    await held
    await route.continue()
  })
  await page.goto('/dashboard', { waitUntil: 'commit' })
  const menu = page.locator('summary', { hasText: `Account menu for ${DEMO.user.displayName}` })
  await menu.click()
  const signOutButton = page.getByRole('button', { name: 'Sign out' })
  await signOutButton.waitFor()
  release()
  await page.waitForFunction(() => (window as { __reactRouterRouteModules?: unknown }).__reactRouterRouteModules !== undefined)
  await page.waitForLoadState('networkidle')
  expect(await signOutButton.isVisible()).toBe(true)
  await page.unrouteAll()
  journey.assertNoConsoleErrors()
})

// On a weak connection a part's chunk may not arrive (the account menu's script loads after the
// page's). The screen stays as the server rendered it and the chunk is fetched again, instead of the
// screen giving way to an error: here the first two fetches fail, the third brings the menu's script.
test.each(['desktop', 'phone'] as const)('a part whose script fails to load is fetched again; the screen stays (%s)', async (viewport) => {
  const journey = await newJourneyContext(browser, { javaScript: true, viewport, baseUrl: portal.baseUrl, ignore: [/user-menu-/] })
  onTestFinished(() => journey.close())
  const { page } = journey
  await page.goto('/dashboard')
  await signIn(page, DEMO.user.email, DEMO.user.password)
  await expectScreen(page, 'Dashboard')

  let fetches = 0
  await page.route('**/assets/user-menu-*.js', async (route) => {
    fetches += 1
    if (fetches <= 2) await route.abort('connectionrefused')
    else await route.continue()
  })
  await page.reload()
  await expectScreen(page, 'Dashboard')
  await page.waitForFunction(() => (window as { __reactRouterRouteModules?: unknown }).__reactRouterRouteModules !== undefined)
  await expect.poll(() => fetches, { timeout: 20_000 }).toBe(3)
  // The menu's script is there: Escape closes the open menu.
  const menu = page.locator('details', { has: page.locator('summary', { hasText: `Account menu for ${DEMO.user.displayName}` }) })
  await menu.locator('summary').click()
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
  await expect.poll(async () => {
    await page.keyboard.press('Escape')
    return menu.evaluate((details) => (details as HTMLDetailsElement).open)
  }).toBe(false)
  await expectScreen(page, 'Dashboard')
  await page.unrouteAll()
  journey.assertNoConsoleErrors()
})

// On a slow phone a person starts typing a response while the item page is still starting: the
// respond form's script (a deferred part) has not arrived when the rest of the page hydrates. The
// text must stay, and the form must stay the one the server drew: once the page re-rendered as it
// hydrated, and React threw the waiting form's HTML away and drew it anew, empty.
test.each(['desktop', 'phone'] as const)('JS on: a response typed before its form’s script arrived is kept and sent (%s)', async (viewport) => {
  const item = await newDemoItem(portal.baseUrl, { project: `Slow Yard ${randomBytes(2).toString('hex')}`, report: 'Morning walk', item: 'Loose handrail', priority: 'medium' })
  const journey = await newJourneyContext(browser, { javaScript: true, viewport, baseUrl: portal.baseUrl })
  onTestFinished(() => journey.close())
  const { page } = journey
  await page.goto(`/items/${item.id}`)
  await signIn(page, DEMO.user.email, DEMO.user.password)
  await expectScreen(page, `#${item.number} Loose handrail`)

  // The next load of the page: the respond form's script waits until the response is typed.
  let release: () => void = () => {}
  const held = new Promise<void>((resolve) => (release = resolve))
  await page.route('**/assets/item-respond-form-*.js', async (route) => {
    await held
    await route.continue()
  })
  await page.reload()
  await expectScreen(page, `#${item.number} Loose handrail`)
  // The rest of the page has hydrated (its route modules ran) while the form's script is held.
  await page.waitForFunction(() => (window as { __reactRouterRouteModules?: unknown }).__reactRouterRouteModules !== undefined)
  const respond = page.getByRole('region', { name: 'Respond' })
  const field = respond.getByLabel('Your response')
  await field.fill('Handrail refixed with four new anchors')
  const form = await respond.locator('form').elementHandle()
  release()
  await page.waitForLoadState('networkidle')
  expect(await form?.evaluate((element) => element.isConnected)).toBe(true)
  expect(await field.inputValue()).toBe('Handrail refixed with four new anchors')
  await respond.getByRole('button', { name: 'Send response' }).click()
  await page.getByText('Response sent.').waitFor()
  await page.getByRole('region', { name: 'Responses' }).getByText('Handrail refixed with four new anchors').waitFor()
  await page.unrouteAll()
  journey.assertNoConsoleErrors()
})

// A screen reached by an in-app navigation is drawn with its deferred forms in place. Their chunks
// are fetched beside the screen's data; drawn before they had arrived, the forms popped in a moment
// later and pushed what was below them down, under the person's thumb.
test('JS on: a screen reached by an in-app navigation shows its deferred forms with it', async () => {
  const title = `Loose handrail ${randomBytes(3).toString('hex')}`
  const item = await newDemoItem(portal.baseUrl, { project: `Quick Yard ${randomBytes(2).toString('hex')}`, report: 'Morning walk', item: title, priority: 'medium' })
  const journey = await newJourneyContext(browser, { javaScript: true, baseUrl: portal.baseUrl })
  onTestFinished(() => journey.close())
  const { page } = journey
  await page.goto('/items')
  await signIn(page, DEMO.user.email, DEMO.user.password)
  await expectScreen(page, 'Items')
  await page.waitForLoadState('networkidle')

  // Whenever the page changes, note whether the item's heading is there without its respond form.
  await page.evaluate((heading) => {
    const w = window as { formless?: boolean }
    w.formless = false
    const check = () => {
      const shown = [...document.querySelectorAll('h1')].some((h) => h.textContent === heading)
      const form = [...document.querySelectorAll('label')].some((label) => label.textContent?.includes('Your response'))
      if (shown && !form) w.formless = true
    }
    new MutationObserver(check).observe(document.body, { childList: true, subtree: true, characterData: true })
  }, `#${item.number} ${title}`)

  // The respond form's chunk arrives a second after the item's data.
  let release: () => void = () => {}
  const held = new Promise<void>((resolve) => (release = resolve))
  await page.route('**/assets/item-respond-form-*.js', async (route) => {
    await held
    await route.continue()
  })
  const data = page.waitForResponse((response) => response.url().includes(`/items/${item.id}.data`))
  await page.getByRole('link', { name: title }).first().click()
  await data
  await Promise.race([page.getByRole('heading', { level: 1, name: `#${item.number} ${title}` }).waitFor(), new Promise((resolve) => setTimeout(resolve, 1_000))])
  release()

  await page.getByRole('heading', { level: 1, name: `#${item.number} ${title}` }).waitFor()
  expect(await page.getByRole('region', { name: 'Respond' }).getByLabel('Your response').count()).toBe(1)
  expect(await page.evaluate(() => (window as { formless?: boolean }).formless)).toBe(false)
  await page.unrouteAll()
  journey.assertNoConsoleErrors()
})
