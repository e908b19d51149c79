import { randomBytes } from 'node:crypto'
import sharp from 'sharp'
import { afterAll, beforeAll, expect, onTestFinished, test } from 'vitest'
import type { Browser, BrowserContext, Page, Route } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { ITEM_CLOSED_REFUSAL } from '~/islands/sync/outbox-sender'
import { signOutQuestion } from '~/islands/sync/sync-text'
import type { Item, ItemResponse } from '~/lib/reporting/types'
import { launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { demoUserApi, expectScreen, newDemoItem, nextAdminCode, signIn, signOut } from './steps'

/**
 * Field mode (issue 10, decision 009): with mobile sync on, the service worker opens assigned
 * items with no connection from the offline copy, keeps a response written offline (with its photo)
 * in the outbox, and sends it once when the connection is back; a refusal keeps the text; signing
 * out with unsent work asks first.
 */

let portal: Portal
let browser: Browser

beforeAll(async () => {
  portal = await startPortal({ env: { FEATURE_FLAGS: '{"mobileSync":true}' } })
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await portal?.stop()
})

const unique = (prefix: string) => `${prefix} ${randomBytes(3).toString('hex')}`
/** Offline, the hub and the feed fail by design; that is this journey's point, not a fault. */
const NOISE = [/\/hub\/realtime/, /WebSocket connection to/, /\/api\/sync\//, /ERR_INTERNET_DISCONNECTED/, /Failed to fetch/]

function assignedItem(): Promise<Item> {
  return newDemoItem(portal.baseUrl, {
    project: unique('Quay Street'),
    report: unique('Basement walk'),
    item: unique('Missing fire stop'),
    priority: 'high',
    assignToSelf: true,
  })
}

async function photo(name: string) {
  return {
    name,
    mimeType: 'image/jpeg',
    buffer: await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 30, g: 90, b: 160 } } })
      .jpeg()
      .toBuffer(),
  }
}

/** The service worker's own requests fail like the page's (Playwright's offline mode leaves them alone). */
function refuseWorkerRequests(route: Route) {
  return route.request().serviceWorker() ? route.abort('internetdisconnected') : route.fallback()
}

async function goOffline(context: BrowserContext) {
  await context.route('**', refuseWorkerRequests)
  await context.setOffline(true)
}

async function goOnline(context: BrowserContext) {
  await context.unroute('**', refuseWorkerRequests)
  await context.setOffline(false)
}

/** Signed in as Sam with sync done and the worker in charge of the page and told who is signed in. */
async function samInFieldMode(viewport: 'phone' | 'desktop', { emptyDatabaseFirst = false } = {}) {
  const j = await newJourneyContext(browser, { javaScript: true, viewport, baseUrl: portal.baseUrl, ignore: NOISE })
  onTestFinished(() => j.close())
  const { page } = j
  await page.goto('/dashboard')
  if (emptyDatabaseFirst) {
    // The device already has the worker's database at version 1 with no store in it, as an early
    // probe of this file once made it: the worker must still learn who signs in.
    await page.evaluate(
      () =>
        new Promise<void>((resolve, reject) => {
          const request = indexedDB.open('site-portal-field', 1)
          request.onsuccess = () => (request.result.close(), resolve())
          request.onerror = () => reject(request.error)
        }),
    )
  }
  await signIn(page, DEMO.user.email, DEMO.user.password)
  await expectScreen(page, 'Dashboard')
  await page.locator('[data-sync-status="succeeded"]').waitFor({ state: 'attached' })
  const knows = await expect.poll(() => workerKnowsOwner(page), { timeout: 20_000 }).toBe(true).then(
    () => true,
    () => false,
  )
  // What the browser had, should it ever fail again (it did when this probe, run before the worker
  // had opened its database, created that database empty: fixed in both).
  if (!knows) throw new Error(`the worker did not learn who is signed in within 20 s: ${await workerState(page)}`)
  return j
}

function workerState(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const registration = await navigator.serviceWorker.getRegistration('/')
    const state = (worker: ServiceWorker | null | undefined) => worker?.state ?? 'none'
    return `controller ${state(navigator.serviceWorker.controller)}, installing ${state(registration?.installing)}, waiting ${state(registration?.waiting)}, active ${state(registration?.active)}`
  })
}

