import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import type { ConfigCategoryValues } from '~/lib/admin/config'
import { startSmtpServer } from '../helpers/smtp'
import { launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, signInDemoAdmin, VARIANTS } from './steps'

/**
 * Administration › Configuration (docs/admin/configuration-screens.md): an administrator sets up
 * mail with a wrong password, sees the test fail naming the credentials, fixes it and receives the
 * test mail; a refused field keeps everything else typed; a save over someone else's keeps the
 * input and names both versions; an earlier version is restored. JavaScript on and off, and on a
 * phone.
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

/** The portal's API with the browser's own session, as another tab of the same admin would call it. */
function tabApi(page: Page) {
  return async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const cookies = await page.context().cookies(portal.baseUrl)
    const csrf = cookies.find((cookie) => cookie.name.endsWith('sp_csrf'))?.value
    const response = await fetch(`${portal.baseUrl}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        cookie: cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; '),
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...(csrf && { 'X-CSRF-Token': decodeURIComponent(csrf) }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const json = (await response.json()) as T
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`)
    return json
  }
}

describe.each([VARIANTS[0], VARIANTS[1], VARIANTS[2]])('$name', ({ javaScript, viewport }) => {
  test('an admin configures SMTP with a wrong password, sees the test fail, fixes it and receives the test mail; errors, conflicts and restore keep the input', async () => {
    const suffix = randomBytes(3).toString('hex')
    const smtp = await startSmtpServer()
    onTestFinished(() => smtp.close())
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j

    await page.goto('/admin/configuration')
    await signInDemoAdmin(page)
    await expectScreen(page, 'Configuration')
    const categories = page.getByRole('list', { name: 'Configuration categories' })
    await categories.getByRole('link', { name: 'Security' }).waitFor()
    await categories.getByRole('link', { name: 'Mail' }).click()
    await expectScreen(page, 'Mail')

    // The SMTP server of this test, with a wrong password.
    const form = page.getByRole('form', { name: 'Mail settings' })
    await form.getByLabel('SMTP server').fill(smtp.host)
    await form.getByLabel('Port').fill(String(smtp.port))
    await form.getByLabel('Connection security').selectOption('none')
    await form.getByLabel('User name').fill(smtp.user)
    await form.getByLabel('Password').fill('not-the-password')
    await form.getByLabel('Sender address').fill(`portal-${suffix}@example.test`)
    await form.getByLabel('Sender name').fill(`Portal ${suffix}`)
    await form.getByRole('button', { name: 'Save', exact: true }).click()
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()
    await expectScreen(page, 'Mail')
    await form.getByText('set', { exact: true }).waitFor()
    expect(await form.getByLabel('Password').inputValue()).toBe('')
    expect(await form.getByLabel('SMTP server').inputValue()).toBe(smtp.host)

    // The test names the credentials.
    expect(await form.getByLabel('Send test to').inputValue()).toBe(DEMO.admin.email)
    await form.getByRole('button', { name: 'Test mail server' }).click()
    const result = form.getByRole('status', { name: 'Test mail server: result' })
    await result.getByText('Test failed').waitFor()
    await result.getByText(/refused the user name or password/).waitFor()
    await result.getByText(/Check the user name and password/).waitFor()

    // The right password, saved; the test mail arrives.
    await form.getByLabel('Password').fill(smtp.password)
    await form.getByRole('button', { name: 'Save', exact: true }).click()
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()
    const testedAfter = Date.now()
    await form.getByRole('button', { name: 'Test mail server' }).click()
    await result.getByText('Test passed').waitFor()
    const mail = await smtp.waitFor((m) => m.to.includes(DEMO.admin.email) && m.receivedAt >= testedAfter)
    expect(mail.from).toBe(`portal-${suffix}@example.test`)
    // The result is the category's last test: it survives a reload.
    await page.reload()
    await expectScreen(page, 'Mail')
    await result.getByText('Test passed').waitFor()

    // A refused field keeps everything else typed; a typed secret must be typed again.
    await form.getByLabel('Sender name').fill(`Typed ${suffix}`)
    await form.getByLabel('Port').fill('70000')
    await form.getByLabel('Password').fill('typed-secret')
    await form.getByRole('button', { name: 'Save', exact: true }).click()
    // The browser refuses it first (the schema's maximum is on the input) …
    expect(await form.getByLabel('Port').evaluate((input: HTMLInputElement) => input.validity.rangeOverflow)).toBe(true)
    // … and the server does too, for a browser that does not check.
    await form.evaluate((element) => element.setAttribute('novalidate', ''))
    await form.getByRole('button', { name: 'Save', exact: true }).click()
    await form.getByText('Port is a whole number from 1 to 65,535.').waitFor()
    expect(await form.getByLabel('Port').getAttribute('aria-invalid')).toBe('true')
    expect(await form.getByLabel('Port').inputValue()).toBe('70000')
    expect(await form.getByLabel('Sender name').inputValue()).toBe(`Typed ${suffix}`)
    expect(await form.getByLabel('SMTP server').inputValue()).toBe(smtp.host)
    expect(await form.getByLabel('Password').inputValue()).toBe('')
    await form.getByText('type it again').waitFor()

    // Someone else saves between this page's load and its save.
    await page.goto('/admin/configuration/mail')
    await expectScreen(page, 'Mail')
    await form.getByLabel('Sender name').fill(`Mine ${suffix}`)
    const call = tabApi(page)
    const before = await call<ConfigCategoryValues>('GET', '/api/admin/config/mail')
    const theirs = await call<ConfigCategoryValues>('PUT', '/api/admin/config/mail', { values: { ...before.values, fromName: `Theirs ${suffix}` }, version: before.version })
    await form.getByRole('button', { name: 'Save', exact: true }).click()
    await page.getByText(`Someone else saved this category (version ${theirs.version}) while you edited version ${before.version}.`).waitFor()
    expect(await form.getByLabel('Sender name').inputValue()).toBe(`Mine ${suffix}`)
    await form.getByText(`Theirs ${suffix}`).waitFor()
    await form.getByRole('button', { name: 'Save my values over theirs' }).click()
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()
    expect(await form.getByLabel('Sender name').inputValue()).toBe(`Mine ${suffix}`)

    // Their version comes back with Restore, after a confirmation.
    const history = page.getByRole('list', { name: 'Saved versions' })
    const entry = history.getByRole('listitem').filter({ has: page.getByRole('heading', { name: `Version ${theirs.version}`, exact: true }) })
    await entry.getByText(`Theirs ${suffix}`).first().waitFor()
    await entry.getByText(`Restore version ${theirs.version}…`).click()
    await entry.getByRole('button', { name: `Yes, restore version ${theirs.version}` }).click()
    await page
      .getByRole('status')
      .filter({ hasText: `Version ${theirs.version} restored as version ${theirs.version + 2}.` })
      .waitFor()
    expect(await form.getByLabel('Sender name').inputValue()).toBe(`Theirs ${suffix}`)
    await expectScreen(page, 'Mail')

    // The overview says it is configured and tested.
    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Configuration' }).click()
    await expectScreen(page, 'Configuration')
    const mailRow = categories.getByRole('listitem').filter({ has: page.getByRole('link', { name: 'Mail', exact: true }) })
    await mailRow.getByText('Configured', { exact: true }).waitFor()
    await mailRow.getByText('Test passed', { exact: true }).waitFor()
    j.assertNoConsoleErrors()
  })
})
