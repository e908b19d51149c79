import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { startOidcProvider, type TestOidcProvider } from '#tests/helpers/oidc-provider'
import { checkAccessibility, launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { demoAdminApi, expectScreen, pathOf, signOut, VARIANTS } from './steps'

/**
 * Sign-in through the organisation's identity provider (issue 16, docs/identity-provider.md): a
 * real OpenID Connect provider (oidc-provider, in this process) with its own login page. Our pages
 * run with JavaScript on and off; the provider's page is the provider's.
 */

let portal: Portal
let browser: Browser
let idp: TestOidcProvider

beforeAll(async () => {
  // The demo administrator may set the demo organisation's licence (the Business plan has the feature).
  portal = await startPortal({ env: { PLATFORM_OPERATOR_EMAILS: DEMO.admin.email } })
  idp = await startOidcProvider({ redirectUris: [`${portal.baseUrl}/auth/oidc/callback`] })
  idp.accounts.set('sam-at-demo', { email: DEMO.user.email, emailVerified: true, name: DEMO.user.displayName, amr: ['pwd'] })
  await configureDemoOrganisation()
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await idp?.close()
  await portal?.stop()
})

/** As the demo administrator, through the API: the Business plan and the identity-provider category. */
async function configureDemoOrganisation(): Promise<void> {
  const admin = await demoAdminApi(portal.baseUrl, { admin: true })
  const { tenantId } = await admin.call<{ tenantId: string }>('GET', '/auth/session')
  await admin.call('PATCH', `/api/tenants/${tenantId}/license`, { plan: 'business', seats: 25 })
  await admin.call('PUT', '/api/admin/config/identity-provider', {
    version: 0,
    values: { enabled: true, issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret },
  })
}

describe.each([VARIANTS[0], VARIANTS[1]])('$name', ({ javaScript, viewport }) => {
  test('a member signs in with their company account (after a wrong address and a cancel) and signs out', async () => {
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j
    // Every authorization request the browser makes to the provider (issue 36: navigate once).
    const authorizations: string[] = []
    page.on('request', (request) => {
      if (request.isNavigationRequest() && request.url().startsWith(idp.issuer) && new URL(request.url()).searchParams.has('client_id')) authorizations.push(request.url())
    })
    const section = page.getByRole('region', { name: 'Sign in with your company account' })
    const organisation = section.getByLabel('Your organisation’s address')
    const continueButton = section.getByRole('button', { name: 'Continue to your company’s sign-in' })

    await page.goto('/dashboard')
    await expectScreen(page, 'Sign in')
    await organisation.fill('no-such-organisation')
    await continueButton.click()
    await section.getByText('There is no sign-in with a company account for “no-such-organisation”.', { exact: false }).waitFor()
    expect(await organisation.inputValue()).toBe('no-such-organisation')
    await checkAccessibility(page)

    // At the provider, the person cancels: the sign-in page says so in plain words.
    await organisation.fill(DEMO.tenant.slug)
    await continueButton.click()
    await page.getByRole('heading', { name: 'Test identity provider' }).waitFor()
    expect(authorizations).toHaveLength(1)
    await page.getByRole('button', { name: 'Cancel' }).click()
    await expectScreen(page, 'Sign in')
    await section.getByText('The sign-in was cancelled or refused at your company’s sign-in service.').waitFor()
    expect(await organisation.inputValue()).toBe(DEMO.tenant.slug)

    await continueButton.click()
    await page.getByRole('heading', { name: 'Test identity provider' }).waitFor()
    await page.getByLabel('Account').fill('sam-at-demo')
    await page.getByRole('button', { name: 'Sign in at the provider' }).click()
    await expectScreen(page, 'Dashboard')
    expect(pathOf(page)).toBe('/dashboard')
    expect(authorizations).toHaveLength(2)

    await signOut(page, DEMO.user.displayName)
    j.assertNoConsoleErrors()
  })
})
