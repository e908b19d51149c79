import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import { launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, JOURNEY_VARIANTS, newRegisteredPerson, signIn } from './steps'

/** Settings › Notifications (docs/settings-appearance-notifications.md): choices saved and shown again, JavaScript on and off. */

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

describe.each(JOURNEY_VARIANTS)('$name', ({ javaScript, viewport }) => {
  test('a member switches mails off, chooses the daily digest, and finds their choices again', async () => {
    const person = await newRegisteredPerson(portal, 'Notifications')
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j

    await page.goto('/settings/notifications')
    await signIn(page, person.email, person.password)
    await expectScreen(page, 'Settings')
    const mail = page.getByRole('group', { name: 'Email me when' })
    const inApp = page.getByRole('group', { name: 'Show in the app when' })
    const assigned = mail.getByLabel('An item is assigned to me')
    const transmittal = mail.getByLabel('A transmittal is sent to me')
    const digest = page.getByRole('group', { name: 'Digest of my open items' })
    expect(await assigned.isChecked()).toBe(true)
    expect(await digest.getByLabel('Off').isChecked()).toBe(true)

    await assigned.uncheck()
    await transmittal.uncheck()
    await inApp.getByLabel('A document I received is superseded').uncheck()
    await digest.getByLabel('Daily').check()
    await page.getByRole('button', { name: 'Save notification settings' }).click()
    await page.getByText('Notification settings saved.').waitFor()

    await page.reload()
    await expectScreen(page, 'Settings')
    const mailAgain = page.getByRole('group', { name: 'Email me when' })
    const inAppAgain = page.getByRole('group', { name: 'Show in the app when' })
    expect(await mailAgain.getByLabel('An item is assigned to me').isChecked()).toBe(false)
    expect(await mailAgain.getByLabel('A transmittal is sent to me').isChecked()).toBe(false)
    expect(await mailAgain.getByLabel('Someone responds on my items').isChecked()).toBe(true)
    expect(await mailAgain.getByLabel('A document review is waiting for me').isChecked()).toBe(true)
    // The in-app choices are their own: the mail ones switched off above stay on in the app.
    expect(await inAppAgain.getByLabel('An item is assigned to me').isChecked()).toBe(true)
    expect(await inAppAgain.getByLabel('A document I received is superseded').isChecked()).toBe(false)
    expect(await page.getByRole('group', { name: 'Digest of my open items' }).getByLabel('Daily').isChecked()).toBe(true)
    const saved = await person.api.call<Record<string, unknown>>('GET', '/api/user/notification-preferences/')
    expect(saved).toEqual({
      assigned: false,
      response: true,
      closeRequested: true,
      reviewTask: true,
      transmittal: false,
      digest: 'daily',
      inApp: { assigned: true, closeRequested: true, reviewTask: true, transmittal: true, superseded: false },
    })
    j.assertNoConsoleErrors()
  })
})
