import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, expect, onTestFinished, test } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, signIn, signInDemoAdmin, signedInApi, waitUntilHydrated } from './steps'

/**
 * Issue 15: an error thrown in a person's browser arrives on Administration › Frontend errors, with
 * its stack; the usage events of their sign-in arrive on Administration › Telemetry. The admin
 * turns both on through Settings › Admin and Configuration › Telemetry. Without JavaScript the
 * admin pages and their filters work as plain pages.
 */

let portal: Portal
let browser: Browser

beforeAll(async () => {
  // Request lines are logged at info: the correlation-id search below reads them.
  portal = await startPortal({ env: { LOG_LEVEL: 'info' } })
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await portal?.stop()
})

/** Reloads until the text shows: nothing on these pages is pushed to them. */
async function reloadUntilText(page: Page, text: string | RegExp): Promise<void> {
  const deadline = Date.now() + 20_000
  for (;;) {
    if (await page.getByText(text).first().isVisible()) return
    if (Date.now() > deadline) throw new Error(`Still not shown after reloading for 20 s: ${String(text)}`)
    await new Promise((resolve) => setTimeout(resolve, 500))
    await page.reload()
  }
}

test('JS on: a signed-in person’s thrown error and unhandled rejection reach the admin’s frontend errors with their stack; their sign-in steps reach telemetry', async () => {
  const tag = randomBytes(4).toString('hex')
  const admin = await newJourneyContext(browser, { javaScript: true, baseUrl: portal.baseUrl })
  onTestFinished(() => admin.close())

  // The organisation collects errors and usage telemetry, naming the person.
  await admin.page.goto('/settings/admin')
  await signInDemoAdmin(admin.page)
  await expectScreen(admin.page, /Settings/)
  for (const label of ['Collect errors from people’s browsers', 'Collect usage telemetry', 'Name the person in error reports']) await admin.page.getByLabel(label).check()
  await admin.page.getByRole('button', { name: 'Save organisation defaults' }).click()
  await admin.page.getByText('The organisation defaults are saved.').first().waitFor()
  await admin.page.goto('/admin/configuration/telemetry')
  await expectScreen(admin.page, 'Telemetry')
  await admin.page.getByLabel('Send usage telemetry').check()
  await admin.page.getByRole('button', { name: 'Save', exact: true }).click()
  await admin.page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()

  // The person signs in and something on their page throws, twice over.
  const person = await newJourneyContext(browser, { javaScript: true, baseUrl: portal.baseUrl, ignore: [new RegExp(`e2e (boom|rejected) ${tag}`)] })
  onTestFinished(() => person.close())
  await person.page.goto('/dashboard')
  // The sign-in page tracks its step once hydrated; a form posted before that leaves without it.
  await waitUntilHydrated(person.page)
  await signIn(person.page, DEMO.user.email, DEMO.user.password)
  await expectScreen(person.page, 'Dashboard')
  const sent = person.page.waitForResponse((r) => r.url().endsWith('/telemetry/public-errors') && r.status() === 202, { timeout: 15_000 })
  await person.page.evaluate((t) => {
    setTimeout(() => {
      throw new Error(`e2e boom ${t}`)
    })
    void Promise.reject(new Error(`e2e rejected ${t}`))
  }, tag)
  await sent
  // Page hide sends the usage events still queued (a beacon).
  await person.page.goto('/settings/user')
  await expectScreen(person.page, /Settings/)

  await admin.page.goto(`/admin/frontend-errors?q=${tag}`)
  await expectScreen(admin.page, 'Frontend errors')
  await reloadUntilText(admin.page, `e2e rejected ${tag}`)
  const boom = admin.page.getByRole('link', { name: `e2e boom ${tag}` })
  await boom.waitFor()
  await boom.click()
  await expectScreen(admin.page, `e2e boom ${tag}`)
  const stack = admin.page.getByRole('list', { name: 'Stack, innermost call first' }).first()
  await stack.waitFor()
  expect(await stack.getByRole('listitem').count()).toBeGreaterThan(0)
  await admin.page.getByRole('region', { name: 'Affected people' }).getByText(DEMO.user.email).waitFor()

  // One failure, found by one id: the error's visitor id opens the server's lines of that visitor;
  // a line's request correlation id leads back to the visitor's frontend errors.
  const occurrence = admin.page.locator('details', { has: admin.page.getByTitle('The server’s log lines of this visitor') }).first()
  await occurrence.locator('summary').click()
  await occurrence.getByTitle('The server’s log lines of this visitor').click()
  await expectScreen(admin.page, 'Logs')
  const lines = admin.page.getByRole('list', { name: 'Log lines' })
  await lines.waitFor()
  // A line's ids are behind its Details toggle: open the first line that has a correlation id.
  const line = lines.getByRole('listitem').filter({ has: admin.page.locator('a', { hasText: /^[0-9a-f-]{36}$/ }) }).first()
  await line.getByText('Details', { exact: true }).click()
  const request = line.getByRole('link', { name: /^[0-9a-f-]{36}$/ }).first()
  const correlationId = (await request.textContent())?.trim() ?? ''
  await request.click()
  // Logs again: with JavaScript the heading is there before the navigation ends, so wait for the address.
  await admin.page.waitForURL((url) => url.searchParams.get('query') === correlationId)
  await expectScreen(admin.page, 'Logs')
  await admin.page.getByRole('region', { name: 'Frontend errors of the same visitor' }).getByRole('link', { name: `e2e boom ${tag}` }).waitFor()

  await admin.page.goto('/admin/telemetry?name=web.auth.sign-in.step')
  await expectScreen(admin.page, 'Telemetry')
  await reloadUntilText(admin.page, 'step=credentials')
  admin.assertNoConsoleErrors()
  person.assertNoConsoleErrors()
})

