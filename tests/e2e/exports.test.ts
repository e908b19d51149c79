import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { parse } from 'csv-parse/sync'
import { promisify } from 'node:util'
import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import type { Project, Report } from '~/lib/reporting/types'
import { launchBrowser, newJourneyContext, startPortal, type Portal, type Viewport } from './harness'
import sharp from 'sharp'
import { demoUserApi, expectScreen, JOURNEY_VARIANTS, openDocumentsLink, openMainDestination, signIn } from './steps'

/**
 * Exports (docs/exports.md): from the dashboard to Items, filtered to one project and grouped by
 * status, a person downloads the punch list PDF and the Excel file of what the screen lists, and
 * both are read back with real readers (pdftotext, exceljs); then, from the report, the report PDF
 * with the photo of its first item (pdfimages). A report larger than the limit (EXPORT_JOB_ITEMS,
 * made small here) is prepared as a job: its progress page ends in a download link, live through
 * the hub with JavaScript and by refreshing itself without, and is listed in My exports (from the
 * account menu) with its download. So are a document register and a project's transmittals
 * larger than the limit, from their screens. JavaScript on and off, desktop and phone.
 */

const run = promisify(execFile)

let portal: Portal
let browser: Browser

/** A report of more items than this is exported as a job (docs/exports.md "Large exports as a job"): small, so a journey can make one. */
const JOB_ITEMS = 3

beforeAll(async () => {
  portal = await startPortal({ env: { EXPORT_JOB_ITEMS: String(JOB_ITEMS), EXPORT_JOB_PHOTOS: '1' } })
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await portal?.stop()
})

