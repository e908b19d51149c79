import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, signInDemoAdmin, VARIANTS } from './steps'

/**
 * The Administration area's shell (docs/admin/shell-and-retention.md): the control panel's figures,
 * the sidebar that collapses and is remembered in a cookie (drawn right by the server on the first
 * paint), and the retention policy form; JavaScript on and off, on a desktop.
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

/** The sidebar state in the HTML the server sends for a page, before any script runs. */
async function serverSidebar(page: Page, path: string): Promise<string | undefined> {
  const html = await (await page.request.get(path)).text()
  return /data-sidebar="(collapsed|expanded)"/.exec(html)?.[1]
}

describe.each([VARIANTS[0], VARIANTS[1]])('$name', ({ javaScript, viewport }) => {
  test('an admin reads the control panel, collapses the sidebar across a reload, expands it, and sets a retention policy', async () => {
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j

    await page.goto('/admin')
    await signInDemoAdmin(page)
    await expectScreen(page, 'Admin control panel')

    // The figures, each a link to its page.
    const glance = page.getByRole('region', { name: 'At a glance' })
    for (const [label, href] of [
      ['Active users', '/admin/users'],
      ['Seats', '/admin/users'],
      ['Pending invites', '/admin/invites'],
      ['Join requests', '/admin/join-requests'],
      ['Failing mail', '/admin/mail-outbox?status=dead'],
      ['Storage used', '/admin/uploads'],
      ['Retention due', '/admin/retention'],
    ] as const) {
      expect(await glance.getByRole('link', { name: new RegExp(`^${label}`) }).getAttribute('href')).toBe(href)
    }
    const nav = page.getByRole('navigation', { name: 'Administration' })
    expect(await nav.getByRole('link', { name: 'Control panel' }).getAttribute('aria-current')).toBe('page')

    // Collapse: icons only, each still named; the server draws it collapsed from then on.
    expect(await serverSidebar(page, '/admin/control-panel')).toBe('expanded')
    // With script, the loaders run again once the choice is saved. This page is /admin, whose data
    // request is /admin.data: the choice's cookie must reach that too, or the sidebar springs back.
    const reloaded = javaScript ? page.waitForResponse((response) => new URL(response.url()).pathname.endsWith('.data') && response.request().method() === 'GET') : undefined
    await nav.getByRole('button', { name: 'Collapse the sidebar' }).click()
    await nav.getByRole('button', { name: 'Expand the sidebar' }).waitFor()
    await page.locator('aside[data-sidebar="collapsed"]').waitFor()
    if (reloaded) {
      await reloaded
      // React draws the loaders' answer a moment after it arrives.
      await page.waitForTimeout(500)
      expect(await page.locator('aside').getAttribute('data-sidebar')).toBe('collapsed')
    }
    // With script the sidebar shows its new state while the save is on its way: the server's page follows once it is saved.
    await expect.poll(() => serverSidebar(page, '/admin/control-panel'), { timeout: 10_000 }).toBe('collapsed')
    await page.reload()
    await expectScreen(page, 'Admin control panel')
    expect(await page.locator('aside').getAttribute('data-sidebar')).toBe('collapsed')
    expect((await page.locator('aside').boundingBox())?.width).toBe(72)
    expect(await nav.getByRole('link', { name: 'Users' }).getAttribute('title')).toBe('Users')

    // Expand again.
    await nav.getByRole('button', { name: 'Expand the sidebar' }).click()
    await nav.getByRole('button', { name: 'Collapse the sidebar' }).waitFor()
    await expect.poll(() => serverSidebar(page, '/admin/control-panel'), { timeout: 10_000 }).toBe('expanded')
    await expect.poll(async () => (await page.locator('aside').boundingBox())?.width).toBe(260)

    // Retention: a purge period shorter than the archive one is refused, what was typed stays; then it saves.
    await nav.getByRole('link', { name: 'Retention' }).click()
    await expectScreen(page, 'Retention')
    await page.getByText('Active items').waitFor()
    await page.getByLabel('Apply this policy').check()
    await page.getByLabel('Archive closed items after (days)').fill('30')
    await page.getByLabel('Purge archived items after (days)').fill('20')
    await page.getByRole('button', { name: 'Save policy' }).click()
    await page.getByText('Purge after more days than archive').waitFor()
    expect(await page.getByLabel('Archive closed items after (days)').inputValue()).toBe('30')
    expect(await page.getByLabel('Purge archived items after (days)').inputValue()).toBe('20')
    expect(await page.getByLabel('Apply this policy').isChecked()).toBe(true)
    await page.getByLabel('Purge archived items after (days)').fill('400')
    await page.getByRole('button', { name: 'Save policy' }).click()
    await page.getByText('Retention policy saved: closed items are archived after 30 days and purged after 400.').waitFor()
    await expectScreen(page, 'Retention')
    expect(await page.getByLabel('Purge archived items after (days)').inputValue()).toBe('400')
    expect(await nav.getByRole('link', { name: 'Retention' }).getAttribute('aria-current')).toBe('page')
  })
})