test('JS off: the frontend errors, an error’s page and telemetry draw on the server, with filters in the address', async () => {
  // What a browser of the demo organisation sent (its own, so this test stands alone).
  const tag = randomBytes(4).toString('hex')
  const user = await signedInApi(portal.baseUrl, DEMO.user)
  const at = new Date().toISOString()
  const visitor = `e2evisitor${tag}`
  const error = { name: 'web.error.window', timestampUtc: at, message: `e2e offline ${tag}`, stack: `Error: e2e offline ${tag}\n    at run (${portal.baseUrl}/assets/gone-Aa11.js:1:10)`, path: '/dashboard', userAgent: 'e2e', release: 'e2e', correlationId: visitor }
  expect((await user.send('POST', '/telemetry/public-errors', { events: [error] })).status).toBe(202)
  const event = { name: 'web.auth.sign-in.step', properties: { step: 'credentials', mode: 'user', outcome: 'shown' }, source: 'web', timestampUtc: at, correlationId: visitor }
  expect((await user.send('POST', '/telemetry/events', { source: 'web', events: [event] })).status).toBe(202)

  const j = await newJourneyContext(browser, { javaScript: false, baseUrl: portal.baseUrl })
  onTestFinished(() => j.close())
  const { page } = j
  await page.goto('/admin/frontend-errors')
  await signInDemoAdmin(page)
  await expectScreen(page, 'Frontend errors')
  const filters = page.getByRole('form', { name: 'Filter frontend errors' })
  await filters.getByLabel('Search').fill(tag)
  await filters.getByRole('button', { name: 'Show errors' }).click()
  await expectScreen(page, 'Frontend errors')
  expect(new URL(page.url()).searchParams.get('q')).toBe(tag)
  await page.getByRole('link', { name: `e2e offline ${tag}` }).click()
  await expectScreen(page, `e2e offline ${tag}`)
  // A frame of no build of this server: shown as it came.
  await page.getByText(`at run (${portal.baseUrl}/assets/gone-Aa11.js:1:10)`).first().waitFor()
  await page.getByRole('heading', { name: 'Occurrences' }).waitFor()

  await page.goto('/admin/telemetry')
  await expectScreen(page, 'Telemetry')
  await page.getByRole('img', { name: /Sent by the organisation’s people/ }).waitFor()
  const events = page.getByRole('form', { name: 'Filter events' })
  await events.getByLabel('Name starts with').fill('web.auth.')
  await events.getByLabel('Visitor or correlation id').fill(visitor)
  await events.getByRole('button', { name: 'Show events' }).click()
  await expectScreen(page, 'Telemetry')
  expect(new URL(page.url()).searchParams.get('visitor')).toBe(visitor)
  await page.getByRole('rowheader', { name: 'web.auth.sign-in.step' }).waitFor()
  expect(await page.getByRole('row').count()).toBeGreaterThanOrEqual(2)
  j.assertNoConsoleErrors()
})
