import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { parseCsv } from '#server/domain/doc-control/deliverables-csv'
import { launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, newRegisteredPerson, signedInApi, signInDemoAdmin, VARIANTS } from './steps'

/**
 * Issue 13 "Done when", as one administrator's afternoon, JavaScript on and off: invite a person,
 * who accepts in a second browser; find them in Users and change their role; revoke the device
 * they registered; approve a join request; export the audit and find each of these actions in
 * it; verify the audit chain.
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
  test('invite, accept in a second browser, change the role, revoke a device, approve a join request, export and verify the audit', async () => {
    const suffix = randomBytes(4).toString('hex')
    const invitee = { displayName: `Ines Invitee ${suffix}`, email: `ines.${suffix}@example.com`, password: 'a long enough passphrase' }
    const admin = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => admin.close())
    const page = admin.page

    await page.goto('/admin/invites')
    await signInDemoAdmin(page)
    await page.waitForURL((url) => url.pathname.startsWith('/admin'))
    if (!page.url().includes('/admin/invites')) await page.goto('/admin/invites')
    await expectScreen(page, 'Invites')

    // Invite a person.
    const form = page.locator('form#invite-create')
    await form.getByLabel('E-mail address').fill(invitee.email)
    await form.getByLabel('Role').selectOption({ label: 'Read & Write' })
    await form.getByRole('button', { name: 'Send invitation' }).click()
    await page.getByText(`Invitation sent to ${invitee.email}.`).waitFor()

    // They accept in a second browser: the mailed link, an account, and they are in.
    const mail = await portal.mailTo(invitee.email)
    const link = /https?:\/\/\S+(\/invite\/[A-Za-z0-9_-]+)/.exec(mail.text)?.[1]
    expect(link, mail.text).toBeDefined()
    const second = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => second.close())
    await second.page.goto(link ?? '/')
    await expectScreen(second.page, 'You are invited')
    await second.page.getByLabel('Your name').fill(invitee.displayName)
    await second.page.getByLabel('Password').fill(invitee.password)
    await second.page.getByRole('button', { name: 'Create account and join' }).click()
    await expectScreen(second.page, 'Dashboard')

    // The administrator finds them in Users and changes their role.
    await page.goto('/admin/users')
    await expectScreen(page, 'Users')
    const search = page.getByRole('search', { name: 'Find members' })
    await search.getByLabel('Search').fill(invitee.email)
    await search.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL(/q=/)
    await page.getByRole('table', { name: 'Members' }).getByRole('link', { name: invitee.displayName }).click()
    await expectScreen(page, invitee.displayName)
    const roles = page.getByRole('region', { name: 'Role and status' })
    await roles.getByLabel('Role in this organisation').selectOption({ label: 'Read Only' })
    await roles.getByRole('button', { name: 'Change role' }).click()
    await page.getByText(`${invitee.displayName}’s role changed.`).waitFor()

    // They register a phone; the administrator revokes it and its session ends.
    const phone = await signedInApi(portal.baseUrl, invitee)
    const deviceName = `Ines phone ${suffix}`
    await phone.call('POST', '/auth/devices/register', { deviceId: `phone-${suffix}`, platform: 'android', name: deviceName })
    await page.goto('/admin/devices?platform=android')
    await expectScreen(page, 'Devices')
    const row = page.getByRole('row').filter({ hasText: deviceName })
    await row.getByText('Revoke…').click()
    await row.getByRole('button', { name: 'Yes, revoke device' }).click()
    await page.getByText(`${deviceName} is revoked`).waitFor()
    expect((await phone.send('GET', '/api/projects')).status).toBe(401)

    // Someone of another organisation asks to join; the administrator approves.
    const stranger = await newRegisteredPerson(portal, javaScript ? 'Jordan Joiner' : 'Kit Nojs')
    await stranger.api.call('POST', '/api/join-requests', { slug: DEMO.tenant.slug, message: 'Joining the site team.' })
    await page.goto('/admin/join-requests')
    await expectScreen(page, 'Join requests')
    const card = page.getByRole('article', { name: stranger.displayName })
    await card.getByLabel('Role').selectOption('read-write')
    await card.getByRole('button', { name: `Approve ${stranger.displayName}` }).click()
    await page.getByText(`${stranger.displayName} is now a member (Read & Write).`).waitFor()

    // The audit export holds each of these actions; the chain is intact.
    await page.goto('/admin/audit')
    await expectScreen(page, 'Audit')
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()])
    const rows = parseCsv((await readFile((await download.path()) as string, 'utf8')).replace(/^\uFEFF/, '')).rows.map((r) => r.cells)
    const header = rows[0] ?? []
    const action = header.indexOf('action')
    const actions = new Set(rows.slice(1).map((r) => r[action]))
    for (const done of [
      'admin.invite.created',
      'admin.invite.claimed',
      'admin.member.role.changed',
      'admin.device.revoked',
      'admin.join-request.approved',
      'admin.audit.exported',
    ]) {
      expect(actions, done).toContain(done)
    }
    await page.getByRole('button', { name: 'Verify chain' }).click()
    await page.getByText(/^Chain intact: [\d,.\s]+ entries checked$/).waitFor()
    await expectScreen(page, 'Audit')
    admin.assertNoConsoleErrors()
  })
})
