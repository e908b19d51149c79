import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, newRegisteredPerson, portalApi, signInDemoAdmin, VARIANTS } from './steps'

/**
 * Administration › Join requests and Devices (docs/admin/join-requests-and-devices.md): a person
 * of another organisation asks to join the demo organisation through the API; the administrator
 * approves them with a role in the browser; then revokes a device the demo user registered through
 * the API, whose session ends. JavaScript on and off.
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
  test('a person of another organisation asks to join; the admin approves with a role; the admin revokes a device and its session ends', async () => {
    // Through the API: a stranger asks to join the demo organisation; the demo user registers a phone.
    const requester = await newRegisteredPerson(portal, javaScript ? 'Jo Joiner' : 'Kim Nojs')
    const asked = await requester.api.call<{ id: string; status: string }>('POST', '/api/join-requests', { slug: DEMO.tenant.slug, message: 'Site team, please.' })
    expect(asked.status).toBe('pending')
    const sam = portalApi(portal.baseUrl)
    await sam.send('GET', '/auth/session')
    await sam.call('POST', '/auth/login', { email: DEMO.user.email, password: DEMO.user.password })
    const deviceId = `phone-${randomBytes(4).toString('hex')}`
    const deviceName = `Site phone ${deviceId.slice(6)}`
    await sam.call('POST', '/auth/devices/register', { deviceId, platform: 'android', name: deviceName })

    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j
    await page.goto('/admin/join-requests')
    await signInDemoAdmin(page)
    // The second factor's answer leads into the Administration area (to the page asked for).
    await page.waitForURL((url) => url.pathname.startsWith('/admin'))
    if (!page.url().includes('/admin/join-requests')) await page.goto('/admin/join-requests')
    await expectScreen(page, 'Join requests')

    // Approve with a role (Read Only unless chosen otherwise).
    const card = page.getByRole('article', { name: requester.displayName })
    await card.getByText('Site team, please.').waitFor()
    expect(await card.getByLabel('Role').inputValue()).toBe('read-only')
    const beforeDecision = Date.now()
    await card.getByLabel('Role').selectOption('read-write')
    await card.getByRole('button', { name: `Approve ${requester.displayName}` }).click()
    await page.getByText(`${requester.displayName} is now a member (Read & Write).`).waitFor()
    await expectScreen(page, 'Join requests')
    expect(await page.getByRole('article', { name: requester.displayName }).count()).toBe(0)
    await page.getByRole('link', { name: 'Approved' }).click()
    await page.waitForURL(/status=approved/)
    await page.getByRole('table').getByText(requester.email).waitFor()
    const mine = await requester.api.call<{ items: { id: string; status: string }[] }>('GET', '/api/join-requests/mine')
    expect(mine.items.find((r) => r.id === asked.id)?.status).toBe('approved')
    expect((await portal.mailTo(requester.email, { after: beforeDecision })).subject).toContain(DEMO.tenant.name)

    // Devices: the phone is listed with its session; revoking asks first; Sam's session on it ends.
    await page.goto(`/admin/devices?platform=android`)
    await expectScreen(page, 'Devices')
    const row = page.getByRole('row').filter({ hasText: deviceName })
    await row
      .getByRole('cell', { name: new RegExp(DEMO.user.displayName) })
      .first()
      .waitFor()
    await row.getByText('Revoke…').click()
    await row.getByRole('button', { name: 'Yes, revoke device' }).click()
    await page.getByText(`${deviceName} is revoked`).waitFor()
    await expectScreen(page, 'Devices')
    expect(await page.getByRole('row').filter({ hasText: deviceName }).count()).toBe(0)
    expect((await sam.send('GET', '/api/projects')).status).toBe(401)
    await page.getByLabel('Include revoked devices').check()
    await page.getByRole('button', { name: 'Show devices' }).click()
    await page.waitForURL(/includeRevoked=true/)
    await page.getByRole('row').filter({ hasText: deviceName }).getByText('Revoked').waitFor()
    await expectScreen(page, 'Devices')
  })
})
