import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser, Locator, Page } from 'playwright-core'
import { startSmtpServer, type TestSmtpServer } from '#tests/helpers/smtp'
import { checkAccessibility, launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, signInDemoAdmin, VARIANTS } from './steps'

/**
 * Administration › Mail outbox (docs/admin/mail.md): the portal sends through a real SMTP server
 * in this process (SMTP_URL). While it refuses the password, an admin sees the failing transport
 * and the queued messages with their last error, filters by recipient, reads a message, cancels
 * one; once the server accepts again, sends the other again and sees it sent. JavaScript on and off.
 */

let portal: Portal
let browser: Browser
let smtp: TestSmtpServer

beforeAll(async () => {
  smtp = await startSmtpServer()
  portal = await startPortal({
    env: { SMTP_URL: `smtp://${smtp.user}:${smtp.password}@${smtp.host}:${smtp.port}`, MAIL_FROM: 'Site Portal <no-reply@portal.test>' },
  })
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await portal?.stop()
  await smtp?.close()
})

/** Reloads until the locator shows: the worker runs every second, and nothing it does is pushed to the page. */
async function reloadUntil(page: Page, locator: Locator): Promise<void> {
  const deadline = Date.now() + 20_000
  for (;;) {
    if (await locator.isVisible()) return
    if (Date.now() > deadline) throw new Error(`Still not shown after reloading for 20 s: ${locator.toString()}`)
    await new Promise((resolve) => setTimeout(resolve, 500))
    await page.reload()
  }
}

async function invite(page: Page, email: string): Promise<void> {
  await page.goto('/admin/invites')
  await expectScreen(page, 'Invites')
  const form = page.locator('form#invite-create')
  await form.getByLabel('E-mail address').fill(email)
  await form.getByLabel('Role').selectOption({ label: 'Read & Write' })
  await form.getByRole('button', { name: 'Send invitation' }).click()
  await page.getByText(`Invitation sent to ${email}.`).waitFor()
}

describe.each([VARIANTS[0], VARIANTS[1], VARIANTS[2]])('$name', ({ javaScript, viewport }) => {
  test('a refused password shows on the outbox; the admin filters, reads and cancels one message, then sends the other again once the server accepts', async () => {
    smtp.setMode('refuse-auth')
    const suffix = randomBytes(4).toString('hex')
    const kept = `kept.${suffix}@example.com`
    const dropped = `dropped.${suffix}@example.com`
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j

    await page.goto('/admin/mail-outbox')
    await signInDemoAdmin(page)
    await expectScreen(page, 'Mail outbox')
    await invite(page, kept)
    await invite(page, dropped)

    // The worker tried both and the server refused the password: the transport says so.
    await page.goto(`/admin/mail-outbox?to=${encodeURIComponent(suffix)}`)
    await expectScreen(page, 'Mail outbox')
    const transport = page.getByRole('listitem').filter({ hasText: 'This server’s SMTP server' })
    // Both tried once (the attempts column) and queued again, and the transport failing. A message
    // counts its attempt when the worker takes it (Sending), before the server refuses; the
    // transport's failure is written just after the message is queued again.
    const triedOnce = (address: string) =>
      page
        .getByRole('row', { name: new RegExp(address) })
        .filter({ has: page.getByRole('cell', { name: '1', exact: true }) })
        .filter({ hasText: 'Queued' })
    await reloadUntil(page, triedOnce(dropped))
    await reloadUntil(page, triedOnce(kept))
    await reloadUntil(page, transport.getByText(/^Failing: \d+ in a row$/))
    await transport.getByText(/Last error: The SMTP server refused the user name or password \(535/).waitFor()
    await checkAccessibility(page)

    // Filter by one recipient: the other is not listed.
    const filters = page.getByRole('form', { name: 'Filter messages' })
    await filters.getByLabel('Recipient').fill(dropped)
    await filters.getByLabel('Status').selectOption('queued')
    await filters.getByRole('button', { name: 'Show messages' }).click()
    await page.waitForURL(/status=queued/)
    await page.getByRole('row', { name: new RegExp(dropped) }).waitFor()
    // With script the address changes a moment before the list does: the other row goes once it has.
    await expect.poll(() => page.getByRole('row', { name: new RegExp(kept) }).count()).toBe(0)

    // Read it, and cancel it after confirming.
    await page
      .getByRole('row', { name: new RegExp(dropped) })
      .getByRole('link')
      .click()
    await page.getByText(`To ${dropped}`, { exact: true }).waitFor()
    await expectScreen(page, /./)
    await page
      .getByRole('region', { name: 'Plain text' })
      .getByText(/\/invite\//)
      .waitFor()
    const html = page.getByRole('region', { name: 'HTML' })
    if ((await html.locator('iframe').count()) > 0) {
      // Served into the sandboxed frame: its link (the invitation) shows.
      await page.frameLocator('iframe[title="The message’s HTML part"]').getByRole('link').first().waitFor()
    } else {
      await html.getByText('This message has no HTML part; it was sent as plain text only.').waitFor()
    }
    await page.getByText('Queued', { exact: true }).waitFor()
    await page.getByText('Cancel message…').click()
    await page.getByRole('button', { name: 'Yes, cancel message' }).click()
    await page.getByText(`The message to ${dropped} is cancelled: it will not be sent.`).waitFor()
    await page.getByText('Cancelled', { exact: true }).first().waitFor()
    expect(await page.getByRole('button', { name: 'Send again now' }).count()).toBe(0)

    // The server accepts again: the other message, sent again now, arrives.
    smtp.setMode('ok')
    await page.goto(`/admin/mail-outbox?to=${encodeURIComponent(kept)}`)
    await page
      .getByRole('row', { name: new RegExp(kept) })
      .getByRole('link')
      .click()
    await page.getByText(`To ${kept}`, { exact: true }).waitFor()
    await page.getByRole('button', { name: 'Send again now' }).click()
    await page.getByText(`The message to ${kept} is queued and goes out at the next delivery pass.`).waitFor()
    const arrived = await smtp.waitFor((m) => m.to.includes(kept), 20_000)
    expect(arrived.text).toMatch(/\/invite\//)
    await reloadUntil(page, page.getByText('Sent', { exact: true }).first())
    await checkAccessibility(page)
    expect(smtp.messages.some((m) => m.to.includes(dropped))).toBe(false)
    j.assertNoConsoleErrors()
  })
})
