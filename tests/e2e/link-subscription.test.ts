import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser } from 'playwright-core'
import { createStoreStandIn } from '#tests/helpers/store-stand-in'
import { checkAccessibility, launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, newRegisteredPerson, signIn, VARIANTS } from './steps'

/**
 * Settings › Link subscription (docs/store-subscriptions.md), JavaScript on and off: an administrator
 * gets a link code; the test then does what the mobile app does (POST /api/iap/link/complete with
 * the store's proof); the page lists the subscription and "Check now" asks the store again. The
 * built portal runs in its own process where msw cannot reach, so the App Store stand-in of the
 * API tests is served over HTTP here and the portal points at it (APPLE_API_BASE_URL and friends).
 */

const stores = createStoreStandIn()
let standIn: Server
let portal: Portal
let browser: Browser

beforeAll(async () => {
  standIn = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = []
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
    incoming.on('end', () => {
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined
      const request = new Request(`http://127.0.0.1${incoming.url ?? '/'}`, { method: incoming.method, headers: incoming.headers as Record<string, string>, body })
      void stores.handle(request).then(async (response) => {
        outgoing.writeHead(response.status, Object.fromEntries(response.headers))
        outgoing.end(Buffer.from(await response.arrayBuffer()))
      })
    })
  })
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`
  // The stand-in answers from this process, which also drives the browsers: on a busy machine it
  // can take longer than the 300 ms the API suite's stand-in allows (CI on 2026-12-02 saw a 503,
  // "did not answer"). Nothing here tests a timeout, so the portal waits as long as in production.
  portal = await startPortal({ env: { ...stores.env({ apple: base, google: base, token: `${base}/token` }), STORE_TIMEOUT_MS: '10000' } })
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await portal?.stop()
  await new Promise((resolve) => standIn?.close(resolve))
})

describe.each([VARIANTS[0], VARIANTS[1]])('$name', ({ javaScript, viewport }) => {
  test('an administrator gets a link code, the app links its App Store purchase, and Check now asks the store again', async () => {
    const person = await newRegisteredPerson(portal, 'Link')
    const transactionId = String(2_100_000_000 + Math.floor(Math.random() * 1_000_000))
    stores.apple.set(transactionId, { originalTransactionId: transactionId, transactionIds: [transactionId], productId: 'siteportal.team.10', expiresDate: Date.now() + 30 * 86_400_000, status: 1 })
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j

    await page.goto('/settings/link')
    await signIn(page, person.email, person.password)
    await expectScreen(page, 'Settings')
    await page.getByRole('heading', { name: 'No subscriptions linked yet' }).waitFor()
    await page.getByRole('button', { name: 'Get a link code' }).click()
    const shown = page.getByText(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/)
    await shown.waitFor()
    await page.getByText(/^Works until .+, once\.$/).waitFor()
    expect(await page.getByRole('img', { name: /QR code of the link/ }).count()).toBe(1)
    await checkAccessibility(page)
    const code = (await shown.textContent()) ?? ''

    // What the app does once the buyer typed the code.
    await person.api.call('POST', '/api/iap/link/complete', { store: 'apple', code, productId: 'siteportal.team.10', transactionId })

    await page.goto('/settings/link')
    const table = page.getByRole('table', { name: 'Linked subscriptions' })
    await table.getByText('Active, renews automatically').waitFor()
    expect(await table.getByText('Team, 10 seats (the current licence)').count()).toBe(1)
    await expectScreen(page, 'Settings')

    stores.apple.set(transactionId, { originalTransactionId: transactionId, transactionIds: [transactionId], productId: 'siteportal.team.10', expiresDate: Date.now(), status: 5, revocationDate: Date.now() })
    await page.getByRole('button', { name: 'Check now (App Store, siteportal.team.10)' }).click()
    await page.getByText('Checked with App Store: Refunded or revoked. The organisation’s licence is updated.').waitFor()
    await table.getByText('Refunded or revoked').waitFor()
    j.assertNoConsoleErrors()
  })
})
