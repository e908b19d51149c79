import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import { checkAccessibility, launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, signInDemoAdmin, VARIANTS } from './steps'

/**
 * Administration › Packages and Uploads (docs/admin/packages-and-uploads.md): an administrator adds
 * a package, deactivates it and sees it marked inactive, then reads the upload figures; JavaScript
 * on and off.
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
  test('an admin adds a package, deactivates it and sees it inactive, switches it on for one project, then opens the uploads with their figures', async () => {
    const suffix = randomBytes(3).toString('hex')
    const name = `Glazing ${suffix}`
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j

    await page.goto('/admin/packages')
    await signInDemoAdmin(page)
    await expectScreen(page, 'Packages')

    const add = page.getByRole('form', { name: 'Add a package' })
    await add.getByLabel('Name', { exact: true }).fill(name)
    await add.getByLabel('Key', { exact: true }).fill(`glazing-${suffix}`)
    await add.getByRole('button', { name: 'Add package' }).click()
    await page.getByText(`Package “${name}” added.`).waitFor()
    const row = page.getByRole('row', { name: new RegExp(name) })
    await row.getByText('Active', { exact: true }).waitFor()

    await row.getByRole('button', { name: `Deactivate ${name}` }).click()
    await page.getByText(`“${name}” deactivated.`).waitFor()
    await row.getByText('Inactive', { exact: true }).waitFor()
    await row.getByRole('button', { name: `Activate ${name}` }).waitFor()
    await checkAccessibility(page)

    // A project switches the inactive package back on for itself.
    const picker = page.getByRole('form', { name: 'Choose a project' })
    await picker.getByLabel('Project').selectOption({ index: 1 })
    await picker.getByRole('button', { name: 'Open project' }).click()
    await page.waitForURL(/projectId=/)
    const settings = page.getByRole('form', { name: /^Packages of / })
    await settings.getByLabel(name).selectOption('on')
    await settings.getByRole('button', { name: 'Save project packages' }).click()
    await page.getByText('The project’s packages are saved.').waitFor()
    await page
      .getByRole('row', { name: new RegExp(name) })
      .filter({ hasText: 'On for this project' })
      .getByText('Usable', { exact: true })
      .waitFor()

    await page.goto('/admin/uploads')
    await expectScreen(page, 'Uploads')
    const figures = page.getByRole('list', { name: 'Upload figures' })
    await figures.getByText('Bytes completed').waitFor()
    await figures.getByText('Open', { exact: true }).waitFor()
    await page.getByRole('form', { name: 'Filter uploads' }).getByLabel('State').selectOption('completed')
    await page.getByRole('button', { name: 'Show uploads' }).click()
    await page.waitForURL(/state=completed/)
    await expectScreen(page, 'Uploads')
  })
})
