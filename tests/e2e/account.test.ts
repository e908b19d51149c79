import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, JOURNEY_VARIANTS, pathOf, signIn } from './steps'

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

function linkIn(text: string, path: string): string {
  const match = new RegExp(`https?://[^\\s]+${path.replace(/\//g, '\\/')}\\?token=[A-Za-z0-9_-]+`).exec(text)
  if (!match) throw new Error(`No ${path} link in:\n${text}`)
  return match[0]
}

describe.each(JOURNEY_VARIANTS)('$name', ({ javaScript, viewport }) => {
  async function journey() {
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    return j
  }

  test('registration: form errors keep the input, the e-mailed link verifies the address, then sign-in works', async () => {
    const { page, assertNoConsoleErrors } = await journey()
    const email = `new.${randomBytes(4).toString('hex')}@example.com`
    const password = 'a long enough passphrase'
    await page.goto('/auth/login')
    await page.getByRole('link', { name: 'Create an account' }).click()
    await expectScreen(page, 'Create an account')

    await page.getByLabel('Your name').fill('Robin Register')
    await page.getByLabel('E-mail address').fill(email)
    await page.getByLabel('Password').fill('short')
    await page.getByLabel('Organisation name').fill('Register & Sons')
    if (javaScript) {
      await page.getByRole('button', { name: 'Create account' }).click()
    } else {
      // Without script the browser's own validation stops a too-short password; check the server's too.
      await page.locator('form').evaluate((form) => form.setAttribute('novalidate', ''))
      await page.getByRole('button', { name: 'Create account' }).click()
    }
    await page.getByText('Use at least 8 characters.').waitFor()
    expect(await page.getByLabel('Your name').inputValue()).toBe('Robin Register')
    expect(await page.getByLabel('Organisation name').inputValue()).toBe('Register & Sons')

    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Create account' }).click()
    await expectScreen(page, 'Check your e-mail')
    await page.getByText(`We sent a verification link to ${email}.`, { exact: false }).waitFor()

    const mail = await portal.mailTo(email)
    expect(mail.subject).toBe('Verify your e-mail address for Site Portal')
    await page.goto(linkIn(mail.text, '/auth/verify-email').replace(/^https?:\/\/[^/]+/, ''))
    await expectScreen(page, 'Verify your e-mail address')
    await page.getByRole('button', { name: 'Verify e-mail address' }).click()
    await expectScreen(page, 'Sign in')
    await page.getByText('Your e-mail address is verified. You can sign in now.').waitFor()

    await signIn(page, email, password)
    await expectScreen(page, 'Dashboard')
    await page.getByText('Register & Sons').waitFor()
    assertNoConsoleErrors()
  })

  test('password reset: the e-mailed link sets a new password, the old one stops working', async () => {
    const { page, assertNoConsoleErrors } = await journey()
    const requestedAt = Date.now()
    const newPassword = `reset ${randomBytes(6).toString('hex')}`
    await page.goto('/auth/login')
    await page.getByRole('link', { name: 'Forgot your password?' }).click()
    await expectScreen(page, 'Reset your password')
    await page.getByLabel('E-mail address').fill(DEMO.otherUser.email)
    await page.getByRole('button', { name: 'Send reset link' }).click()
    await page.getByText(`If ${DEMO.otherUser.email} has an account, we sent it a link`, { exact: false }).waitFor()

    const mail = await portal.mailTo(DEMO.otherUser.email, { after: requestedAt - 1000 })
    expect(mail.subject).toBe('Reset your Site Portal password')
    await page.goto(linkIn(mail.text, '/auth/forgot-password').replace(/^https?:\/\/[^/]+/, ''))
    await expectScreen(page, 'Choose a new password')
    await page.getByLabel('New password').fill(newPassword)
    await page.getByRole('button', { name: 'Set new password' }).click()
    await expectScreen(page, 'Sign in')
    await page.getByText('Your password has been changed. Sign in with your new password.').waitFor()

    await signIn(page, DEMO.otherUser.email, DEMO.otherUser.password)
    await page.getByText('The e-mail address or password is incorrect.').waitFor()
    await page.getByLabel('Password').fill(newPassword)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expectScreen(page, 'Dashboard')
    expect(pathOf(page)).toBe('/dashboard')
    await page.getByText(DEMO.otherTenant.name).waitFor()
    assertNoConsoleErrors()
  })
})
