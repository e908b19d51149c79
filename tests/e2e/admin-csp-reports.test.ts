import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser, Locator, Page } from 'playwright-core'
import { checkAccessibility, launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, signInDemoAdmin } from './steps'

/**
 * Administration › Security › CSP reports (docs/observability.md): a real violation in Chromium.
 * On one of our pages, signed in as an administrator, a script from elsewhere is added; the
 * browser blocks it and reports it to /telemetry/csp-reports (report-uri: the portal runs on http
 * here, where Chromium does not use report-to), with the organisation's token; the admin sees it on the
 * page, JavaScript on and off, filters it (a GET form) and opens its reports.
 */

let portal: Portal
let browser: Browser
const blocked = `https://example.invalid/csp-e2e-${randomBytes(4).toString('hex')}.js`
const CSP_CONSOLE = [/Content Security Policy/, /Refused to load the script/]

beforeAll(async () => {
  portal = await startPortal()
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await portal?.stop()
})

async function reloadUntil(page: Page, locator: Locator): Promise<void> {
  const deadline = Date.now() + 30_000
  for (;;) {
    if (await locator.isVisible()) return
    if (Date.now() > deadline) throw new Error(`Still not shown after reloading for 30 s: ${locator.toString()}`)
    await new Promise((resolve) => setTimeout(resolve, 500))
    await page.reload()
  }
}

describe('CSP reports', () => {
  test('JS on: a script injected into our page is blocked, reported with the organisation’s token, and shown grouped with its page', async () => {
    const j = await newJourneyContext(browser, { javaScript: true, baseUrl: portal.baseUrl, ignore: CSP_CONSOLE })
    onTestFinished(() => j.close())
    const { page } = j

    await page.goto('/admin/security/csp-reports')
    await signInDemoAdmin(page)
    await expectScreen(page, 'CSP reports')
    // Nothing of ours violates the policy: before the injection there is nothing to show.
    await page.getByRole('heading', { name: 'No CSP reports' }).waitFor()

    const response = await page.goto('/admin/mail-outbox')
    await expectScreen(page, 'Mail outbox')
    const headers = response!.headers()
    // Over http Chromium ignores Reporting-Endpoints (and, with report-to present, report-uri too):
    // the portal names report-uri alone; over https it adds report-to (tests/unit/csp-headers.test.ts).
    expect(headers['content-security-policy']).toMatch(/report-uri \/telemetry\/csp-reports\?o=[0-9a-f-]{36}\.[0-9a-z]+\.[A-Za-z0-9_-]+$/)
    expect(headers['reporting-endpoints']).toBeUndefined()

    const violation = page.waitForEvent('console', (message) => /Content Security Policy/.test(message.text()))
    await page.evaluate((src) => {
      const script = document.createElement('script')
      script.src = src
      document.head.append(script)
    }, blocked)
    await violation

    await page.goto('/admin/security/csp-reports')
    await expectScreen(page, 'CSP reports')
    const row = page.getByRole('row', { name: new RegExp(blocked.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) })
    await reloadUntil(page, row)
    expect(await row.getByRole('rowheader').textContent()).toBe('script-src-elem')
    await row.getByText('/admin/mail-outbox').waitFor()
    await page.getByText(/^Latest:/).waitFor()
    await checkAccessibility(page)

    await row.getByRole('link', { name: /Reports/ }).click()
    await page.getByRole('heading', { name: `Reports: script-src-elem ${blocked}` }).waitFor()
    await page.getByRole('cell', { name: 'Blocked', exact: true }).first().waitFor()
    j.assertNoConsoleErrors()
  })

  test('JS off: the admin filters by directive and disposition (a GET form), opens the group, and sees an empty filter; schema incidents are empty', async () => {
    const j = await newJourneyContext(browser, { javaScript: false, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j

    await page.goto('/admin/security/csp-reports')
    await signInDemoAdmin(page)
    await expectScreen(page, 'CSP reports')
    const form = page.getByRole('form', { name: 'Filter CSP reports' })
    await form.getByLabel('Directive').fill('script-src-elem')
    await form.getByLabel('Disposition').selectOption({ label: 'Blocked (enforce)' })
    await form.getByRole('button', { name: 'Show reports' }).click()
    await page.waitForURL(/directive=script-src-elem/)
    expect(page.url()).toContain('disposition=enforce')
    const row = page.getByRole('row', { name: new RegExp(blocked.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) })
    await row.waitFor()
    await row.getByRole('link', { name: /Reports/ }).click()
    await page.getByRole('heading', { name: `Reports: script-src-elem ${blocked}` }).waitFor()
    expect(page.url()).toContain('directive=script-src-elem')
    await checkAccessibility(page)

    await form.getByLabel('Directive').fill('img-src')
    await form.getByRole('button', { name: 'Show reports' }).click()
    await page.getByRole('heading', { name: 'No reports match' }).waitFor()

    await page.goto('/admin/schema-incidents')
    await expectScreen(page, 'Schema incidents')
    await page.getByRole('heading', { name: 'No schema incidents' }).waitFor()
    j.assertNoConsoleErrors()
  })
})
