import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { checkAccessibility, launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, JOURNEY_VARIANTS, nextAdminCode, openMainDestination, pathOf, signIn, signOut, VARIANTS } from './steps'

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

describe.each(JOURNEY_VARIANTS)('$name', ({ javaScript, viewport }) => {
  async function journey() {
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(async () => {
      await j.close()
    })
    return j
  }

  test('a user signs in, lands where they were going, and visits every tab', async () => {
    const { page, assertNoConsoleErrors } = await journey()
    await page.goto('/projects')
    await expectScreen(page, 'Sign in')
    expect(pathOf(page)).toBe('/auth/login?redirectTo=%2Fprojects')

    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, 'Projects')
    expect(pathOf(page)).toBe('/projects')

    const tabs = page.getByRole('navigation', { name: 'Main' })
    expect(await tabs.getByRole('link', { name: 'Admin' }).count()).toBe(0)
    for (const [tab, heading] of [
      ['Dashboard', 'Dashboard'],
      ['Projects', 'Projects'],
      ['Reports', 'Reports'],
      ['Documents', 'Documents'],
      ['Items', 'Items'],
      ['Settings', 'Settings'],
    ] as const) {
      await openMainDestination(page, tab)
      await expectScreen(page, heading)
      // On a phone the link may sit in the closed "More" menu: hidden, but still the current page.
      expect(await tabs.getByRole('link', { name: tab, exact: true, includeHidden: true }).getAttribute('aria-current')).toBe('page')
    }
    await page.getByRole('heading', { name: 'Change password' }).waitFor()
    assertNoConsoleErrors()
  })

  test('a user who opens the Administration area sees "Access denied"', async () => {
    const { page, assertNoConsoleErrors } = await journey()
    await page.goto('/admin/users')
    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, 'Access denied')
    await page.getByText('You are signed in, but your account does not have permission to view the Administration pages.').waitFor()
    await page.getByText('/admin/users').waitFor()
    await page.getByRole('link', { name: 'Go to Dashboard' }).click()
    await expectScreen(page, 'Dashboard')
    assertNoConsoleErrors()
  })

  test('a wrong password shows the error next to the form and keeps the e-mail address', async () => {
    const { page, assertNoConsoleErrors } = await journey()
    await page.goto('/auth/login')
    await signIn(page, DEMO.user.email, 'not-the-password')
    await page.getByText('The e-mail address or password is incorrect.').waitFor()
    expect(await page.getByLabel('E-mail address').inputValue()).toBe(DEMO.user.email)
    // Without script the page comes back from the server, which never sends a password back.
    if (!javaScript) expect(await page.getByLabel('Password').inputValue()).toBe('')
    await checkAccessibility(page)

    await page.getByLabel('Password').fill(DEMO.user.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expectScreen(page, 'Dashboard')
    assertNoConsoleErrors()
  })

  test('signing out ends the session', async () => {
    const { page, assertNoConsoleErrors } = await journey()
    await page.goto('/dashboard')
    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, 'Dashboard')
    await signOut(page, DEMO.user.displayName)
    await page.goto('/dashboard')
    await expectScreen(page, 'Sign in')
    assertNoConsoleErrors()
  })
})

// The admin journey takes an authentication code, each usable once: two variants keep it quick.
describe.each([VARIANTS[0], VARIANTS[3]])('$name', ({ javaScript, viewport }) => {
  test('an administrator signs in with a code, gets the Admin tab and opens the Administration area', async () => {
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j
    await page.goto('/admin')
    // An administrator with a user sign-in is sent to the admin sign-in (step-up), not refused.
    await signIn(page, DEMO.admin.email, DEMO.admin.password, { admin: true })
    await expectScreen(page, 'Enter your authentication code')

    await page.getByLabel('Authentication code').fill('000000')
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.getByText('The code is not correct or has already been used.', { exact: false }).first().waitFor()

    await page.getByLabel('Authentication code').fill(await nextAdminCode(new URL(page.url()).origin))
    await page.getByRole('button', { name: 'Continue' }).click()
    await expectScreen(page, 'Admin control panel')
    expect(pathOf(page)).toBe('/admin')
    const tabs = page.getByRole('navigation', { name: 'Main' })
    expect(await tabs.getByRole('link', { name: 'Admin', includeHidden: true }).getAttribute('aria-current')).toBe('page')
    // On a phone the Administration sidebar is a disclosure above the page: open it first.
    const menu = page.getByText('Administration menu')
    if (await menu.isVisible()) await menu.click()
    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Users' }).click()
    await expectScreen(page, 'Users')
    await signOut(page, DEMO.admin.displayName)
    j.assertNoConsoleErrors()
  })
})

describe.each([VARIANTS[1], VARIANTS[2]])('$name', ({ javaScript, viewport }) => {
  test('an unknown page shows the error screen inside the shell, with a way back', async () => {
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j
    await page.goto('/auth/login')
    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, 'Dashboard')
    const response = await page.goto('/no-such-page')
    expect(response?.status()).toBe(404)
    await expectScreen(page, 'Not found')
    await page.getByRole('status').getByText('The requested resource was not found.').waitFor()
    expect(await page.getByRole('link', { name: 'Try again' }).count()).toBe(0)
    await page.getByRole('navigation', { name: 'Main' }).waitFor()
    await page.getByRole('link', { name: 'Go to Dashboard' }).click()
    await expectScreen(page, 'Dashboard')
    j.assertNoConsoleErrors()
  })
})
