import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { checkAccessibility, launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, newRegisteredPerson, pathOf, signIn, VARIANTS } from './steps'

/**
 * Settings › Billing with the built-in test provider (docs/billing.md): an administrator buys seats
 * of the Team plan, pays on the provider's page and comes back to the success page with the
 * licence updated; a cancelled checkout comes back to the cancel page and changes nothing.
 * JavaScript on and off (the provider's page has no script either way).
 */

let portal: Portal
let browser: Browser

beforeAll(async () => {
  portal = await startPortal({ env: { BILLING_PROVIDER: 'test' } })
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await portal?.stop()
})

async function chooseAndContinue(page: Page, plan: 'Team' | 'Business', seats: number): Promise<void> {
  await page.getByRole('group', { name: 'Plan' }).getByLabel(plan).check()
  await page.getByLabel('Seats', { exact: true }).fill(String(seats))
  await page.getByRole('button', { name: 'Continue to payment' }).click()
  await page.getByRole('heading', { level: 1, name: 'Test payment provider' }).waitFor()
  await checkAccessibility(page)
}

/** The seats line every seat screen shows (app/lib/licensing/seats.ts), for a one-member organisation with the limit enforced. */
function seatsLine(total: number, plan: string): string {
  return `${total} seats on the ${plan} plan: 1 used, 0 reserved by invites, ${total - 1} free. The seat limit is enforced: invites stop when no seat is free.`
}

describe.each([VARIANTS[0], VARIANTS[1]])('$name', ({ javaScript, viewport }) => {
  test('an administrator buys 3 Team seats on the test provider and sees the licence updated; a cancelled checkout changes nothing', async () => {
    const person = await newRegisteredPerson(portal, 'Billing')
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j

    await page.goto('/settings/billing')
    await signIn(page, person.email, person.password)
    await expectScreen(page, 'Settings')
    const licence = page.getByRole('definition')
    await page.getByRole('heading', { name: 'Your licence' }).waitFor()
    expect(await licence.allInnerTexts()).toEqual(expect.arrayContaining(['Free', seatsLine(10, 'Free')]))

    await chooseAndContinue(page, 'Team', 3)
    expect(await page.getByRole('definition').allInnerTexts()).toEqual(expect.arrayContaining(['Team', '3', '€36.00 a month']))
    await page.getByRole('button', { name: 'Pay' }).click()

    await page.getByRole('heading', { level: 2, name: 'Payment received' }).waitFor()
    expect(pathOf(page)).toMatch(/^\/settings\/billing\/success\?checkoutId=/)
    await expectScreen(page, 'Settings')
    await page.getByText('Thank you — your payment was received. Your licence updates as soon as the payment provider confirms it.').waitFor()
    await page.getByText('The payment provider confirmed your payment.').waitFor()
    expect(await page.getByRole('definition').allInnerTexts()).toEqual(expect.arrayContaining(['Team', seatsLine(3, 'Team'), 'Active', 'Web checkout']))

    await page.getByRole('link', { name: 'Back to billing' }).click()
    await page.getByRole('heading', { level: 2, name: 'Billing' }).waitFor()
    await chooseAndContinue(page, 'Business', 2)
    await page.getByRole('button', { name: 'Cancel' }).click()
    await page.getByText('Checkout cancelled. Nothing was charged.').waitFor()
    expect(pathOf(page)).toMatch(/^\/settings\/billing\/cancel\?checkoutId=/)
    await expectScreen(page, 'Settings')
    await page.getByRole('link', { name: 'Back to billing' }).click()
    await page.getByRole('heading', { level: 2, name: 'Billing' }).waitFor()
    expect(await page.getByRole('definition').allInnerTexts()).toEqual(expect.arrayContaining(['Team', seatsLine(3, 'Team')]))
    j.assertNoConsoleErrors()
  })
})
