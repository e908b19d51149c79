import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { currentTotp } from '#server/domain/auth/totp'
import { launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, newRegisteredPerson, signIn, signInDemoAdmin, VARIANTS } from './steps'

/**
 * Settings › User, Site and Admin (docs/settings.md): a person changes their name, signs out their
 * other sessions, changes their e-mail address through the mailed link, and turns two-factor
 * authentication on and off; an administrator edits the site settings and a member only reads
 * them; the admin tab's switches. JavaScript on and off.
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

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64')

/** The code an authenticator shows `steps` periods from now (the server accepts one step of drift, and each step once). */
function codeAt(secret: string, steps: number): Promise<string> {
  return currentTotp(secret, new Date((Math.floor(Date.now() / 30_000) + steps) * 30_000))
}

/**
 * The flash at the top of the page, then the rest of it: without JavaScript the page after a save
 * is still arriving when its first lines show, and a select read then holds the first of its options
 * parsed so far (the time zone read "UTC", its first option, on a busy machine).
 */
async function flash(page: Page, text: string | RegExp): Promise<void> {
  await page.getByText(text).first().waitFor()
  await page.waitForLoadState('load')
}

describe.each([VARIANTS[0], VARIANTS[1]])('$name', ({ javaScript, viewport }) => {
  test('a person renames themselves, signs out their other session, changes their e-mail through the link, and turns two-factor on and off', async () => {
    const person = await newRegisteredPerson(portal, 'Settler')
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j
    await page.goto('/settings/user')
    await signIn(page, person.email, person.password)
    await expectScreen(page, 'Settings')

    // Details: an error next to the field keeps what was typed; then saved.
    const account = page.getByRole('region', { name: 'Your account' })
    // Only spaces: the browser's own checks let it through, the schema does not.
    await account.getByLabel('Position').fill('Site lead')
    await account.getByLabel('Display name').fill('   ')
    await account.getByRole('button', { name: 'Save details' }).click()
    await account.getByText('Enter the name others see.').waitFor()
    expect(await page.getByRole('region', { name: 'Your account' }).getByLabel('Position').inputValue()).toBe('Site lead')
    await account.getByLabel('Display name').fill('Robin Settler')
    await account.getByLabel('First name').fill('Robin')
    await account.getByLabel('Position').fill('Site manager')
    await account.getByRole('button', { name: 'Save details' }).click()
    await flash(page, 'Your details are saved.')
    expect(await page.getByRole('region', { name: 'Your account' }).getByLabel('Position').inputValue()).toBe('Site manager')
    await page.getByText('Robin Settler').first().waitFor()

    // A second browser is signed in too; signing out the others ends it.
    const other = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => other.close())
    await other.page.goto('/settings/user')
    await signIn(other.page, person.email, person.password)
    await expectScreen(other.page, 'Settings')
    await page.reload()
    const sessions = page.getByRole('region', { name: 'Sessions and devices' })
    await sessions.getByText('This session').waitFor()
    // This browser, the other one, and the API sign-in that registered the person.
    expect(await sessions.getByRole('listitem').count()).toBe(3)
    await sessions.getByText('Sign out other sessions').click()
    await sessions.getByRole('button', { name: 'Yes, sign them out' }).click()
    await flash(page, 'Signed out 2 other sessions.')
    await other.page.reload()
    await expectScreen(other.page, 'Sign in')

    // E-mail: a wrong password is an error on its field; then the link goes to the new address.
    const newEmail = person.email.replace('@', '+moved@')
    const email = page.getByRole('region', { name: 'E-mail address' })
    await email.getByLabel('New e-mail address').fill(newEmail)
    await email.getByLabel('Current password').fill('not my password')
    await email.getByRole('button', { name: 'Change e-mail address' }).click()
    await page.getByRole('region', { name: 'E-mail address' }).getByText('The current password is not correct.').waitFor()
    expect(await page.getByRole('region', { name: 'E-mail address' }).getByLabel('New e-mail address').inputValue()).toBe(newEmail)
    await page.getByRole('region', { name: 'E-mail address' }).getByLabel('Current password').fill(person.password)
    await page.getByRole('region', { name: 'E-mail address' }).getByRole('button', { name: 'Change e-mail address' }).click()
    await flash(page, `We sent a link to ${newEmail}. Follow it to finish changing your e-mail address.`)
    await page.getByRole('region', { name: 'E-mail address' }).getByText('follow it to finish').waitFor()
    const mail = await portal.mailTo(newEmail)
    const link = /https?:\/\/\S+\/auth\/confirm-email\?token=[\w-]+/.exec(mail.text)?.[0]
    expect(link, mail.text).toBeTruthy()
    await page.goto(link ?? '')
    await page.getByRole('button', { name: 'Confirm e-mail address' }).click()
    await expectScreen(page, 'E-mail address changed')
    // The same link again says it was used.
    await page.goto(link ?? '')
    await page.getByRole('button', { name: 'Confirm e-mail address' }).click()
    await page.getByText('This link has already been used').waitFor()
    await page.goto('/settings/user')
    await page.getByRole('region', { name: 'E-mail address' }).getByText(newEmail).first().waitFor()

    // Two-factor: set up with the key shown, a wrong code is an error, the right one turns it on.
    const mfa = () => page.getByRole('region', { name: 'Two-factor authentication' })
    await mfa().getByRole('button', { name: 'Set up two-factor authentication' }).click()
    const secret = (await mfa().getByTestId('mfa-secret').textContent())?.trim() ?? ''
    expect(secret).toMatch(/^[A-Z2-7]+$/)
    await mfa()
      .getByText(/^otpauth:\/\/totp\//)
      .waitFor()
    await mfa()
      .getByLabel('Code from the app')
      .fill('000000' === (await codeAt(secret, 0)) ? '111111' : '000000')
    await mfa().getByRole('button', { name: 'Turn on two-factor authentication' }).click()
    await mfa()
      .getByText(/The code is not correct/)
      .waitFor()
    expect(await mfa().getByTestId('mfa-secret').textContent()).toBe(secret)
    await mfa()
      .getByLabel('Code from the app')
      .fill(await codeAt(secret, 0))
    await mfa().getByRole('button', { name: 'Turn on two-factor authentication' }).click()
    await flash(page, 'Two-factor authentication is on.')
    await mfa().getByText('On', { exact: true }).waitFor()

    // Off again with the next code (each code works once).
    await mfa()
      .getByLabel('Current code')
      .fill(await codeAt(secret, 1))
    await mfa().getByRole('button', { name: 'Turn off two-factor authentication' }).click()
    await flash(page, 'Two-factor authentication is off.')
    await mfa().getByRole('button', { name: 'Set up two-factor authentication' }).waitFor()
    j.assertNoConsoleErrors()
  })

  test('an administrator edits the site settings and its logo; a member only reads them', async () => {
    const person = await newRegisteredPerson(portal, 'Sitewise')
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j
    await page.goto('/settings/site')
    await signIn(page, person.email, person.password)
    await expectScreen(page, 'Settings')

    const site = () => page.getByRole('region', { name: 'Organisation' })
    // A short name another organisation uses is an error next to the field; what was typed stays.
    await site().getByLabel('Name', { exact: true }).fill('Sitewise Renamed')
    await site().getByLabel('Short name').fill(DEMO.otherTenant.slug)
    await site().getByRole('button', { name: 'Save site settings' }).click()
    await site().getByText('Another organisation already uses this short name. Choose another.').waitFor()
    expect(await site().getByLabel('Name', { exact: true }).inputValue()).toBe('Sitewise Renamed')

    const slug = `sitewise-${randomBytes(3).toString('hex')}`
    await site().getByLabel('Short name').fill(slug)
    await site().getByLabel('Time zone').selectOption('Europe/London')
    await site().getByLabel('Friday').uncheck()
    await site().getByLabel('Saturday').check()
    await site().getByRole('button', { name: 'Save site settings' }).click()
    await flash(page, 'The site settings are saved.')
    expect(await site().getByLabel('Short name').inputValue()).toBe(slug)
    expect(await site().getByLabel('Time zone').inputValue()).toBe('Europe/London')
    expect(await site().getByLabel('Friday').isChecked()).toBe(false)
    expect(await site().getByLabel('Saturday').isChecked()).toBe(true)

    const logo = page.getByRole('region', { name: 'Logo' })
    await logo.getByLabel('Upload a logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: PNG })
    await logo.getByRole('button', { name: 'Upload logo' }).click()
    await flash(page, 'The logo is saved.')
    await page.getByRole('img', { name: 'Sitewise Renamed logo' }).waitFor()
    await page.getByRole('region', { name: 'Logo' }).getByText('Remove logo…').click()
    await page.getByRole('region', { name: 'Logo' }).getByRole('button', { name: 'Yes, remove logo' }).click()
    await flash(page, 'The logo is removed.')
    j.assertNoConsoleErrors()

    // A member of the demo organisation reads its settings and cannot change them.
    const member = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => member.close())
    await member.page.goto('/settings/site')
    await signIn(member.page, DEMO.user.email, DEMO.user.password)
    await expectScreen(member.page, 'Settings')
    const view = member.page.getByRole('region', { name: 'Organisation' })
    await view.getByText('Only administrators of the organisation can change these.').waitFor()
    await view.getByText(DEMO.tenant.name).waitFor()
    await view.getByText('Monday, Tuesday, Wednesday, Thursday, Friday').waitFor()
    expect(await member.page.getByRole('button', { name: 'Save site settings' }).count()).toBe(0)
    // The admin tab is not offered, and its address is refused.
    expect(await member.page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Admin' }).count()).toBe(0)
    await member.page.goto('/settings/admin')
    await expectScreen(member.page, 'Access denied')
  })

  test('an administrator changes the organisation-wide switches', async () => {
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j
    await page.goto('/settings/admin')
    await signInDemoAdmin(page)
    await expectScreen(page, 'Settings')
    const telemetry = page.getByLabel('Collect usage telemetry')
    const wasOn = await telemetry.isChecked()
    await (wasOn ? telemetry.uncheck() : telemetry.check())
    await page.getByRole('button', { name: 'Save organisation defaults' }).click()
    await flash(page, 'The organisation defaults are saved.')
    expect(await page.getByLabel('Collect usage telemetry').isChecked()).toBe(!wasOn)
    expect(await page.getByLabel('Refuse invitations when every seat is taken').isChecked()).toBe(true)
    j.assertNoConsoleErrors()
  })
})
