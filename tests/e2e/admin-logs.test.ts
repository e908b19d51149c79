import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, signInDemoAdmin, VARIANTS } from './steps'

/**
 * Administration › Logs (docs/observability.md "Logs"): the admin makes a real API call, takes its
 * correlation id from the response header, searches it on the logs page and finds that request's
 * line; a line's correlation id searches itself; a period (From/To in UTC) narrows the pages and
 * paging keeps it, and a period that ends before it starts or a value that is no moment is refused
 * beside its field with what was typed kept. With JavaScript, "Follow live" adds the line of
 * a later request without a reload. JavaScript on and off.
 */

let portal: Portal
let browser: Browser

beforeAll(async () => {
  // Request lines are info: the portal of the other journeys logs warnings only.
  portal = await startPortal({ env: { LOG_LEVEL: 'info' } })
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await portal?.stop()
})

/** A datetime-local value (UTC, to the minute) of a line's moment, moved by whole minutes. */
function minuteOf(isoUtc: string, plusMinutes = 0): string {
  return new Date(Date.parse(isoUtc) + plusMinutes * 60_000).toISOString().slice(0, 16)
}

/** A call of the admin's own session (the context's cookies), with a correlation id of its own. */
async function apiCall(page: Page, correlationId?: string): Promise<string> {
  const response = await page.request.get('/api/projects', { headers: { accept: 'application/json', ...(correlationId && { 'x-correlation-id': correlationId }) } })
  expect(response.status()).toBe(200)
  const id = response.headers()['x-correlation-id']
  if (!id) throw new Error('no correlation id')
  return id
}