function workerKnowsOwner(page: Page): Promise<boolean> {
  return page.evaluate(async () => {
    if (!navigator.serviceWorker.controller) return false
    // Opening a database that does not exist creates it (empty, at version 1): abort that upgrade,
    // so the probe never makes the worker's database before the worker does.
    const db = await new Promise<IDBDatabase | null>((resolve) => {
      const request = indexedDB.open('site-portal-field')
      request.onupgradeneeded = () => request.transaction?.abort()
      request.onsuccess = () => resolve(request.result)
      request.onerror = () => resolve(null)
    })
    if (!db) return false
    if (!db.objectStoreNames.contains('meta')) return (db.close(), false)
    const owner = await new Promise<unknown>((resolve) => {
      const request = db.transaction('meta').objectStore('meta').get('owner')
      request.onsuccess = () => resolve(request.result)
      request.onerror = () => resolve(undefined)
    })
    db.close()
    return Boolean(owner)
  })
}

function outboxDatabases(page: Page): Promise<string[]> {
  return page.evaluate(async () => (await indexedDB.databases()).flatMap((d) => (d.name?.startsWith('site-portal-outbox:') ? [d.name] : [])))
}

test('JS on, phone: offline the assigned item opens from the copy; a response with a photo waits, then arrives once and live', async () => {
  const item = await assignedItem()
  const { call } = await demoUserApi(portal.baseUrl)

  // Alex (the admin) watches the item page.
  const alex = await newJourneyContext(browser, { javaScript: true, viewport: 'desktop', baseUrl: portal.baseUrl, ignore: NOISE })
  onTestFinished(() => alex.close())
  await alex.page.goto(`/items/${item.id}`)
  await signIn(alex.page, DEMO.admin.email, DEMO.admin.password)
  await expectScreen(alex.page, 'Enter your authentication code')
  await alex.page.getByLabel('Authentication code').fill(await nextAdminCode(portal.baseUrl))
  await alex.page.getByRole('button', { name: 'Continue' }).click()
  await alex.page.getByRole('heading', { level: 1, name: `#${item.number} ${item.title}` }).waitFor()
  await alex.page.locator('[data-realtime-status="connected"]').waitFor({ state: 'attached' })

  const sam = await samInFieldMode('phone')
  const { page, context } = sam
  await goOffline(context)

  // No signal: the dashboard is the list of assigned items from the copy, and the item opens.
  await page.goto('/dashboard')
  await page.getByText(/^Offline copy, last synced /).waitFor()
  await page.getByRole('link', { name: `#${item.number} ${item.title}` }).click()
  await page.getByRole('heading', { level: 1, name: `#${item.number} ${item.title}` }).waitFor()
  await page.getByText(/^Offline copy, last synced /).waitFor()

  // An empty response is refused here and now, as online.
  await page.getByRole('button', { name: 'Send response' }).click()
  expect(await page.getByLabel('Your response').evaluate((el: HTMLTextAreaElement) => el.validity.valueMissing)).toBe(true)

  const text = unique('Fire stopping sealed at level B2')
  await page.getByLabel('Your response').fill(text)
  await page.getByLabel('Photos (optional)').setInputFiles([await photo('riser.jpg')])
  await page.getByRole('button', { name: 'Send response' }).click()
  const waiting = page.locator('[data-outbox-entry]')
  await waiting.filter({ hasText: text }).waitFor()
  expect(await waiting.textContent()).toContain('Waiting to send')
  expect(await waiting.textContent()).toContain('1 photo')

  // Back in signal: the next page load reaches the server and the worker sends the outbox.
  await goOnline(context)
  await page.goto(`/items/${item.id}`)
  const thread = page.getByRole('region', { name: 'Responses' })
  await thread.getByText(text).waitFor({ timeout: 30_000 })
  await expect.poll(() => page.locator('[data-outbox-entry]').count(), { timeout: 15_000 }).toBe(0)

  // Once, with its photo, however the sending went.
  const responses = await call<{ items: ItemResponse[] } | ItemResponse[]>('GET', `/api/items/${item.id}/responses`)
  const list = Array.isArray(responses) ? responses : responses.items
  const sent = list.filter((r) => r.body === text)
  expect(sent).toHaveLength(1)
  expect(sent[0]?.photoIds).toHaveLength(1)

  // Alex saw it arrive without reloading.
  await alex.page.getByRole('region', { name: 'Responses' }).getByText(text).waitFor({ timeout: 20_000 })
})

