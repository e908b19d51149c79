import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { checkAccessibility, launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { enterAdminCode, expectScreen, JOURNEY_VARIANTS, openMainDestination, pathOf, signIn } from './steps'

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

/** The text of the error a field's aria-describedby points at. */
async function errorOf(page: Page, label: string, scope = page.locator('body')): Promise<string> {
  const describedBy = (await scope.getByLabel(label, { exact: true }).getAttribute('aria-describedby')) ?? ''
  const errorId = describedBy.split(' ').find((id) => id.endsWith('-error'))
  if (!errorId) return ''
  return (await page.locator(`[id="${errorId}"]`).textContent()) ?? ''
}

describe.each(JOURNEY_VARIANTS)('$name', ({ javaScript, viewport }) => {
  async function journey() {
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    return j
  }

  test('a site user creates a project, renames it, creates a report in it and records an item', async () => {
    const { page, assertNoConsoleErrors } = await journey()
    const projectName = unique('Harbour Works')
    await page.goto('/projects')
    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, 'Projects')
    // A read-write member creates and renames; archiving is for administrators only.
    expect(await page.getByText('Archive…').count()).toBe(0)

    const newProject = page.getByRole('region', { name: 'New project' })
    await newProject.getByLabel('Title').fill(projectName)
    await newProject.getByLabel('Code (optional)').fill('HW-01')
    await newProject.getByRole('button', { name: 'Create project' }).click()
    await page.getByText(`Project “${projectName}” created.`).waitFor()
    const active = page.getByRole('table', { name: 'Active projects' })
    await active.getByRole('link', { name: projectName, exact: true }).waitFor()
    expect(await active.locator('tr', { hasText: projectName }).getByText('HW-01', { exact: true }).count()).toBe(1)
    await checkAccessibility(page)

    await page.getByRole('link', { name: `Rename ${projectName}` }).click()
    const renameForm = page.getByRole('form', { name: `Rename “${projectName}”` })
    await renameForm.waitFor()
    await checkAccessibility(page)
    const renamed = `${projectName} phase 2`
    await renameForm.getByLabel('Title').fill(renamed)
    await renameForm.getByRole('button', { name: 'Save changes' }).click()
    await page.getByText(`Project saved as “${renamed}”.`).waitFor()
    await active.getByRole('link', { name: renamed, exact: true }).waitFor()
    expect(await renameForm.count()).toBe(0)
    expect(pathOf(page)).toBe('/projects')

    // A report in it, from /reports.
    await openMainDestination(page, 'Reports')
    await expectScreen(page, 'Reports')
    const reportName = unique('Level 2 walk-through')
    const newReport = page.getByRole('region', { name: 'New report' })
    await newReport.getByLabel('Project').selectOption({ label: renamed })
    await newReport.getByLabel('Title').fill(reportName)
    await newReport.getByRole('button', { name: 'Create report' }).click()
    await expectScreen(page, reportName)
    await page.getByText(`Report “${reportName}” created.`, { exact: false }).waitFor()
    expect(pathOf(page)).toMatch(/^\/reports\/[0-9a-f-]{36}$/)
    await page.getByRole('link', { name: renamed, exact: true }).waitFor()
    await page.getByRole('heading', { name: 'No items yet' }).waitFor()

    // An item: first without a title (the error sits by the field, the rest is kept), then right.
    const addItem = page.getByRole('region', { name: 'Add item' })
    await addItem.getByLabel('Description (optional)').fill('Water stain on the ceiling behind the north stair door.')
    await addItem.getByLabel('Priority').selectOption('high')
    await addItem.getByLabel('Assignee (optional)').selectOption({ label: DEMO.user.displayName })
    await addItem.getByLabel('Package (optional)').selectOption({ index: 1 })
    const packageKey = await addItem.getByLabel('Package (optional)').inputValue()
    await addItem.getByLabel('Due date (optional)').fill('2031-03-14')
    await addItem.getByLabel('Location (optional)').fill('Level 2, north stair')
    // Without script the browser's own check stops an empty title; check the server's too.
    if (!javaScript) await addItem.locator('form').evaluate((form) => form.setAttribute('novalidate', ''))
    await addItem.getByRole('button', { name: 'Add item' }).click()
    await addItem.getByText('Enter a title.').waitFor()
    expect(await errorOf(page, 'Title', addItem)).toContain('Enter a title.')
    expect(await addItem.getByLabel('Title').getAttribute('aria-invalid')).toBe('true')
    expect(await addItem.getByLabel('Description (optional)').inputValue()).toBe('Water stain on the ceiling behind the north stair door.')
    expect(await addItem.getByLabel('Priority').inputValue()).toBe('high')
    expect(await addItem.getByLabel('Package (optional)').inputValue()).toBe(packageKey)
    expect(await addItem.getByLabel('Due date (optional)').inputValue()).toBe('2031-03-14')
    expect(await addItem.getByLabel('Location (optional)').inputValue()).toBe('Level 2, north stair')
    expect(await addItem.getByLabel('Assignee (optional)').locator('option:checked').textContent()).toBe(DEMO.user.displayName)
    await checkAccessibility(page)

    const itemTitle = unique('Ceiling stain')
    await addItem.getByLabel('Title').fill(itemTitle)
    await addItem.getByRole('button', { name: 'Add item' }).click()
    await page.getByText(`“${itemTitle}” added.`, { exact: false }).waitFor()
    const items = page.getByRole('table', { name: 'Items of this report' })
    const itemLink = items.getByRole('link', { name: itemTitle, exact: true })
    await itemLink.waitFor()
    expect(await itemLink.getAttribute('href')).toMatch(/^\/items\/[0-9a-f-]{36}$/)
    const itemRow = items.locator('tr', { hasText: itemTitle })
    for (const text of ['Open', 'High', DEMO.user.displayName]) expect(await itemRow.getByText(text, { exact: true }).count()).toBe(1)
    // The form starts empty again for the next item.
    expect(await addItem.getByLabel('Title').inputValue()).toBe('')
    await checkAccessibility(page)

    // The project's reports list the new one with its items by state.
    await page.getByRole('link', { name: renamed, exact: true }).click()
    await expectScreen(page, 'Reports')
    const reports = page.getByRole('table', { name: `Reports of ${renamed}` })
    const reportRow = reports.locator('tr', { hasText: reportName })
    await reportRow.waitFor()
    for (const count of ['1 open', '0 close requested', '0 closed']) expect(await reportRow.getByText(count, { exact: true }).count()).toBe(1)
    expect(await reports.getByRole('row').count()).toBe(2)
    assertNoConsoleErrors()
  })

  test('the reports filter and the projects status filter live in the URL', async () => {
    const { page, assertNoConsoleErrors } = await journey()
    await page.goto('/reports?status=archived')
    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, 'Reports')
    const filter = page.getByRole('form', { name: 'Filter reports' })
    expect(await filter.getByLabel('Status').inputValue()).toBe('archived')
    await filter.getByLabel('Status').selectOption('active')
    await filter.getByRole('button', { name: 'Show reports' }).click()
    await page.waitForURL((url) => url.searchParams.get('status') === 'active')
    await page.getByRole('table', { name: 'Reports', exact: true }).waitFor()
    await checkAccessibility(page)

    await page.goto('/projects?status=archived')
    await expectScreen(page, 'Projects')
    const statusNav = page.getByRole('navigation', { name: 'Project status' })
    expect(await statusNav.getByRole('link', { name: 'Archived' }).getAttribute('aria-current')).toBe('page')
    assertNoConsoleErrors()
  })

  test('the projects list pages forward and back by cursor, each page at its own address', async () => {
    const { page, context, assertNoConsoleErrors } = await journey()
    await page.goto('/projects')
    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, 'Projects')
    // More than a page (25) of projects, through the API as an island would call it.
    const tag = unique('Paging')
    const csrf = (await context.cookies()).find((cookie) => cookie.name.endsWith('sp_csrf'))?.value ?? ''
    for (let n = 1; n <= 26; n++) {
      const response = await page.request.post('/api/projects', {
        headers: { 'X-CSRF-Token': decodeURIComponent(csrf), accept: 'application/json' },
        data: { title: `${tag} ${String(n).padStart(2, '0')}` },
      })
      expect(response.status()).toBe(201)
    }
    await page.goto('/projects')
    const active = page.getByRole('table', { name: 'Active projects' })
    await active.getByRole('link', { name: `${tag} 26`, exact: true }).waitFor()
    expect(await active.getByRole('link', { name: `${tag} 01`, exact: true }).count()).toBe(0)
    const paging = page.getByRole('navigation', { name: 'Projects pages' })
    await paging.getByText('Page 1').waitFor()

    await paging.getByRole('link', { name: 'Next' }).click()
    await active.getByRole('link', { name: `${tag} 01`, exact: true }).waitFor()
    await paging.getByText('Page 2').waitFor()
    expect(new URL(page.url()).searchParams.get('after')).toBeTruthy()
    await checkAccessibility(page)

    await paging.getByRole('link', { name: 'Previous' }).click()
    await active.getByRole('link', { name: `${tag} 26`, exact: true }).waitFor()
    expect(pathOf(page)).toBe('/projects')
    assertNoConsoleErrors()
  })

  test('an unknown report answers 404', async () => {
    const { page, assertNoConsoleErrors } = await journey()
    await page.goto('/dashboard')
    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, 'Dashboard')
    const response = await page.goto('/reports/00000000-0000-4000-8000-000000000000')
    expect(response?.status()).toBe(404)
    await expectScreen(page, 'Not found')
    assertNoConsoleErrors()
  })

  test('the dashboard shows the figures, and each leads to its /items view', async () => {
    const { page, assertNoConsoleErrors } = await journey()
    await page.goto('/dashboard')
    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, 'Dashboard')
    const figures = page.getByRole('region', { name: 'Needs attention' })
    for (const [label, path] of [
      ['Open items', '/items?status=open'],
      ['Waiting for my confirmation', '/items?status=close_requested&verifier=me'],
      ['Overdue items', '/items?overdue=true'],
      ['Assigned to me', '/items?assignee=me'],
    ] as const) {
      const link = figures.getByRole('link', { name: new RegExp(`^\\d[\\d,.\\s]* ${label}$`) })
      expect(await link.getAttribute('href')).toBe(path)
      await link.click()
      await page.waitForURL((url) => url.pathname + url.search === path)
      await page.goBack()
      await expectScreen(page, 'Dashboard')
    }
    const activity = page.getByRole('region', { name: 'Recent activity' })
    const entries = activity.getByRole('listitem')
    expect(await entries.count()).toBeGreaterThan(0)
    expect(await entries.first().locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d{2}-\d{2}T/)
    const itemLink = entries.first().getByRole('link')
    expect(await itemLink.getAttribute('href')).toMatch(/^\/items\/[0-9a-f-]{36}$/)
    assertNoConsoleErrors()
  })
})

