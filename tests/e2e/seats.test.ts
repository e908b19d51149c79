import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import type { MyOrganisation } from '~/lib/licensing/seats'
import { DEMO } from '#server/db/demo-accounts'
import { launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, portalApi, signedInApi, signInDemoAdmin, VARIANTS, type PortalApi } from './steps'

/**
 * Seats (docs/licensing.md), JavaScript on and off: an administrator creates an organisation from
 * Settings › User and switches to it; a platform operator gives it two seats; the administrator
 * invites into the last one, sees the next invite refused with the plain reason, and finds the
 * counts on Settings › Entitlements.
 */

const OPERATOR = { email: `operator-${randomBytes(3).toString('hex')}@ops.example.test`, password: 'an operator passphrase 123', displayName: 'Olga Operator' }

let portal: Portal
let browser: Browser
let operator: PortalApi

/** The operator registers (their own organisation), verifies the address from the mail, and signs in through the API. */
async function registerOperator(): Promise<PortalApi> {
  const api = portalApi(portal.baseUrl)
  await api.send('GET', '/auth/session')
  await api.call('POST', '/auth/register-self', { ...OPERATOR, organisationName: 'Operations' })
  const mail = await portal.mailTo(OPERATOR.email)
  const token = new URL(/https?:\/\/\S+verify-email\S*/.exec(mail.text)?.[0] ?? 'http://x/').searchParams.get('token')
  await api.call('POST', '/auth/email/verify', { token })
  return signedInApi(portal.baseUrl, OPERATOR)
}

beforeAll(async () => {
  portal = await startPortal({ env: { PLATFORM_OPERATOR_EMAILS: OPERATOR.email } })
  browser = await launchBrowser()
  operator = await registerOperator()
})

afterAll(async () => {
  await browser?.close()
  await portal?.stop()
})

describe.each([VARIANTS[0], VARIANTS[1]])('$name', ({ javaScript, viewport }) => {
  test('create an organisation, switch to it, invite into the last seat, see the next invite refused and the counts', async () => {
    const suffix = randomBytes(3).toString('hex')
    const name = `Seats Test ${suffix}`
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j

    await page.goto('/settings/user')
    await signInDemoAdmin(page)
    await expectScreen(page, 'Settings')
    const card = page.getByRole('region', { name: 'Your organisations' })
    // The demo organisation is listed (and, once another variant switched this admin away, offered to switch back to).
    await card.getByText(DEMO.tenant.name).first().waitFor()
    await card.getByLabel('Organisation name').fill(name)
    await card.getByRole('button', { name: 'Create organisation' }).click()
    await page.getByText(`${name} is created and you are its administrator.`).waitFor()
    await page.getByRole('region', { name: 'Your organisations' }).getByRole('button', { name: `Switch to ${name}` }).click()
    await page.getByText(`You are now working in ${name}.`).waitFor()

    // The operator gives the new organisation two seats: the administrator holds one.
    const organisations = await operator.call<{ items: MyOrganisation[] }>('GET', '/api/tenants')
    expect(organisations.items.some((o) => o.name === name)).toBe(false)
    const created = await findOrganisation(page.context().cookies.bind(page.context()), name)
    await operator.call('PATCH', `/api/tenants/${created}/license`, { plan: 'team', seats: 2 })

    await page.goto('/admin/invites')
    await expectScreen(page, 'Invites')
    const form = page.locator('form#invite-create')
    const first = `first.${suffix}@example.com`
    await form.getByLabel('E-mail address').fill(first)
    await form.getByLabel('Role').selectOption({ label: 'Read & Write' })
    await form.getByRole('button', { name: 'Send invitation' }).click()
    await page.getByText(`Invitation sent to ${first}.`).waitFor()
    await page.getByText('No free seat').first().waitFor()

    await form.getByLabel('E-mail address').fill(`second.${suffix}@example.com`)
    await form.getByLabel('Role').selectOption({ label: 'Read Only' })
    await form.getByRole('button', { name: 'Send invitation' }).click()
    await page
      .getByText('All 2 seats of your Team plan are in use (1 member, 1 pending invite). Cancel an invite, revoke a seat, or buy more seats in Settings › Billing.')
      .waitFor()
    // What was typed stays.
    expect(await form.getByLabel('E-mail address').inputValue()).toBe(`second.${suffix}@example.com`)

    await page.goto('/settings/entitlements')
    await expectScreen(page, 'Settings')
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Entitlements' }).waitFor()
    expect(await page.getByTestId('seat-counts').innerText()).toBe('2 seats on the Team plan: 1 used, 1 reserved by invites, 0 free.')
    await page.getByRole('table', { name: 'Pending invites' }).getByRole('rowheader', { name: first }).waitFor()
    j.assertNoConsoleErrors()
  })
})

/** The new organisation's id, asked as the browser's own session (its cookies) through GET /api/tenants. */
async function findOrganisation(cookies: () => Promise<Array<{ name: string; value: string }>>, name: string): Promise<string> {
  const header = (await cookies()).map((c) => `${c.name}=${c.value}`).join('; ')
  const response = await fetch(`${portal.baseUrl}/api/tenants`, { headers: { accept: 'application/json', cookie: header } })
  const list = (await response.json()) as { items: MyOrganisation[] }
  const found = list.items.find((o) => o.name === name)
  if (!found) throw new Error(`${name} is not among ${JSON.stringify(list.items)}`)
  return found.id
}
