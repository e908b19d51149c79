import { afterAll, beforeAll, describe, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import { launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, signInDemoAdmin, VARIANTS } from './steps'

/**
 * Administration › Diagnostics (docs/observability.md "Diagnostics"): an admin runs the checks,
 * sees the run with its checks at the top of the list, opens it to read every attempt, and opens
 * the analysis with its server-drawn charts. JavaScript on and off (the run is a plain POST form).
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
  test('runs the checks, opens the run and its attempts, and reads the analysis', async () => {
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j

    await page.goto('/admin/diagnostics')
    await signInDemoAdmin(page)
    await expectScreen(page, 'Diagnostics')

    await page.getByRole('button', { name: 'Run checks now' }).click()
    await page.getByText(/^The checks finished: /).waitFor()
    await expectScreen(page, 'Diagnostics')
    // The organisation's state shows the run's database check, and the run heads the list.
    await page
      .getByRole('list', { name: 'This organisation’s checks' })
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'Database', exact: true }) })
      .getByText('Passed', { exact: true })
      .waitFor()
    const row = page.getByRole('row').filter({ hasText: 'This organisation' }).first()
    await row.getByText('Database: Passed').waitFor()
    await row.getByText('File storage: Passed').waitFor()

    await row.getByRole('link').click()
    await expectScreen(page, /^Diagnostic run of /)
    const attempts = page.getByRole('region', { name: 'Attempts' }).first()
    await attempts.getByRole('rowheader', { name: 'Database' }).waitFor()
    await attempts.getByText('A test file was written, read back and removed.').waitFor()

    await page.goto('/admin/diagnostics/analysis?hours=6&scope=organisation')
    await expectScreen(page, 'Diagnostics analysis')
    await page.getByRole('img', { name: 'Database: attempts, failures and latency per hour' }).waitFor()
    await page.getByRole('rowheader', { name: 'Database' }).first().waitFor()
  })
})