// Archiving takes an administrator, whose sign-in takes an authentication code, each usable once.
describe.each(JOURNEY_VARIANTS)('$name', ({ javaScript, viewport }) => {
  test('an administrator archives a project after confirming, and unarchives it', async () => {
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j
    await page.goto('/projects')
    await signIn(page, DEMO.admin.email, DEMO.admin.password, { admin: true })
    await enterAdminCode(page)
    await expectScreen(page, 'Projects')

    const projectName = unique('Quay Wall')
    const newProject = page.getByRole('region', { name: 'New project' })
    await newProject.getByLabel('Title').fill(projectName)
    await newProject.getByRole('button', { name: 'Create project' }).click()
    await page.getByText(`Project “${projectName}” created.`).waitFor()

    const active = page.getByRole('table', { name: 'Active projects' })
    const row = active.locator('tr', { hasText: projectName })
    await row.getByText('Archive…').click()
    await row.getByText(`Archive “${projectName}”?`).waitFor()
    await checkAccessibility(page)
    await row.getByRole('button', { name: 'Yes, archive project' }).click()
    await page.getByText(`“${projectName}” archived.`, { exact: false }).waitFor()
    expect(await active.getByRole('link', { name: projectName, exact: true }).count()).toBe(0)

    await page.getByRole('navigation', { name: 'Project status' }).getByRole('link', { name: 'Archived' }).click()
    const archived = page.getByRole('table', { name: 'Archived projects' })
    const archivedRow = archived.locator('tr', { hasText: projectName })
    await archivedRow.waitFor()
    expect(await archivedRow.getByText('Archived', { exact: true }).count()).toBe(1)
    await checkAccessibility(page)
    await archivedRow.getByText('Unarchive…').click()
    await archivedRow.getByRole('button', { name: 'Yes, unarchive project' }).click()
    await page.getByText(`“${projectName}” is active again.`).waitFor()
    expect(pathOf(page)).toBe('/projects?status=archived')
    j.assertNoConsoleErrors()
  })
})
