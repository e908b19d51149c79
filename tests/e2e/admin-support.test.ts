import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, signIn, signInDemoAdmin, VARIANTS } from './steps'

/**
 * Support tickets (docs/admin/support.md "Screens"), JavaScript on and off: a member opens a
 * ticket from Settings with a file attached, an administrator finds it in Administration › Support,
 * assigns it and replies, and the member reads the reply.
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
  test('a member opens a ticket with an attachment; the admin assigns and replies; the member sees the reply', async () => {
    const subject = `Export stuck ${randomBytes(3).toString('hex')}`
    const reply = `Fixed it for you (${javaScript ? 'with' : 'without'} script).`

    const member = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => member.close())
    const user = member.page
    await user.goto('/settings/support')
    await signIn(user, DEMO.user.email, DEMO.user.password)
    await expectScreen(user, 'Settings')
    await user.getByRole('heading', { name: 'New ticket' }).waitFor()
    await user.getByLabel('Subject').fill(subject)
    await user.getByLabel('What do you need help with?').fill('The weekly report export never finishes.')
    await user.getByLabel('Attachment').setInputFiles({ name: 'export-log.txt', mimeType: 'text/plain', buffer: Buffer.from('export started\nexport timed out\n') })
    await user.getByRole('button', { name: 'Open ticket' }).click()
    await user.getByRole('heading', { level: 2, name: subject }).waitFor()
    await user.getByText(/Ticket #\d+ is open/).waitFor()
    await user.getByRole('link', { name: 'export-log.txt' }).waitFor()
    await expectScreen(user, 'Settings')
    const ticketPath = new URL(user.url()).pathname
    expect(ticketPath).toMatch(/^\/settings\/support\/[0-9a-f-]{36}$/)
    const ticketId = ticketPath.split('/').pop() ?? ''

    const admin = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => admin.close())
    const page = admin.page
    await page.goto('/admin/support')
    await signInDemoAdmin(page)
    await expectScreen(page, 'Support tickets')
    // Filters live in the URL.
    const filters = page.getByRole('search', { name: 'Filter tickets' })
    await filters.getByLabel('Assignee').selectOption({ label: 'Nobody (unassigned)' })
    await filters.getByLabel('Search').fill(subject)
    await filters.getByRole('button', { name: 'Filter' }).click()
    await page.waitForURL(/assigneeId=none/)
    await page.getByRole('link', { name: subject }).click()
    await expectScreen(page, new RegExp(subject))
    await page.getByRole('link', { name: 'export-log.txt' }).waitFor()
    expect(await page.getByRole('link', { name: 'export-log.txt' }).getAttribute('href')).toMatch(new RegExp(`^/api/support/tickets/${ticketId}/attachments/`))

    await page.getByLabel('Assignee').selectOption({ label: DEMO.admin.displayName })
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByText(/saved: open, assigned to Alex Admin/).waitFor()
    await page.getByLabel('Reply to the person who opened the ticket').fill(reply)
    await page.getByRole('button', { name: 'Send reply' }).click()
    await page.getByText('Reply sent.').waitFor()
    await page.getByText(reply).waitFor()
    await expectScreen(page, new RegExp(subject))

    await user.goto(ticketPath)
    await user.getByText(reply).waitFor()
    await user.getByText('Handled by Alex Admin').waitFor()
    await user.getByText('Waiting for you').first().waitFor()
    await expectScreen(user, 'Settings')
  })
})
