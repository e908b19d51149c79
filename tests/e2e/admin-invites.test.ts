import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, signInDemoAdmin, VARIANTS } from './steps'

/**
 * Invites (docs/admin/invites.md): an administrator invites an address; the invitee opens the
 * mailed link in another browser, creates their account there and lands signed in in the
 * organisation; the administrator then sees the invitation accepted. JavaScript on and off.
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
  test('an admin invites an address; in a second browser the invitee registers from the link and lands in the organisation; the invite shows accepted', async () => {
    const email = `invitee.${randomBytes(4).toString('hex')}@example.com`
    const admin = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => admin.close())

    await admin.page.goto('/admin/invites')
    await signInDemoAdmin(admin.page)
    await expectScreen(admin.page, 'Invites')

    // A wrong address is refused beside its field and what was typed stays.
    const form = admin.page.locator('form#invite-create')
    await form.getByLabel('E-mail address').fill('not-an-address')
    await form.getByLabel('Role').selectOption({ label: 'Read & Write' })
    await form.getByLabel('Message (optional)').fill('Welcome to the site team')
    // Past the browser's own check, so the server's (without script) or the form's (with it) answers.
    await form.getByLabel('E-mail address').evaluate((input: HTMLInputElement) => input.form?.setAttribute('novalidate', ''))
    await form.getByRole('button', { name: 'Send invitation' }).click()
    await form.getByText('Enter an e-mail address like name@example.com.').waitFor()
    expect(await form.getByLabel('Message (optional)').inputValue()).toBe('Welcome to the site team')
    await form.getByLabel('E-mail address').fill(email)
    await form.getByRole('button', { name: 'Send invitation' }).click()
    await admin.page.getByText(`Invitation sent to ${email}.`).waitFor()
    await admin.page.getByRole('cell', { name: email }).waitFor()

    // The mailed link, opened in a second browser with nobody signed in.
    const mail = await portal.mailTo(email)
    const link = /https?:\/\/\S+(\/invite\/[A-Za-z0-9_-]+)/.exec(mail.text)?.[1]
    expect(link, mail.text).toBeDefined()
    const invitee = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => invitee.close())
    await invitee.page.goto(link ?? '/')
    await expectScreen(invitee.page, 'You are invited')
    await invitee.page.getByText(`${DEMO.admin.displayName} invites you to join`).waitFor()
    await invitee.page.getByText('Welcome to the site team').waitFor()
    await invitee.page.getByRole('link', { name: 'Sign in to accept' }).waitFor()
    await invitee.page.getByLabel('Your name').fill('Nia Newcomer')
    await invitee.page.getByLabel('Password').fill('a long enough passphrase')
    await invitee.page.getByRole('button', { name: 'Create account and join' }).click()
    await expectScreen(invitee.page, 'Dashboard')
    await invitee.page.getByText(`Welcome to ${DEMO.tenant.name}. Your account is ready.`).waitFor()
    await invitee.page.getByText(`${DEMO.tenant.name} · welcome, Nia Newcomer.`).waitFor()

    // The link is used now: it says so.
    await invitee.page.goto(link ?? '/')
    await expectScreen(invitee.page, 'This invitation cannot be used')
    await invitee.page.getByText('This invitation has been accepted already.', { exact: false }).waitFor()

    // The administrator sees it accepted.
    await admin.page.getByRole('navigation', { name: 'Filter invites by status' }).getByRole('link', { name: 'Accepted' }).click()
    await admin.page.waitForURL(/status=accepted/)
    const row = admin.page.getByRole('row').filter({ hasText: email })
    await row.getByText('Accepted', { exact: true }).waitFor()
    await expectScreen(admin.page, 'Invites')

    // A project invite: its code is shown once; the new member types it on /join (a wrong one first).
    const picker = admin.page.getByRole('form', { name: 'Choose a project' })
    await picker.getByLabel('Project').selectOption({ index: 1 })
    await picker.getByRole('button', { name: 'Open project' }).click()
    const projectForm = admin.page.locator('form#project-invite-create')
    await projectForm.getByLabel('Role for people who are not members yet').selectOption({ label: 'Read Only' })
    await projectForm.getByRole('button', { name: 'Make link and code' }).click()
    const code = (await admin.page.getByTestId('project-invite-code').innerText()).trim()
    expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/)
    await expectScreen(admin.page, 'Invites')

    await invitee.page.goto('/join')
    await expectScreen(invitee.page, 'Join')
    await invitee.page.getByRole('textbox', { name: 'Invite code' }).fill('zzzz-zzzz')
    await invitee.page.getByRole('button', { name: 'Use code' }).click()
    await invitee.page.getByText('This invite code does not work.', { exact: false }).first().waitFor()
    expect(await invitee.page.getByRole('textbox', { name: 'Invite code' }).inputValue()).toBe('zzzz-zzzz')
    await invitee.page.getByRole('textbox', { name: 'Invite code' }).fill(code.toLowerCase())
    await invitee.page.getByRole('button', { name: 'Use code' }).click()
    await expectScreen(invitee.page, 'Dashboard')
    await invitee.page.getByText('You now have the project', { exact: false }).waitFor()
  })
})
