import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, signInDemoAdmin, VARIANTS } from './steps'

/**
 * Email templates (docs/admin/email-templates.md): an administrator edits the invitation's
 * template (an unknown variable is refused beside its field, with the text kept), previews it,
 * sends a test, saves it, invites an address from /admin/invites and reads the mail it drove;
 * then resets it to the default. JavaScript on and off.
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
  test('an admin edits the invitation template, previews it, sends a test, saves it, and the invitation mail reads as edited', async () => {
    const suffix = randomBytes(3).toString('hex')
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j

    await page.goto('/admin/email-templates')
    await signInDemoAdmin(page)
    await expectScreen(page, 'Email templates')
    const row = page.getByRole('row', { name: /Invitation to the organisation/ })
    await row.getByText('Default', { exact: true }).waitFor()
    await row.getByRole('link', { name: 'Invitation to the organisation' }).click()
    await expectScreen(page, 'Invitation to the organisation')

    const form = page.getByRole('form', { name: 'Edit the template' })
    const subject = `Join us at {{organisationName}} ${suffix}`
    await form.getByLabel('Subject').fill(subject)
    await form.getByLabel('HTML body').fill(`<p>Hello from ${suffix}: <strong>{{inviterName}}</strong> invites you.</p>\n<p><a href="{{acceptUrl}}">Accept</a></p>`)
    // An unknown variable: refused beside its field, and everything typed stays.
    await form.getByLabel('Text body').fill(`Hello {{firstName}} from ${suffix}.`)
    await form.getByRole('button', { name: 'Save template' }).click()
    await form.getByText('Unknown variable {{firstName}} in the text body.', { exact: false }).waitFor()
    expect(await form.getByLabel('Subject').inputValue()).toBe(subject)

    await form.getByLabel('Text body').fill(`Hello from ${suffix}. {{inviterName}} invites you as {{roleName}}.\n\nAccept: {{acceptUrl}}\n`)
    await form.getByRole('button', { name: 'Preview' }).click()
    await page.getByTestId('preview-subject').getByText(`Join us at ${DEMO.tenant.name} ${suffix}`).waitFor()
    await page.getByText(`Hello from ${suffix}. Sam Taylor invites you as Member.`).waitFor()
    const frame = page.frameLocator('iframe[title="HTML preview of the mail"]')
    await frame.getByText(`Hello from ${suffix}:`).waitFor()
    await frame.getByRole('link', { name: 'Accept' }).waitFor()
    expect(await form.getByLabel('Subject').inputValue()).toBe(subject)

    const tester = `tester.${suffix}@example.com`
    await form.getByLabel('Send the test to').fill(tester)
    await form.getByRole('button', { name: 'Send test' }).click()
    await page.getByText('Test mail sent').waitFor()
    const test = await portal.mailTo(tester)
    expect(test.subject).toBe(`[Test] Join us at ${DEMO.tenant.name} ${suffix}`)

    await form.getByRole('button', { name: 'Save template' }).click()
    await page.getByText('“Invitation to the organisation” saved.', { exact: false }).waitFor()
    await page.getByText('Customised', { exact: true }).waitFor()
    await expectScreen(page, 'Invitation to the organisation')

    // The mail it drives: an invitation from /admin/invites.
    const email = `invitee.${suffix}@example.com`
    await page.goto('/admin/invites')
    await expectScreen(page, 'Invites')
    const invite = page.locator('form#invite-create')
    await invite.getByLabel('E-mail address').fill(email)
    await invite.getByLabel('Role').selectOption({ label: 'Read & Write' })
    await invite.getByRole('button', { name: 'Send invitation' }).click()
    await page.getByText(`Invitation sent to ${email}.`).waitFor()
    const mail = await portal.mailTo(email)
    expect(mail.subject).toBe(`Join us at ${DEMO.tenant.name} ${suffix}`)
    expect(mail.text).toContain(`Hello from ${suffix}. ${DEMO.admin.displayName} invites you as Read & Write.`)
    expect(mail.text).toMatch(/Accept: https?:\/\/\S+\/invite\/[A-Za-z0-9_-]+/)

    // Back to the default, after a confirmation.
    await page.goto('/admin/email-templates/invite')
    await page.getByText('Reset to default…').click()
    await page.getByRole('button', { name: 'Yes, reset to default' }).click()
    await page.getByText('“Invitation to the organisation” is back to the default.').waitFor()
    expect(await page.getByRole('form', { name: 'Edit the template' }).getByLabel('Subject').inputValue()).toBe(
      '{{inviterName}} invited you to {{organisationName}} on {{siteName}}',
    )
    j.assertNoConsoleErrors()
  })
})
