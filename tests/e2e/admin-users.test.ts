import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { checkAccessibility, launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, signInDemoAdmin, VARIANTS } from './steps'

/**
 * Administration › Users (docs/admin/users.md): an administrator finds a member by search, changes
 * their role, suspends them (after a confirmation) and reactivates them; JavaScript on and off.
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

// The variants run one after the other on one portal: each moves the demo user to the other role.
const ROLE_AFTER = { 'JS on, desktop': 'Read Only', 'JS off, desktop': 'Read & Write' } as const

describe.each([VARIANTS[0], VARIANTS[1]])('$name', ({ name, javaScript, viewport }) => {
  test('an admin finds a member by search, changes their role, suspends and reactivates them', async () => {
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j
    const member = DEMO.user.displayName

    await page.goto('/admin/users')
    await signInDemoAdmin(page)
    await expectScreen(page, 'Users')

    // Search: the filter lands in the URL and only the match is listed.
    const search = page.getByRole('search', { name: 'Find members' })
    await search.getByLabel('Search').fill('sam SITE')
    await search.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL(/q=sam/)
    const table = page.getByRole('table', { name: 'Members' })
    await table.getByRole('link', { name: member }).waitFor()
    // With script the address changes a moment before the list does.
    await expect.poll(() => table.getByRole('link', { name: DEMO.admin.displayName }).count()).toBe(0)
    await checkAccessibility(page)

    await table.getByRole('link', { name: member }).click()
    await expectScreen(page, member)

    // The role.
    const roles = page.getByRole('region', { name: 'Role and status' })
    await roles.getByLabel('Role in this organisation').selectOption({ label: ROLE_AFTER[name] })
    await roles.getByRole('button', { name: 'Change role' }).click()
    await page.getByText(`${member}’s role changed.`).waitFor()
    await page.getByRole('region', { name: 'Account' }).getByText(ROLE_AFTER[name], { exact: true }).waitFor()

    // Suspend, after the confirmation; then reactivate.
    await page.getByText('Suspend…').click()
    await page.getByRole('button', { name: 'Yes, suspend' }).click()
    await page.getByText(`${member} is suspended and signed out of this organisation.`).waitFor()
    await page.getByRole('region', { name: 'Account' }).getByText('Suspended', { exact: true }).waitFor()
    await checkAccessibility(page)
    await page.getByRole('button', { name: 'Reactivate' }).click()
    await page.getByText(`${member} is active again.`).waitFor()
    await page.getByRole('region', { name: 'Account' }).getByText('Active', { exact: true }).waitFor()
    j.assertNoConsoleErrors()
  })
})
