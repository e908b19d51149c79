import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { bound, launchBrowser, newJourneyContext, startPortal, type Portal, type Viewport } from './harness'
import { enterAdminCode, expectScreen, newDemoItem, newDemoProject, openMainDestination, pathOf, signIn, VARIANTS } from './steps'

/**
 * Issue 36 §4, lost updates, as two people meet them: both open the rename form of one project
 * (the most used shared record's edit form); the first saves; the second's save is refused with
 * "Changed by … since you opened it" and what they typed still in the form; saving again takes.
 * JavaScript on and off, on a desktop and on a 360 px phone.
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

/** The four variants, the phone at the narrowest width the portal is laid out for. */
const EDIT_CONFLICT_VARIANTS = VARIANTS.map((variant) =>
  variant.viewport === 'phone' ? { ...variant, name: variant.name.replace('phone', '360 px phone'), viewport: 'small-phone' as Viewport } : { ...variant, viewport: variant.viewport as Viewport },
)

/** From the dashboard, by the shell's links, to the project's rename form. */
async function openRenameForm(page: Page, title: string) {
  await openMainDestination(page, 'Projects')
  await expectScreen(page, 'Projects')
  await page.getByRole('link', { name: `Rename ${title}` }).click()
  await renameForm(page).waitFor()
  return renameForm(page)
}

/** The open rename form; its name follows the project's title, which the other person's save changes (live with script, on the next page without). */
function renameForm(page: Page) {
  return page.getByRole('form', { name: /^Rename “Quay Wall / })
}

describe.each(EDIT_CONFLICT_VARIANTS)('$name', ({ javaScript, viewport }) => {
  test('two people rename one project: the later save is refused naming who saved first, the typed title stays, and saving again takes', { timeout: bound(120_000) }, async () => {
    const title = `Quay Wall ${randomBytes(3).toString('hex')}`
    await newDemoProject(portal.baseUrl, { title, code: `QW${randomBytes(2).toString('hex').toUpperCase()}` })

    const open = async () => {
      const journey = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
      onTestFinished(() => journey.close())
      await journey.page.goto('/dashboard')
      return journey
    }
    // Sam, the site user, and Alex, the administrator (a member of the organisation like Sam), each in a browser of their own.
    const sam = await open()
    await signIn(sam.page, DEMO.user.email, DEMO.user.password)
    await expectScreen(sam.page, 'Dashboard')
    const alex = await open()
    await signIn(alex.page, DEMO.admin.email, DEMO.admin.password)
    await enterAdminCode(alex.page, 'user')
    await expectScreen(alex.page, 'Dashboard')

    const samForm = await openRenameForm(sam.page, title)
    const alexForm = await openRenameForm(alex.page, title)

    // Alex saves first.
    const alexTitle = `${title} (north)`
    await alexForm.getByLabel('Title').fill(alexTitle)
    await alexForm.getByRole('button', { name: 'Save changes' }).click()
    await alex.page.getByText(`Project saved as “${alexTitle}”.`).waitFor()

    // Sam, on the form opened before Alex's save, is told who changed it; nothing of Sam's is saved and Sam's words stay.
    const samTitle = `${title} phase 2`
    await samForm.getByLabel('Title').fill(samTitle)
    await samForm.getByRole('button', { name: 'Save changes' }).click()
    const refused = renameForm(sam.page)
    await refused.getByText(`Changed by ${DEMO.admin.displayName} since you opened it.`).waitFor()
    expect(await refused.getByLabel('Title').inputValue()).toBe(samTitle)
    await expectScreen(sam.page, 'Projects')
    const active = sam.page.getByRole('table', { name: 'Active projects' })
    // The list shows the project as it is now, with or without script (a refused save reads the screen again).
    await active.getByRole('link', { name: alexTitle, exact: true }).waitFor()

    // Saved again, against the project as it is now: it takes.
    await refused.getByRole('button', { name: 'Save changes' }).click()
    await sam.page.getByText(`Project saved as “${samTitle}”.`).waitFor()
    await active.getByRole('link', { name: samTitle, exact: true }).waitFor()
    expect(pathOf(sam.page)).toBe('/projects')
    sam.assertNoConsoleErrors()
    alex.assertNoConsoleErrors()
  })

  /** What the browser reports when the hub cannot be reached. */
  const HUB_UNREACHABLE = [/\/hub\/realtime/, /WebSocket connection to/]

  test('two people edit one item: the later save is refused naming who saved first, the typed title stays, and saving again takes', { timeout: bound(120_000) }, async () => {
    const tag = randomBytes(3).toString('hex')
    const item = await newDemoItem(portal.baseUrl, { project: `Pier ${tag}`, report: `Walk ${tag}`, item: `Cracked kerb ${tag}`, priority: 'medium' })
    const open = async (options: { live: boolean } = { live: true }) => {
      const journey = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl, ignore: options.live ? [] : HUB_UNREACHABLE })
      onTestFinished(() => journey.close())
      if (!options.live) await journey.page.route('**/hub/realtime/**', (route) => route.abort())
      await journey.page.goto(`/items/${item.id}`)
      return journey
    }
    // A link to the item (a mail's, a colleague's): each signs in and lands on it. Sam's page hears
    // no live update (the hub is out of its reach, as on a poor connection), so what it shows after
    // the refusal is what the refusal itself brought.
    const sam = await open({ live: false })
    await signIn(sam.page, DEMO.user.email, DEMO.user.password)
    await expectScreen(sam.page, `Cracked kerb ${tag}`)
    const alex = await open()
    await signIn(alex.page, DEMO.admin.email, DEMO.admin.password)
    await enterAdminCode(alex.page, 'user')
    await expectScreen(alex.page, `Cracked kerb ${tag}`)
    const editForm = (page: Page) => page.getByRole('region', { name: 'Edit item' })

    await editForm(alex.page).getByLabel('Location').fill('Grid C4')
    await editForm(alex.page).getByRole('button', { name: 'Save changes' }).click()
    await alex.page.getByText(`Item #${item.number} saved.`).waitFor()

    const samTitle = `Cracked kerb ${tag}, north side`
    await editForm(sam.page).getByLabel('Title').fill(samTitle)
    await editForm(sam.page).getByRole('button', { name: 'Save changes' }).click()
    await sam.page.getByText(`Changed by ${DEMO.admin.displayName} since you opened it.`).waitFor()
    expect(await editForm(sam.page).getByLabel('Title').inputValue()).toBe(samTitle)
    // The page shows the item as it is now, Alex's location among its facts, to check before saving again.
    await sam.page.getByText('Grid C4').first().waitFor()

    await editForm(sam.page).getByRole('button', { name: 'Save changes' }).click()
    await sam.page.getByText(`Item #${item.number} saved.`).waitFor()
    await expectScreen(sam.page, samTitle)
    sam.assertNoConsoleErrors()
    alex.assertNoConsoleErrors()
  })
})
