import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, pathOf, signIn, VARIANTS } from './steps'

/**
 * Issue 17 §4: a sign-in link whose redirectTo holds characters above U+00FF answered the form
 * post with 500 and no cookie (the Location header could not be built). The person now signs in
 * and lands on the same path, percent-encoded.
 */

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

describe.each([VARIANTS[0], VARIANTS[1]])('$name', ({ javaScript, viewport }) => {
  async function journey() {
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(async () => {
      await j.close()
    })
    return j
  }

  test('a redirectTo with a non-Latin query signs in and lands on the encoded path', async () => {
    const { page, assertNoConsoleErrors } = await journey()
    await page.goto(`/auth/login?redirectTo=${encodeURIComponent('/projects?q=✓')}`)
    await expectScreen(page, 'Sign in')

    await signIn(page, DEMO.user.email, DEMO.user.password)

    await expectScreen(page, 'Projects')
    expect(pathOf(page)).toBe('/projects?q=%E2%9C%93')
    assertNoConsoleErrors()
  })

  test('a redirectTo with a non-Latin path signs in and lands there (a page that does not exist, inside the shell)', async () => {
    const { page } = await journey()
    await page.goto(`/auth/login?redirectTo=${encodeURIComponent('/日本')}`)
    await expectScreen(page, 'Sign in')

    await signIn(page, DEMO.user.email, DEMO.user.password)

    await expectScreen(page, 'Not found')
    expect(pathOf(page)).toBe('/%E6%97%A5%E6%9C%AC')
    // Signed in: the shell's navigation is there.
    await page.getByRole('navigation', { name: 'Main' }).waitFor()
  })
})