/** The demo user's project with items named in several scripts, made through the running portal's API. */
async function projectWithItems(titles: string[], reportTitle: string) {
  const jar = new Map<string, string>()
  let csrf: string | undefined
  async function call<T>(method: string, path: string, body?: unknown, allowFailure = false): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') }
    const bytes = body instanceof Uint8Array
    if (body !== undefined) headers['content-type'] = bytes ? 'application/octet-stream' : 'application/json'
    if (csrf) headers['X-CSRF-Token'] = csrf
    const response = await fetch(`${portal.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : bytes ? (body as BodyInit) : JSON.stringify(body) })
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1))
    }
    csrf = response.headers.get('x-csrf-token') ?? csrf
    const text = await response.text()
    if (!response.ok && !allowFailure) throw new Error(`${method} ${path} answered ${response.status}: ${text}`)
    return (text ? JSON.parse(text) : null) as T
  }
  await call('GET', '/auth/session', undefined, true)
  await call('POST', '/auth/login', { email: DEMO.user.email, password: DEMO.user.password })
  const project = await call<Project>('POST', '/api/projects', { title: `Export Yard ${randomBytes(3).toString('hex')}` })
  const report = await call<Report>('POST', '/api/reports', { projectId: project.id, title: reportTitle })
  const items: Array<{ id: string }> = []
  for (const title of titles) items.push(await call<{ id: string }>('POST', `/api/reports/${report.id}/items`, { title }))
  // A photo of the first item, through the resumable upload as the item's page sends it.
  const photo = await sharp({ create: { width: 160, height: 120, channels: 3, background: '#00a000' } })
    .jpeg()
    .toBuffer()
  const session = await call<{ id: string }>('POST', `/api/items/${items[0]?.id}/uploads`, { fileName: 'crack.jpg', size: photo.length, contentType: 'image/jpeg' })
  await call('PUT', `/api/uploads/${session.id}/chunk?offset=0`, new Uint8Array(photo))
  await call('POST', `/api/uploads/${session.id}/complete`)
  return project
}

/** Sam, the demo site user, signed in from the start page, on the dashboard (the shell drawn, so its bar can be used). */
async function samOnTheDashboard(javaScript: boolean, viewport: Viewport) {
  const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
  onTestFinished(() => j.close())
  await j.page.goto('/')
  await signIn(j.page, DEMO.user.email, DEMO.user.password)
  await expectScreen(j.page, 'Dashboard')
  return j
}

/** On the items screen, by its filter form: the project's items, grouped if asked. */
async function filterByProject(page: Page, title: string, options: { groupBy?: string } = {}) {
  await page.locator('summary', { hasText: 'Filter and display' }).click()
  await page.getByRole('group', { name: 'Filters' }).getByLabel('Project').selectOption({ label: title })
  if (options.groupBy) await page.getByLabel('Group by').selectOption({ label: options.groupBy })
  await page.getByRole('button', { name: 'Apply filters' }).click()
  await page.waitForURL(/project=/)
}

/** The titles in an Excel file's second column, below its header. */
async function excelTitles(file: string): Promise<string[]> {
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.readFile(file)
  const rows: string[] = []
  workbook.worksheets[0]?.eachRow((row, index) => {
    if (index > 1) rows.push(String(row.getCell(2).value))
  })
  return rows.sort()
}

// On a phone the list's automatic layout draws the table's rows as cards; the title is looked for
// among what is visible.
describe.each(JOURNEY_VARIANTS)('$name', ({ javaScript, viewport }) => {
  test('a punch list PDF and an Excel file of the filtered items from the items screen, and the report PDF with its photo from the report', async () => {
    const suffix = randomBytes(2).toString('hex')
    const titles = [`Zoë Ørsted ${suffix}`, `Łukasz Wróbel ${suffix}`, `山田 太郎 ${suffix}`]
    const reportTitle = `Handover walk ${suffix}`
    const project = await projectWithItems(titles, reportTitle)
    const { page, assertNoConsoleErrors } = await samOnTheDashboard(javaScript, viewport)
    await openMainDestination(page, 'Items')
    await expectScreen(page, 'Items')
    await filterByProject(page, project.title ?? '', { groupBy: 'Status' })
    await page
      .getByText(titles[0] as string)
      .filter({ visible: true })
      .first()
      .waitFor()

    const [pdf] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Punch list PDF' }).click()])
    expect(pdf.suggestedFilename()).toMatch(/^punch-list-\d{4}-\d{2}-\d{2}\.pdf$/)
    const { stdout: text } = await run('pdftotext', ['-enc', 'UTF-8', (await pdf.path()) as string, '-'])
    for (const title of titles) expect(text).toContain(title)
    expect(text).toContain('Open (3)')
    expect(text).toContain(`Project: ${project.title}`)

    const [xlsx] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export Excel' }).click()])
    expect(xlsx.suggestedFilename()).toMatch(/^items-\d{4}-\d{2}-\d{2}\.xlsx$/)
    expect(await excelTitles((await xlsx.path()) as string)).toEqual([...titles].sort())
    await expectScreen(page, 'Items')

    // The report PDF, from the report's page: every item, and the first item's photo.
    await openMainDestination(page, 'Reports')
    await expectScreen(page, 'Reports')
    await page.getByRole('link', { name: reportTitle }).filter({ visible: true }).first().click()
    await expectScreen(page, reportTitle)
    const [report] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Report PDF' }).click()])
    expect(report.suggestedFilename()).toMatch(/^report-\d{4}-\d{2}-\d{2}\.pdf$/)
    const reportFile = (await report.path()) as string
    const { stdout: reportText } = await run('pdftotext', ['-enc', 'UTF-8', reportFile, '-'])
    for (const title of [reportTitle, ...titles]) expect(reportText).toContain(title)
    expect(reportText).toContain('Photo 1 · crack.jpg')
    const { stdout: images } = await run('pdfimages', ['-list', reportFile])
    expect(images.trim().split('\n').slice(2).filter((line) => / image /.test(line))).toHaveLength(1)
    assertNoConsoleErrors()
  })

  test('a report larger than the limit is prepared as a job: its progress page ends in a download link, and My exports lists it', async () => {
    const suffix = randomBytes(2).toString('hex')
    const titles = Array.from({ length: JOB_ITEMS + 1 }, (_, i) => `Snag ${i + 1} ${suffix}`)
    const reportTitle = `Large walk ${suffix}`
    await projectWithItems(titles, reportTitle)
    const { page, assertNoConsoleErrors } = await samOnTheDashboard(javaScript, viewport)
    await openMainDestination(page, 'Reports')
    await expectScreen(page, 'Reports')
    await page.getByRole('link', { name: reportTitle }).filter({ visible: true }).first().click()
    await expectScreen(page, reportTitle)
    // Too large to stream: no download link, a form that starts the job.
    expect(await page.getByRole('link', { name: 'Report PDF' }).count()).toBe(0)
    const form = page.getByRole('form', { name: 'Report PDF' })
    await form.getByText(`${JOB_ITEMS + 1} items, 1 photo: prepared in the background`).waitFor()
    await form.getByLabel('E-mail me when it is ready').check()
    await form.getByRole('button', { name: 'Report PDF' }).click()
    await page.waitForURL(/\/exports\/[0-9a-f-]{36}\?follow=1$/)
    await expectScreen(page, `Report PDF: ${reportTitle}`)
    await page.getByRole('progressbar', { name: 'Export prepared' }).waitFor()

    // The job runs on the server; the page follows it (the hub with script, a refresh every 2 s without) to its end.
    const download = page.getByRole('link', { name: 'Download PDF' })
    await download.waitFor({ timeout: 60_000 })
    expect(await page.getByRole('progressbar', { name: 'Export prepared' }).getAttribute('value')).toBe('100')
    await page.getByRole('status').getByText(/^Ready, /).waitFor()
    const [file] = await Promise.all([page.waitForEvent('download'), download.click()])
    expect(file.suggestedFilename()).toMatch(/^report-\d{4}-\d{2}-\d{2}\.pdf$/)
    const { stdout: text } = await run('pdftotext', ['-enc', 'UTF-8', (await file.path()) as string, '-'])
    for (const title of [reportTitle, ...titles]) expect(text).toContain(title)

    // My exports, from the account menu: the job is listed, ready, with its size, the link's end and the download.
    await page.locator('summary', { hasText: `Account menu for ${DEMO.user.displayName}` }).click()
    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'My exports' }).click()
    await expectScreen(page, 'My exports')
    const jobTitle = `Report PDF: ${reportTitle}`
    const row = page.getByRole('list', { name: 'My exports' }).getByRole('listitem').filter({ hasText: jobTitle })
    await row.getByText('Ready', { exact: true }).waitFor()
    await row.getByText(/^Link works until /).waitFor()
    const [listed] = await Promise.all([page.waitForEvent('download'), row.getByRole('link', { name: `Download PDF: ${jobTitle}` }).click()])
    expect(listed.suggestedFilename()).toMatch(/^report-\d{4}-\d{2}-\d{2}\.pdf$/)
    if (viewport === 'phone') {
      // The narrowest phone the portal is laid out for: nothing wider than the screen.
      await page.setViewportSize({ width: 360, height: 740 })
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
    }
    await row.getByRole('link', { name: jobTitle, exact: true }).click()
    await expectScreen(page, jobTitle)
    assertNoConsoleErrors()
  })

  test('a spreadsheet of more items than the limit is prepared as a job from the items screen and ends in an Excel download', async () => {
    const suffix = randomBytes(2).toString('hex')
    const titles = Array.from({ length: JOB_ITEMS + 1 }, (_, i) => `Kerb ${i + 1} ${suffix}`)
    const project = await projectWithItems(titles, `Kerb walk ${suffix}`)
    const { page, assertNoConsoleErrors } = await samOnTheDashboard(javaScript, viewport)
    await openMainDestination(page, 'Items')
    await expectScreen(page, 'Items')
    await filterByProject(page, project.title ?? '')
    // Too large to stream: no download links, one form whose buttons start the chosen export as a job.
    const form = page.getByRole('form', { name: 'Export items' })
    await form.getByText(`${JOB_ITEMS + 1} items: prepared in the background`).waitFor()
    expect(await page.getByRole('link', { name: 'Export Excel' }).count()).toBe(0)
    if (viewport === 'phone') {
      // Three buttons, the choice of a mail and a line of text in the screen's header: on the narrowest phone, nothing wider than the screen.
      await page.setViewportSize({ width: 360, height: 740 })
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
    }
    await form.getByRole('button', { name: 'Export Excel' }).click()
    await page.waitForURL(/\/exports\/[0-9a-f-]{36}\?follow=1$/)
    await expectScreen(page, `Items (Excel): Project: ${project.title}`)

    const download = page.getByRole('link', { name: 'Download Excel' })
    await download.waitFor({ timeout: 60_000 })
    expect(await page.getByRole('progressbar', { name: 'Export prepared' }).getAttribute('value')).toBe('100')
    const [file] = await Promise.all([page.waitForEvent('download'), download.click()])
    expect(file.suggestedFilename()).toMatch(/^items-\d{4}-\d{2}-\d{2}\.xlsx$/)
    expect(await excelTitles((await file.path()) as string)).toEqual([...titles].sort())
    assertNoConsoleErrors()
  })

  test('a document register and the transmittals of a project, each more than the limit, are prepared as jobs from their screens and end in a download', async () => {
    const { call } = await demoUserApi(portal.baseUrl)
    const code = `R${randomBytes(2).toString('hex').toUpperCase()}`
    const project = await call<Project>('POST', '/api/projects', { title: `Register Yard ${randomBytes(3).toString('hex')}`, code })
    const titles = Array.from({ length: JOB_ITEMS + 1 }, (_, i) => `Level ${i + 1} plan, Zoë Ørsted`)
    for (const [i, title] of titles.entries()) {
      await call('POST', `/api/projects/${project.id}/documents`, { number: `${code}-ARC-ZZ-01-DR-A-00${10 + i}`, title })
      await call('POST', `/api/projects/${project.id}/transmittals`, { subject: `Issue ${i + 1} for ${title}` })
    }
    const { page, assertNoConsoleErrors } = await samOnTheDashboard(javaScript, viewport)
    await openMainDestination(page, 'Documents')
    await expectScreen(page, 'Documents')
    const picker = page.getByRole('form', { name: 'Choose a project' })
    await picker.getByLabel('Project').selectOption({ label: project.title ?? '' })
    await picker.getByRole('button', { name: 'Open project' }).click()
    await page.getByRole('heading', { level: 2, name: project.title ?? '' }).waitFor()
    // Too large to stream: no download links, one form whose buttons start the chosen format as a job.
    const form = page.getByRole('form', { name: 'Export the register' })
    await form.getByText(`${JOB_ITEMS + 1} documents: prepared in the background`).waitFor()
    expect(await page.getByRole('link', { name: 'Register CSV' }).count()).toBe(0)
    if (viewport === 'phone') {
      await page.setViewportSize({ width: 360, height: 740 })
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
    }
    await form.getByRole('button', { name: 'Register CSV' }).click()
    await page.waitForURL(/\/exports\/[0-9a-f-]{36}\?follow=1$/)
    await expectScreen(page, `Document register (CSV): Project: ${project.title}`)
    const download = page.getByRole('link', { name: 'Download CSV' })
    await download.waitFor({ timeout: 60_000 })
    const [file] = await Promise.all([page.waitForEvent('download'), download.click()])
    expect(file.suggestedFilename()).toMatch(/^document-register-\d{4}-\d{2}-\d{2}\.csv$/)
    const rows = parse(await readFile((await file.path()) as string, 'utf8'), { bom: true }) as string[][]
    expect(rows.slice(1).map((row) => row[1]).sort()).toEqual([...titles].sort())
    // Back to the register it was started from, by the progress page's link.
    await page.getByRole('link', { name: 'Back to where it was started' }).click()
    await page.getByRole('heading', { level: 2, name: project.title ?? '' }).waitFor()

    // The project's transmittals (drafts, one row each), from the documents screen's links.
    await openDocumentsLink(page, viewport, /^Transmittals$/)
    await expectScreen(page, 'Transmittals')
    const transmittals = page.getByRole('form', { name: 'Export transmittals' })
    await transmittals.getByText(`${JOB_ITEMS + 1} transmittals: prepared in the background`).waitFor()
    // The phone is still at 360 px: the screen's header with the job form fits it.
    if (viewport === 'phone') expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
    await transmittals.getByRole('button', { name: 'Export Excel' }).click()
    await page.waitForURL(/\/exports\/[0-9a-f-]{36}\?follow=1$/)
    await expectScreen(page, `Transmittals (Excel): Project: ${project.title}`)
    const excel = page.getByRole('link', { name: 'Download Excel' })
    await excel.waitFor({ timeout: 60_000 })
    const [sheet] = await Promise.all([page.waitForEvent('download'), excel.click()])
    expect(sheet.suggestedFilename()).toMatch(/^transmittals-\d{4}-\d{2}-\d{2}\.xlsx$/)
    expect(await excelTitles((await sheet.path()) as string)).toEqual(titles.map((title, i) => `Issue ${i + 1} for ${title}`).sort())
    assertNoConsoleErrors()
  })
})
