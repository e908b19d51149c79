import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import type { Item, Member, Page as ListPage, Project, Report } from '~/lib/reporting/types'
import { bound, checkAccessibility, launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, JOURNEY_VARIANTS, openMainDestination, signIn } from './steps'

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

/** A name no other test run uses, so each journey finds its own rows. */
function unique(prefix: string): string {
  return `${prefix} ${randomBytes(3).toString('hex')}`
}

/**
 * The demo user's API session on the running portal, for setting up what a journey starts from
 * (the portal runs in its own process, so its database is reached through its API).
 */
async function apiAs(email: string, password: string) {
  const jar = new Map<string, string>()
  let csrf: string | undefined
  async function call<T>(method: string, path: string, body?: unknown, options: { allowFailure?: boolean } = {}): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') }
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (csrf) headers['X-CSRF-Token'] = csrf
    const response = await fetch(`${portal.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const at = pair.indexOf('=')
      jar.set(pair.slice(0, at), pair.slice(at + 1))
    }
    csrf = response.headers.get('x-csrf-token') ?? csrf
    const text = await response.text()
    if (!response.ok && !options.allowFailure) throw new Error(`${method} ${path} answered ${response.status}: ${text}`)
    return (text ? JSON.parse(text) : null) as T
  }
  // Signed out, this answers 401 and hands out the CSRF token the sign-in needs.
  await call('GET', '/auth/session', undefined, { allowFailure: true })
  await call('POST', '/auth/login', { email, password })
  return { call }
}

/** A project and report of the demo user's, with items in it: what a journey works on. */
async function reportWithItems(items: Array<{ title: string; priority?: string; assignee?: 'user' | 'admin' | null }>) {
  const api = await apiAs(DEMO.user.email, DEMO.user.password)
  const members = (await api.call<{ items: Member[] }>('GET', '/api/members')).items
  const idOf = (who: 'user' | 'admin') => members.find((m) => m.email === DEMO[who].email)?.userId
  const project = await api.call<Project>('POST', '/api/projects', { title: unique('Quay Street') })
  const report = await api.call<Report>('POST', '/api/reports', { projectId: project.id, title: unique('Snagging round') })
  const created: Item[] = []
  for (const item of items) {
    const assigneeUserId = item.assignee === null ? undefined : idOf(item.assignee ?? 'user')
    created.push(await api.call<Item>('POST', `/api/reports/${report.id}/items`, { title: item.title, priority: item.priority ?? 'medium', assigneeUserId }))
  }
  return { api, project, report, items: created }
}

function searchOf(page: Page): URLSearchParams {
  return new URL(page.url()).searchParams
}

/** Opens a disclosure (Saved views, Filter and display) unless it is open already. */
async function open(page: Page, summary: string) {
  const details = page.locator('details').filter({ has: page.locator('summary', { hasText: summary }) })
  if (!(await details.evaluate((element: HTMLDetailsElement) => element.open))) await details.locator('summary').first().click()
}

/** The row or card of an item in the list, whichever the layout shows. */
function entryOf(page: Page, title: string) {
  return page.locator('tr, li').filter({ hasText: title }).filter({ visible: true })
}

describe.each(JOURNEY_VARIANTS)('$name', ({ javaScript, viewport }) => {
  async function journey() {
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    return j
  }

  test('project → report → item → a response asking to close → the verifier confirms → closed, and the activity shows it all', async () => {
    const { page, assertNoConsoleErrors } = await journey()
    const projectName = unique('Mill Lane')
    const reportName = unique('Handover walk')
    const itemTitle = unique('Scuffed skirting')
    await page.goto('/projects')
    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, 'Projects')
    const newProject = page.getByRole('region', { name: 'New project' })
    await newProject.getByLabel('Title').fill(projectName)
    await newProject.getByRole('button', { name: 'Create project' }).click()
    await page.getByText(`Project “${projectName}” created.`).waitFor()

    await openMainDestination(page, 'Reports')
    await expectScreen(page, 'Reports')
    const newReport = page.getByRole('region', { name: 'New report' })
    await newReport.getByLabel('Project').selectOption({ label: projectName })
    await newReport.getByLabel('Title').fill(reportName)
    await newReport.getByRole('button', { name: 'Create report' }).click()
    await expectScreen(page, reportName)

    const addItem = page.getByRole('region', { name: 'Add item' })
    await addItem.getByLabel('Title').fill(itemTitle)
    await addItem.getByLabel('Assignee (optional)').selectOption({ label: DEMO.user.displayName })
    await addItem.getByRole('button', { name: 'Add item' }).click()
    await page.getByText(`“${itemTitle}” added.`, { exact: false }).waitFor()
    await page.getByRole('table', { name: 'Items of this report' }).getByRole('link', { name: itemTitle, exact: true }).click()

    await expectScreen(page, new RegExp(`^#\\d+ ${itemTitle}$`))
    const itemPath = new URL(page.url()).pathname
    expect(itemPath).toMatch(/^\/items\/[0-9a-f-]{36}$/)
    await page.getByText(`Next action: Waiting on ${DEMO.user.displayName}`, { exact: true }).waitFor()
    await page.getByRole('heading', { name: 'No responses yet' }).waitFor()

    await page.getByLabel('Your response').fill('Skirting replaced and painted.')
    await page.getByLabel('Ask to close this item').check()
    await page.getByRole('button', { name: 'Send response' }).click()
    await page.getByText('Response sent, and the close requested. The verifier confirms it.').waitFor()
    await page.getByText(`Next action: Waiting on ${DEMO.user.displayName} to confirm the close`).waitFor()
    const thread = page.getByRole('region', { name: 'Responses' })
    await thread.getByText('Close requested', { exact: true }).waitFor()
    await thread.getByText('Skirting replaced and painted.').waitFor()
    // The creator verifies; the request-close box is gone now that the close is requested.
    expect(await page.getByLabel('Ask to close this item').count()).toBe(0)
    await checkAccessibility(page)

    await page.getByLabel('Note (optional)').fill('Checked on site.')
    await page.getByRole('button', { name: 'Confirm and close' }).click()
    await page.getByText(/^Item #\d+ is closed\.$/).waitFor()
    await page.getByRole('status').filter({ hasText: `Closed by ${DEMO.user.displayName}` }).waitFor()
    await thread.getByText('Close confirmed', { exact: true }).waitFor()
    expect(await page.getByRole('button', { name: 'Send response' }).count()).toBe(0)
    await page.getByRole('button', { name: 'Reopen item' }).waitFor()
    await checkAccessibility(page)

    await page.getByRole('link', { name: 'Activity', exact: true }).click()
    await expectScreen(page, /^Activity of item #\d+$/)
    expect(new URL(page.url()).pathname).toBe(`${itemPath}/activity`)
    const entries = page.getByRole('main').getByRole('listitem')
    await entries.filter({ hasText: `${DEMO.user.displayName} recorded the item` }).filter({ hasText: `Title: ${itemTitle}` }).waitFor()
    await entries.filter({ hasText: `Assignee: ${DEMO.user.displayName}` }).first().waitFor()
    await entries.filter({ hasText: 'asked to close the item' }).filter({ hasText: /Status:\s*Open\s*→\s*to\s*Close requested/ }).first().waitFor()
    await entries.filter({ hasText: 'closed the item' }).filter({ hasText: /Status:\s*Close requested\s*→\s*to\s*Closed/ }).first().waitFor()
    await page.getByRole('link', { name: 'Back to the item' }).click()
    await expectScreen(page, new RegExp(`^#\\d+ ${itemTitle}$`))
    assertNoConsoleErrors()
  }, bound(120_000))

  test('the verifier rejects a close with a reason: the item is open again and the reason is in the thread and the activity', async () => {
    const { page, assertNoConsoleErrors } = await journey()
    const title = unique('Loose handrail')
    const { items } = await reportWithItems([{ title, priority: 'high' }])
    const item = items[0]!
    await page.goto(`/items/${item.id}`)
    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, `#${item.number} ${title}`)

    await page.getByLabel('Your response').fill('Handrail fixings tightened.')
    await page.getByLabel('Ask to close this item').check()
    await page.getByRole('button', { name: 'Send response' }).click()
    await page.getByText(`Next action: Waiting on ${DEMO.user.displayName} to confirm the close`).waitFor()

    // A rejection needs its reason: the browser says so, and the server too.
    if (!javaScript) await page.locator('form#reject-close').evaluate((form) => form.setAttribute('novalidate', ''))
    await page.getByRole('button', { name: 'Reject close' }).click()
    await page.getByText('Give the reason, so the assignee knows what is still to do.').waitFor()
    expect(await page.getByLabel('Reason').getAttribute('aria-invalid')).toBe('true')
    await checkAccessibility(page)

    await page.getByLabel('Reason').fill('Still moves at the second post.')
    await page.getByRole('button', { name: 'Reject close' }).click()
    await page.getByText(`Item #${item.number} is open again; the reason is in the thread.`).waitFor()
    await page.getByText(`Next action: Waiting on ${DEMO.user.displayName}`, { exact: true }).waitFor()
    const thread = page.getByRole('region', { name: 'Responses' })
    const rejection = thread.getByRole('listitem').filter({ hasText: 'Close rejected' })
    await rejection.getByText('Reason: Still moves at the second post.').waitFor()
    expect(await thread.getByRole('listitem').count()).toBe(2)
    await page.getByLabel('Ask to close this item').waitFor()
    await checkAccessibility(page)

    await page.getByRole('link', { name: 'Activity', exact: true }).click()
    await expectScreen(page, `Activity of item #${item.number}`)
    const reopened = page.getByRole('main').getByRole('listitem').filter({ hasText: 'reopened the item' })
    await reopened.filter({ hasText: /Close requested\s*→\s*to\s*Open/ }).waitFor()
    // The reason is part of the activity entry, not only of the thread.
    await reopened.getByText('Reason: Still moves at the second post.').waitFor()
    await checkAccessibility(page)
    assertNoConsoleErrors()
  }, bound(90_000))

  test('filters and grouping change the list and live in the URL; a saved view is saved, applied and deleted', async () => {
    const { page, assertNoConsoleErrors } = await journey()
    const api = await apiAs(DEMO.user.email, DEMO.user.password)
    const waiting = await api.call<ListPage<Item>>('GET', '/api/items/outstanding?status=close_requested&limit=100')
    expect(waiting.items.length).toBeGreaterThan(0)
    await page.goto('/items?verifier=me')
    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, 'Items')
    // The dashboard's "waiting for my confirmation": close requests on items I recorded.
    const mine = waiting.items.filter((item) => item.createdBy?.displayName === DEMO.user.displayName)
    const boxes = page.getByRole('checkbox', { name: /^Select item #/ })
    expect(await boxes.count()).toBe(mine.length)
    for (const item of mine) await page.getByRole('checkbox', { name: `Select item #${item.number}: ${item.title}` }).waitFor()

    await page.goto('/items')
    await expectScreen(page, 'Items')
    await open(page, 'Filter and display')
    const filters = page.getByRole('group', { name: 'Filters' })
    await filters.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Close requested' })
    await page.getByRole('combobox', { name: 'Group by' }).selectOption({ label: 'Project' })
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page.waitForURL((url) => url.searchParams.get('status') === 'close_requested')
    await expectScreen(page, 'Items')
    expect(searchOf(page).get('group')).toBe('project')
    // With JavaScript the address changes before React draws the list it names: poll the list.
    await expect.poll(() => boxes.count(), { timeout: 10_000 }).toBe(waiting.items.length)
    // One heading per project, with its count, and the counts add up to the list.
    const projects = new Set(waiting.items.map((i) => i.projectId))
    const headings = page.getByRole('heading', { level: 2, name: /\d+ items?$/ }).filter({ visible: true })
    expect(await headings.count()).toBe(projects.size)
    const counts = (await headings.allTextContents()).map((text) => Number(/(\d+) items?$/.exec(text)?.[1]))
    expect(counts.reduce((a, b) => a + b, 0)).toBe(waiting.items.length)

    // Saved as a personal view, with the filters and grouping of the URL.
    const viewName = unique('Waiting for sign-off')
    await open(page, 'Saved views')
    await page.getByLabel('View name').fill(viewName)
    await page.getByLabel('Who sees it').selectOption({ label: 'Only me' })
    await page.getByRole('button', { name: 'Save view' }).click()
    await page.getByText(`View “${viewName}” saved.`, { exact: false }).waitFor()
    expect(searchOf(page).get('status')).toBe('close_requested')

    // Removing the filter changes the list; the view brings it back.
    await page.getByRole('link', { name: 'Remove filter Status: Close requested' }).click()
    await page.waitForURL((url) => !url.searchParams.has('status'))
    await expectScreen(page, 'Items')
    await expect.poll(() => boxes.count(), { timeout: 10_000 }).toBeGreaterThan(waiting.items.length)
    await open(page, 'Saved views')
    await page.getByRole('link', { name: viewName, exact: true }).click()
    await page.waitForURL((url) => url.searchParams.get('status') === 'close_requested')
    await expectScreen(page, 'Items')
    expect(searchOf(page).get('group')).toBe('project')
    await expect.poll(() => boxes.count(), { timeout: 10_000 }).toBe(waiting.items.length)

    await open(page, 'Saved views')
    expect(await page.getByRole('link', { name: viewName, exact: true }).getAttribute('aria-current')).toBe('page')
    await page.getByText(`Delete view “${viewName}”…`).click()
    await page.getByRole('button', { name: 'Yes, delete view' }).click()
    await page.getByText('View deleted.').waitFor()
    expect(await page.getByRole('link', { name: viewName, exact: true }).count()).toBe(0)
    await checkAccessibility(page)
    assertNoConsoleErrors()
  }, bound(90_000))

  test('a bulk action assigns three items to the demo admin, and a bulk delete asks first', async () => {
    const { page, assertNoConsoleErrors } = await journey()
    const titles = [unique('Paint run'), unique('Missing grille'), unique('Chipped sill')]
    const { report, items } = await reportWithItems(titles.map((title) => ({ title, assignee: 'user' as const })))
    await page.goto(`/items?report=${report.id}`)
    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, 'Items')
    // The bulk actions show once something is ticked (JS on and off), and on a phone the first item
    // starts within the first screen.
    expect(await page.getByLabel('With the selected items').isVisible()).toBe(false)
    if (viewport === 'phone') {
      const first = await page.getByRole('checkbox', { name: /^Select item #/ }).first().boundingBox()
      expect(first, 'the first item is drawn').not.toBeNull()
      expect(first?.y ?? Infinity).toBeLessThan(await page.evaluate(() => window.innerHeight))
    }
    for (const item of items) await page.getByRole('checkbox', { name: `Select item #${item.number}: ${item.title}` }).check()
    await page.getByLabel('With the selected items').selectOption({ label: `Assign to ${DEMO.admin.displayName}` })
    await page.getByRole('button', { name: 'Apply to selected' }).click()
    await page.getByText(`3 items assigned to ${DEMO.admin.displayName}.`).waitFor()
    expect(searchOf(page).get('report')).toBe(report.id)
    for (const title of titles) {
      const entry = entryOf(page, title)
      await entry.getByText(DEMO.admin.displayName, { exact: true }).waitFor()
      expect(await entry.getByText(DEMO.user.displayName, { exact: true }).count()).toBe(0)
    }
    // The selection starts empty again.
    expect(await page.getByRole('checkbox', { name: /^Select item #/, checked: true }).count()).toBe(0)
    await checkAccessibility(page)

    const doomed = items[2]!
    await page.getByRole('checkbox', { name: `Select item #${doomed.number}: ${doomed.title}` }).check()
    await page.getByLabel('With the selected items').selectOption({ label: 'Delete' })
    if (javaScript) {
      page.once('dialog', (dialog) => void dialog.accept())
      await page.getByRole('button', { name: 'Apply to selected' }).click()
    } else {
      await page.getByRole('button', { name: 'Apply to selected' }).click()
      const confirmation = page.getByRole('status').filter({ hasText: 'Delete the selected item?' })
      await confirmation.getByText(`#${doomed.number} ${doomed.title}`).waitFor()
      await checkAccessibility(page)
      await page.getByRole('button', { name: 'Yes, delete the item' }).click()
    }
    await page.getByText('1 item deleted.').waitFor()
    // The notice comes early in the streamed page: wait for the list after it before counting.
    await page.getByRole('checkbox', { name: `Select item #${items[0]!.number}: ${items[0]!.title}` }).waitFor()
    expect(await entryOf(page, doomed.title).count()).toBe(0)
    expect(await page.getByRole('checkbox', { name: /^Select item #/ }).count()).toBe(2)
    assertNoConsoleErrors()
  }, bound(90_000))

  test('comparing two items shows them side by side with the differing fields marked', async () => {
    const { page, assertNoConsoleErrors } = await journey()
    const { report, items } = await reportWithItems([
      { title: unique('Damp patch'), priority: 'high', assignee: 'user' },
      { title: unique('Damp patch'), priority: 'low', assignee: 'admin' },
    ])
    const [first, second] = [items[0]!, items[1]!]
    await page.goto(`/items?report=${report.id}`)
    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, 'Items')

    // One item is not a comparison.
    await page.getByRole('checkbox', { name: `Select item #${first.number}: ${first.title}` }).check()
    await page.getByRole('button', { name: 'Compare selected' }).click()
    await page.getByText('Select 2 to 5 items to compare.').waitFor()

    await page.getByRole('checkbox', { name: `Select item #${first.number}: ${first.title}` }).check()
    await page.getByRole('checkbox', { name: `Select item #${second.number}: ${second.title}` }).check()
    await page.getByRole('button', { name: 'Compare selected' }).click()
    await page.getByRole('heading', { level: 2, name: 'Comparing 2 items' }).waitFor()
    expect(searchOf(page).get('compare')?.split(',').sort()).toEqual([first.id, second.id].sort())
    expect(searchOf(page).get('report')).toBe(report.id)
    await page.getByText(/ fields differ: Title, Priority, Assignee, /).waitFor()
    const table = page.getByRole('table', { name: 'Compared items' })
    for (const field of ['Title', 'Priority', 'Assignee']) {
      await table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: field }) }).getByText('Differs', { exact: true }).waitFor()
    }
    for (const field of ['Status', 'Project', 'Report']) {
      expect(await table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: field, exact: true }) }).getByText('Differs').count()).toBe(0)
    }
    const priority = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /^Priority/ }) })
    // One column per item, headed by its number.
    const headers = await table.getByRole('columnheader').allTextContents()
    const cells = await priority.getByRole('cell').allTextContents()
    expect(headers.slice(1).map((header, index) => [header, cells[index]]).sort()).toEqual(
      [
        [`#${first.number}`, 'High'],
        [`#${second.number}`, 'Low'],
      ].sort(),
    )
    await checkAccessibility(page)

    await page.getByRole('link', { name: 'Close comparison' }).click()
    await page.getByRole('heading', { name: 'Comparing 2 items' }).waitFor({ state: 'detached' })
    expect(searchOf(page).has('compare')).toBe(false)
    expect(searchOf(page).get('report')).toBe(report.id)

    // An id that is not (or no longer) an item of ours is the not-found screen, not an empty page.
    await page.goto('/items/00000000-0000-4000-8000-000000000000')
    await page.getByText('The requested resource was not found.').waitFor()
    assertNoConsoleErrors()
  }, bound(90_000))
})
