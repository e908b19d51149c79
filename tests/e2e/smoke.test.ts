import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import { checkAccessibility, launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'

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
