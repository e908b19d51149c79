import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { checkAccessibility, launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, newRegisteredPerson, signIn, VARIANTS } from './steps'

/**
 * Settings › Appearance (docs/settings-appearance-notifications.md): dark, high contrast and a
 * custom palette, each applied by the server on the first paint (in the HTML before any script)
 * and after a reload; a low-contrast text colour shows the WCAG warning; a new device takes the
 * account's appearance on its first settings visit; reset to defaults. JavaScript on and off.
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

/** What the server sends for this page with this device's cookies: the first paint, before any script. */
async function serverHtml(page: Page, path = '/settings/user'): Promise<string> {
  const response = await page.request.get(path)
  expect(response.status()).toBe(200)
  return response.text()
}

function settingsHeading(page: Page) {
  return page.getByRole('heading', { level: 1, name: 'Settings' })
}

function htmlTag(html: string): string {
  return /<html[^>]*>/.exec(html)?.[0] ?? ''
}

async function documentState(page: Page) {
  return page.locator('html').evaluate((html) => ({
    theme: html.getAttribute('data-theme'),
    contrast: html.getAttribute('data-contrast'),
    palette: html.getAttribute('data-palette'),
    background: getComputedStyle(html).backgroundColor,
    color: getComputedStyle(html).color,
  }))
}

async function save(page: Page, message: string | RegExp) {
  await page.getByRole('button', { name: 'Save appearance' }).click()
  await page.getByText(message).first().waitFor()
}

describe.each([VARIANTS[0], VARIANTS[1], VARIANTS[2]])('$name', ({ javaScript, viewport }) => {
  test('dark, high contrast and a custom palette are applied on reload before any script runs; a poor text colour is warned about; reset', async () => {
    const person = await newRegisteredPerson(portal, 'Appearance')
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j

    await page.goto('/settings/user')
    await signIn(page, person.email, person.password)
    await expectScreen(page, 'Settings')
    // Nothing chosen yet: the theme follows the device (light in this browser).
    expect(await documentState(page)).toMatchObject({ theme: 'system', contrast: null, palette: null, background: 'rgb(246, 248, 250)' })

    const theme = page.getByRole('group', { name: 'Theme' })
    await theme.getByRole('radio', { name: 'Dark', exact: true }).check()
    await save(page, 'Appearance saved.')
    expect(htmlTag(await serverHtml(page))).toContain('data-theme="dark"')
    await page.reload()
    await expectScreen(page, 'Settings')
    expect(await documentState(page)).toMatchObject({ theme: 'dark', contrast: null, background: 'rgb(13, 17, 23)', color: 'rgb(230, 237, 243)' })
    expect(await theme.getByRole('radio', { name: 'Dark', exact: true }).isChecked()).toBe(true)

    await page.getByLabel('High contrast').check()
    await save(page, 'Appearance saved.')
    expect(htmlTag(await serverHtml(page))).toMatch(/data-theme="dark" data-contrast="high"/)
    await page.reload()
    expect(await documentState(page)).toMatchObject({ theme: 'dark', contrast: 'high', background: 'rgb(0, 0, 0)', color: 'rgb(255, 255, 255)' })
    await checkAccessibility(page)

    // A custom palette with a text colour too pale for its background.
    await page.getByLabel('High contrast').uncheck()
    await theme.getByRole('radio', { name: /^Custom/ }).check()
    const palette = page.getByRole('group', { name: 'Custom palette' })
    await palette.getByRole('radiogroup', { name: 'Base mode' }).getByLabel('Light').check()
    await palette.getByLabel('Text', { exact: true }).fill('#c0c0c0')
    if (javaScript) {
      // The preview follows the pick before anything is saved.
      await page.getByTestId('contrast-warning').getByText('Text on the background').waitFor()
    }
    await save(page, /Appearance saved\. Some colours of the custom palette are below WCAG AA/)
    await page.reload()
    // No axe check here: the pale text is the point of this step.
    await settingsHeading(page).waitFor()
    const html = await serverHtml(page)
    expect(htmlTag(html)).toMatch(/data-theme="light"/)
    expect(htmlTag(html)).toMatch(/data-palette="custom"/)
    expect(html).toMatch(/<style nonce="[^"]+">:root\[data-palette=custom\]\{[^<]*--color-text:#c0c0c0/)
    expect(await documentState(page)).toMatchObject({ theme: 'light', palette: 'custom', background: 'rgb(246, 248, 250)', color: 'rgb(192, 192, 192)' })
    const warning = page.getByTestId('contrast-warning')
    await warning.getByText('Some colours are hard to read').waitFor()
    await warning.getByText(/Text on the background: \d\.\d\d:1/).waitFor()
    expect(await palette.getByLabel('Text', { exact: true }).inputValue()).toBe('#c0c0c0')

    // A new device of the same person takes the account's appearance on its first settings visit.
    const other = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => other.close())
    await other.page.goto('/settings/user')
    await signIn(other.page, person.email, person.password)
    await settingsHeading(other.page).waitFor()
    expect(await documentState(other.page)).toMatchObject({ theme: 'light', palette: 'custom', color: 'rgb(192, 192, 192)' })
    expect(htmlTag(await serverHtml(other.page, '/dashboard'))).toContain('data-palette="custom"')

    await page.getByText('Reset to defaults…').click()
    await page.getByRole('button', { name: 'Yes, reset' }).click()
    await page.getByText('Appearance reset to the defaults.').waitFor()
    expect(htmlTag(await serverHtml(page))).toContain('data-theme="system"')
    await page.reload()
    expect(await documentState(page)).toMatchObject({ theme: 'system', palette: null, background: 'rgb(246, 248, 250)' })
    expect(await page.getByTestId('contrast-warning').count()).toBe(0)
    await checkAccessibility(page)
    j.assertNoConsoleErrors()
    other.assertNoConsoleErrors()
  })
})