describe.each([VARIANTS[0], VARIANTS[1]])('$name', ({ javaScript, viewport }) => {
  test('the admin finds a request’s line by its correlation id; with JavaScript, a later request’s line arrives live', async () => {
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j

    await page.goto('/admin/logs')
    await signInDemoAdmin(page)
    await expectScreen(page, 'Logs')
    await page.getByText('Only lines about this organisation, from this server, are shown').waitFor()

    const correlationId = await apiCall(page)
    const filters = page.getByRole('form', { name: 'Filter the log lines' })
    await filters.getByLabel('Search').fill(correlationId)
    await filters.getByRole('button', { name: 'Filter' }).click()
    await page.waitForURL((url) => url.searchParams.get('query') === correlationId)
    const lines = page.getByRole('list', { name: 'Log lines' }).getByRole('listitem')
    await expect.poll(() => lines.count()).toBe(1)
    const line = lines.first()
    await line.getByText('request', { exact: true }).waitFor()
    await line.getByText('/api/projects').waitFor()
    await line.getByText('200', { exact: true }).waitFor()

    // The line's ids are behind its Details toggle; its correlation id searches for it (here: the same single line).
    expect(await line.getByText(correlationId).isVisible()).toBe(false)
    await line.getByText('Details', { exact: true }).click()
    await line.getByRole('link', { name: correlationId }).click()
    await page.waitForURL((url) => url.search === `?query=${correlationId}`)
    await expect.poll(() => lines.count()).toBe(1)

    // Newest first, a page at a time: two requests of one search, one line a page.
    const run = `e2e-order-${randomBytes(4).toString('hex')}`
    await apiCall(page, `${run}-first`)
    await apiCall(page, `${run}-second`)
    await filters.getByLabel('Search').fill(run)
    await filters.getByLabel('Lines a page').fill('1')
    await filters.getByRole('button', { name: 'Filter' }).click()
    await page.waitForURL((url) => url.searchParams.get('query') === run && url.searchParams.get('lines') === '1')
    await expect.poll(() => lines.count()).toBe(1)
    await lines.first().getByText('Details', { exact: true }).click()
    await lines.first().getByRole('link', { name: `${run}-second` }).waitFor()
    const paging = page.getByRole('navigation', { name: 'Pages of log lines' })
    await paging.getByRole('link', { name: 'Older lines' }).click()
    await page.waitForURL((url) => url.searchParams.has('before'))
    await lines.first().getByText('Details', { exact: true }).click()
    await lines.first().getByRole('link', { name: `${run}-first` }).waitFor()
    const firstAt = await lines.first().locator('time').getAttribute('datetime')
    expect(await paging.getByRole('link', { name: 'Older lines' }).count()).toBe(0)
    await paging.getByRole('link', { name: 'Newest lines' }).click()
    await page.waitForURL((url) => !url.searchParams.has('before') && url.searchParams.get('query') === run)
    await lines.first().getByText('Details', { exact: true }).click()
    await lines.first().getByRole('link', { name: `${run}-second` }).waitFor()
    const secondAt = await lines.first().locator('time').getAttribute('datetime')
    if (!firstAt || !secondAt) throw new Error('a line without its moment')

    // A period (From and To, in UTC to the minute) around the two requests: still a line a page, and paging keeps the period.
    await filters.getByLabel('From (UTC)').fill(minuteOf(firstAt))
    await filters.getByLabel('To (UTC)').fill(minuteOf(secondAt))
    await filters.getByRole('button', { name: 'Filter' }).click()
    await page.waitForURL((url) => url.searchParams.get('from') === minuteOf(firstAt) && url.searchParams.get('to') === minuteOf(secondAt))
    await page.getByText(/^Lines from .+ to .+\.$/).waitFor()
    await lines.first().getByText('Details', { exact: true }).click()
    await lines.first().getByRole('link', { name: `${run}-second` }).waitFor()
    await paging.getByRole('link', { name: 'Older lines' }).click()
    await page.waitForURL((url) => url.searchParams.has('before') && url.searchParams.get('from') === minuteOf(firstAt) && url.searchParams.get('to') === minuteOf(secondAt))
    await lines.first().getByText('Details', { exact: true }).click()
    await lines.first().getByRole('link', { name: `${run}-first` }).waitFor()
    expect(await paging.getByRole('link', { name: 'Older lines' }).count()).toBe(0)

    // A period before both: nothing matches.
    await filters.getByLabel('From (UTC)').fill(minuteOf(firstAt, -3))
    await filters.getByLabel('To (UTC)').fill(minuteOf(firstAt, -2))
    await filters.getByRole('button', { name: 'Filter' }).click()
    await page.waitForURL((url) => url.searchParams.get('to') === minuteOf(firstAt, -2) && !url.searchParams.has('before'))
    await page.getByRole('heading', { name: 'No lines match these filters' }).waitFor()

    // A period that ends before it starts: the error is at To, and both fields keep what was typed.
    await filters.getByLabel('From (UTC)').fill(minuteOf(secondAt))
    await filters.getByLabel('To (UTC)').fill(minuteOf(firstAt, -1))
    await filters.getByRole('button', { name: 'Filter' }).click()
    await page.waitForURL((url) => url.searchParams.get('to') === minuteOf(firstAt, -1))
    await filters.getByText('to must be at or after from: this period ends before it starts.').waitFor()
    expect(await filters.getByLabel('To (UTC)').getAttribute('aria-invalid')).toBe('true')
    expect(await filters.getByLabel('From (UTC)').inputValue()).toBe(minuteOf(secondAt))
    expect(await filters.getByLabel('To (UTC)').inputValue()).toBe(minuteOf(firstAt, -1))
    expect(await page.getByRole('list', { name: 'Log lines' }).count()).toBe(0)

    // A value no date-and-time field can hold (typed into the address) is shown as typed, beside its error.
    await page.goto(`/admin/logs?query=${run}&from=yesterday`)
    await filters.getByText(/from must be a real date and time/).waitFor()
    expect(await filters.getByLabel('From (UTC)').inputValue()).toBe('yesterday')

    // Nothing matches: the empty state.
    await page.goto(`/admin/logs?query=no-such-line-${randomBytes(4).toString('hex')}`)
    await page.getByRole('heading', { name: 'No lines match these filters' }).waitFor()

    if (!javaScript) {
      expect(await page.getByRole('button', { name: 'Follow live' }).count()).toBe(0)
      return
    }
    await page.goto('/admin/logs?unit=web')
    await expectScreen(page, 'Logs')
    await page.getByRole('button', { name: 'Follow live' }).click()
    await page.getByRole('status').filter({ hasText: /^Following: new lines appear at the top/ }).waitFor({ timeout: 15_000 })
    const later = `e2e-follow-${randomBytes(6).toString('hex')}`
    await apiCall(page, later)
    const arrived = page.getByRole('list', { name: 'Log lines' }).getByRole('listitem').filter({ hasText: later })
    await arrived.getByText('Details', { exact: true }).click({ timeout: 10_000 })
    await arrived.getByRole('link', { name: later }).waitFor()
    // It arrived on top: newest first.
    await expect.poll(() => page.getByRole('list', { name: 'Log lines' }).getByRole('listitem').first().textContent()).toContain(later)
    expect(j.problems).toEqual([])
  })
})
