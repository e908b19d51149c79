import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, expect, onTestFinished, test } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, newDemoItem, signIn, signOut } from './steps'

/**
 * Mobile sync turned on for the server (FEATURE_FLAGS): the island downloads the phone's scope
 * into IndexedDB after sign-in, keeps it current as items change, says so in the shell, and the
 * copy is deleted when the user signs out from the device. Without JavaScript pages are as before.
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
/** The hub's reconnect noise is not this journey's business. */
const NOISE = [/\/hub\/realtime/, /WebSocket connection to/]

/** The ids of the items in this page's offline copy, or null when there is none. */
function copiedItemIds(page: Page): Promise<string[] | null> {
  return page.evaluate(async () => {
    const found = (await indexedDB.databases()).find((d) => d.name?.startsWith('site-portal-sync:'))
    if (!found?.name) return null
    const db = await new Promise<IDBDatabase | null>((resolve, reject) => {
      const request = indexedDB.open(found.name as string)
      // Deleted since it was listed (a sign-out under way): opening it would make it anew, empty, and
      // leave it there. The upgrade that would make it is aborted, and there is no copy.
      request.onupgradeneeded = () => request.transaction?.abort()
      request.onsuccess = () => resolve(request.result)
      request.onerror = () => (request.error?.name === 'AbortError' ? resolve(null) : reject(request.error))
    })
    if (!db) return null
    if (!db.objectStoreNames.contains('reportItems')) {
      db.close()
      return null
    }
    const keys = await new Promise<IDBValidKey[]>((resolve, reject) => {
      const request = db.transaction('reportItems').objectStore('reportItems').getAllKeys()
      request.onsuccess = () => resolve(request.result)
      request.onerror = () => reject(request.error)
    })
    db.close()
    return keys.map(String)
  })
}

test.each(['desktop', 'phone'] as const)(
  'JS on, %s: sign-in downloads the scope, a new item arrives by itself, sign-out deletes the copy',
  async (viewport) => {
    const first = await newDemoItem(portal.baseUrl, {
      project: unique('Quay Street'),
      report: unique('Walkdown'),
      item: unique('Missing fire stop'),
      priority: 'high',
    })
    const j = await newJourneyContext(browser, { javaScript: true, viewport, baseUrl: portal.baseUrl, ignore: NOISE })
    onTestFinished(() => j.close())
    const { page } = j
    await page.goto('/dashboard')
    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, 'Dashboard')
    const status = page.locator('[data-sync-status]')
    await status.and(page.locator('[data-sync-status="succeeded"]')).waitFor()
    await expect.poll(() => status.textContent()).toMatch(/^Synced \d\d:\d\d$/)
    expect(await copiedItemIds(page)).toContain(first.id)

    // Someone makes another item: the live connection (or the poll) brings it into the copy.
    const second = await newDemoItem(portal.baseUrl, {
      project: unique('Quay Street'),
      report: unique('Walkdown'),
      item: unique('Cracked tile'),
      priority: 'low',
    })
    await expect.poll(() => copiedItemIds(page), { timeout: 20_000 }).toContain(second.id)

    await signOut(page, DEMO.user.displayName)
    await expect.poll(() => copiedItemIds(page), { timeout: 10_000 }).toBeNull()
  },
)

test('JS off: the pages work as before and nothing syncs', async () => {
  const j = await newJourneyContext(browser, { javaScript: false, viewport: 'desktop', baseUrl: portal.baseUrl })
  onTestFinished(() => j.close())
  const { page } = j
  const syncCalls: string[] = []
  page.on('request', (request) => {
    if (request.url().includes('/api/sync/')) syncCalls.push(request.url())
  })
  await page.goto('/dashboard')
  await signIn(page, DEMO.user.email, DEMO.user.password)
  await expectScreen(page, 'Dashboard')
  expect(await page.locator('[data-sync-status]').count()).toBe(0)
  expect(syncCalls).toEqual([])
})