test('JS on: the item was closed meanwhile; the response is kept with its text, and signing out asks first', async () => {
  const item = await assignedItem()
  const { call } = await demoUserApi(portal.baseUrl)
  const { page, context } = await samInFieldMode('desktop')
  await goOffline(context)
  await page.goto(`/items/${item.id}`)
  const text = unique('Sealed the riser penetration')
  await page.getByLabel('Your response').fill(text)
  await page.getByRole('button', { name: 'Send response' }).click()
  await page.locator('[data-outbox-entry]').filter({ hasText: 'Waiting to send' }).waitFor()

  // Meanwhile the verifier closes the item from the office.
  await call('POST', `/api/items/${item.id}/confirm-close`, { confirmed: true, photoIds: [] })

  await goOnline(context)
  await page.goto(`/items/${item.id}`)
  const refused = page.locator('[data-outbox-entry]')
  await refused.getByText(ITEM_CLOSED_REFUSAL).waitFor({ timeout: 30_000 })
  expect(await refused.textContent()).toContain(text)
  expect(await outboxDatabases(page)).toHaveLength(1)

  // Signing out asks first; "no" keeps the user where they are, "yes" signs out and deletes the outbox.
  const questions: string[] = []
  page.once('dialog', (dialog) => {
    questions.push(dialog.message())
    void dialog.dismiss()
  })
  await page.locator('summary', { hasText: `Account menu for ${DEMO.user.displayName}` }).click()
  await page.getByRole('button', { name: 'Sign out' }).click()
  await expect.poll(() => questions).toEqual([signOutQuestion(1)])
  expect(new URL(page.url()).pathname).toBe(`/items/${item.id}`)
  await refused.getByText(text).waitFor()

  page.once('dialog', (dialog) => void dialog.accept())
  await page.getByRole('button', { name: 'Sign out' }).click()
  await expectScreen(page, 'Sign in')
  await expect.poll(() => outboxDatabases(page), { timeout: 10_000 }).toEqual([])
})

test('JS on: an item outside the copy says so offline, and signing out with an empty outbox asks nothing', async () => {
  const { page, context, problems } = await samInFieldMode('desktop', { emptyDatabaseFirst: true })
  await goOffline(context)
  const outside = '/items/00000000-0000-4000-8000-000000000000'
  const response = await page.goto(outside)
  expect(response?.status()).toBe(503)
  await page.getByRole('heading', { level: 1, name: 'Not available offline' }).waitFor()
  await page.getByText('This page is not in the offline copy on this device.').waitFor()
  // The worker's "Not available offline" page answers 503 on purpose; the browser reports that answer
  // as a server error and a failed resource. Those two are expected here, and only for this address.
  const expected = problems.filter((problem) => problem.includes(outside) && problem.includes('503'))
  expect(expected).toHaveLength(2)
  for (const problem of expected) problems.splice(problems.indexOf(problem), 1)
  await goOnline(context)
  await page.goto('/dashboard')
  // A call still in flight when the session ends answers 401; on the sign-in page that must not send
  // the person to sign in again (it reloaded the page with itself as the page to return to).
  const navigations: string[] = []
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) navigations.push(frame.url())
  })
  page.once('dialog', () => {
    throw new Error('signing out with nothing unsent must not ask')
  })
  await signOut(page, DEMO.user.displayName)
  await page.waitForLoadState('networkidle')
  expect(navigations.filter((url) => new URL(url).pathname === '/auth/login'), navigations.join('\n')).toHaveLength(1)
})

test('JS on: the connection drops while the item page is open; the response form still keeps what was written', async () => {
  const item = await assignedItem()
  const { page, context } = await samInFieldMode('desktop')
  await page.goto(`/items/${item.id}`)
  await page.getByRole('heading', { level: 1, name: `#${item.number} ${item.title}` }).waitFor()
  await goOffline(context)
  const text = unique('Handrail bolts torqued')
  const respond = page.getByRole('region', { name: 'Respond' })
  await respond.getByLabel('Your response').fill(text)
  await respond.getByRole('button', { name: 'Send response' }).click()
  // The browser posts the form itself; the worker keeps it and shows the item from the copy.
  await page.getByText(/^Offline copy, last synced /).waitFor()
  await page.locator('[data-outbox-entry]').filter({ hasText: text }).getByText('Waiting to send').waitFor()

  await goOnline(context)
  await page.goto(`/items/${item.id}`)
  await page.getByRole('region', { name: 'Responses' }).getByText(text).waitFor({ timeout: 30_000 })
})
