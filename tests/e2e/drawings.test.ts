import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import type { DocumentDetail, ItemPin, Revision } from '~/lib/documents/types'
import type { Item, Project, Report } from '~/lib/reporting/types'
import { pngImage } from '../helpers/photos'
import { checkAccessibility, launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { type DemoCall, demoUserApi, enterAdminCode, expectScreen, JOURNEY_VARIANTS, pathOf, signIn } from './steps'

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

const hex = (bytes: number) => randomBytes(bytes).toString('hex')

/** The sheet every journey draws on: a real PNG, twice as wide as high. */
const SHEET = { width: 800, height: 400 }

type Call = DemoCall

/** Issues a revision of a document through the one-request upload, a PNG sheet. */
async function issueSheet(call: Call, documentId: string, code: string, seed: number): Promise<Revision> {
  const form = new FormData()
  form.set('code', code)
  form.set('status', 'S2')
  form.set('file', new Blob([new Uint8Array(pngImage(SHEET.width, SHEET.height, seed))], { type: 'image/png' }), `plan-${code}.png`)
  return call<Revision>('POST', `/api/documents/${documentId}/revisions`, form)
}

/** A project of its own with a drawing (P01 a sheet), a report and an item, made as the demo user. */
async function siteWithDrawing() {
  const { call } = await demoUserApi(portal.baseUrl)
  const code = `P${hex(2).toUpperCase()}`
  const project = await call<Project>('POST', '/api/projects', { title: `Harbour Quay ${hex(3)}`, code })
  const doc = await call<DocumentDetail>('POST', `/api/projects/${project.id}/documents`, { number: `${code}-ARC-Z1-02-DR-A-0001`, title: 'Level 2 plan' })
  await issueSheet(call, doc.id, 'P01', 1)
  const report = await call<Report>('POST', '/api/reports', { projectId: project.id, title: `Walk-through ${hex(2)}` })
  const item = await call<Item>('POST', `/api/reports/${report.id}/items`, { title: `Missing fire stop ${hex(2)}`, priority: 'high' })
  return { call, project, doc, item }
}

/** The text of the error a field's aria-describedby points at. */
async function errorOf(page: Page, label: string): Promise<string> {
  const describedBy = (await page.getByLabel(label, { exact: true }).getAttribute('aria-describedby')) ?? ''
  const errorId = describedBy.split(' ').find((id) => id.endsWith('-error'))
  return errorId ? ((await page.locator(`[id="${errorId}"]`).textContent()) ?? '') : ''
}

describe.each(JOURNEY_VARIANTS)('$name', ({ javaScript, viewport }) => {
  test('a user pins an item by clicking the sheet, opens it again from its pin on the drawing, confirms it after a revision and removes it', async () => {
    const { call, doc, item } = await siteWithDrawing()
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j
    const itemHeading = `#${item.number} ${item.title}`
    const pinName = `Item ${item.number}: ${item.title} (Open)`

    await page.goto(`/items/${item.id}`)
    await signIn(page, DEMO.user.email, DEMO.user.password)
    await expectScreen(page, itemHeading)
    const panel = page.getByRole('region', { name: 'Location on drawing' })
    await panel.getByText('Not pinned on a drawing yet.').waitFor()
    await panel.getByRole('link', { name: 'Pin on a drawing' }).click()

    // The project's one drawing is chosen already: click where the item is.
    await expectScreen(page, `Pin item #${item.number} on a drawing`)
    expect(await page.getByLabel('Drawing').locator('option:checked').textContent()).toBe(`${doc.number} Level 2 plan`)
    const sheet = page.getByRole('button', { name: `Sheet ${doc.number}: click where the item is` })
    // Enter on the sheet chooses no place: the way to type one is pointed at.
    await sheet.focus()
    await page.keyboard.press('Enter')
    await page.getByRole('alert').getByText('With a keyboard, give the position by numbers below.', { exact: false }).waitFor()
    await checkAccessibility(page)
    const box = await sheet.boundingBox()
    if (!box) throw new Error('the sheet is not shown')
    // At Fit the sheet has the width the screen gives it, and keeps its proportions.
    expect(box.width).toBe(viewport === 'phone' ? 320 : 1200)
    expect(box.height).toBe(box.width / 2)
    await sheet.click({ position: { x: box.width * 0.25, y: box.height * 0.75 } })
    await expectScreen(page, itemHeading)
    await page.getByText(`Item #${item.number} pinned on ${doc.number}.`).waitFor()
    await panel.getByRole('img', { name: pinName }).waitFor()
    const pin = await call<ItemPin>('GET', `/api/items/${item.id}/pin`)
    expect(pin.x).toBeCloseTo(0.25, 2)
    expect(pin.y).toBeCloseTo(0.75, 2)
    expect(pin.needsReview).toBe(false)

    // On the drawing, the pin is a link to its item.
    await panel.getByRole('link', { name: `${doc.number} Level 2 plan` }).click()
    await expectScreen(page, `${doc.number} Level 2 plan`)
    const drawing = page.getByRole('group', { name: `Sheet ${doc.number}, revision P01` })
    await page.getByRole('navigation', { name: 'Zoom' }).getByRole('link', { name: '200 %' }).click()
    await page.waitForURL(/zoom=200/)
    // With JavaScript the address changes before the new render lands: wait for it.
    await expect.poll(() => drawing.getAttribute('width')).toBe(String(SHEET.width * 2))
    await checkAccessibility(page)
    // Fit shows the whole sheet: the drawing lies within the viewer's box, which has nothing to scroll.
    await page.getByRole('navigation', { name: 'Zoom' }).getByRole('link', { name: 'Fit' }).click()
    await page.waitForURL((url) => !url.searchParams.has('zoom'))
    await expect.poll(() => drawing.getAttribute('width')).toBeNull()
    const viewer = page.getByRole('region', { name: `Sheet ${doc.number}, scrollable` })
    const [drawn, frame] = await Promise.all([drawing.locator('image').boundingBox(), viewer.boundingBox()])
    if (!drawn || !frame) throw new Error('the sheet is not shown')
    expect(drawn.x).toBeGreaterThanOrEqual(frame.x)
    expect(drawn.y).toBeGreaterThanOrEqual(frame.y)
    expect(drawn.x + drawn.width).toBeLessThanOrEqual(frame.x + frame.width + 0.5)
    expect(drawn.y + drawn.height).toBeLessThanOrEqual(frame.y + frame.height + 0.5)
    expect(await viewer.evaluate((box) => box.scrollHeight <= box.clientHeight && box.scrollWidth <= box.clientWidth)).toBe(true)
    await drawing.getByRole('link', { name: pinName }).click()
    await expectScreen(page, itemHeading)
    expect(pathOf(page)).toBe(`/items/${item.id}`)

    // A new revision of the sheet: the pin follows it, to be checked.
    await issueSheet(call, doc.id, 'P02', 2)
    await page.reload()
    await panel.getByText('The drawing was revised: check the pin is still in the right place.').waitFor()
    await checkAccessibility(page)
    await panel.getByRole('button', { name: 'Confirm pin' }).click()
    await page.getByText('Pin confirmed on revision P02.').waitFor()
    expect(await panel.getByText('The drawing was revised', { exact: false }).count()).toBe(0)

    await panel.getByText('Remove pin…').click()
    await panel.getByRole('button', { name: 'Yes, remove pin' }).click()
    await page.getByText('Pin removed from the drawing.').waitFor()
    await panel.getByText('Not pinned on a drawing yet.').waitFor()
    j.assertNoConsoleErrors()
  })
})

// The overlay takes an administrator, whose sign-in takes an authentication code, each usable once.
describe.each(JOURNEY_VARIANTS)('$name', ({ javaScript, viewport }) => {
  test('an administrator turns a project’s sheet and gives the project its own pin colour; an item pinned on the turned sheet lands where it was clicked', async () => {
    const { call, project, doc, item } = await siteWithDrawing()
    const j = await newJourneyContext(browser, { javaScript, viewport, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j
    await page.goto('/admin/drawings-overlay')
    await signIn(page, DEMO.admin.email, DEMO.admin.password, { admin: true })
    await enterAdminCode(page)
    await expectScreen(page, 'Drawings overlay')
    await page.getByRole('link', { name: project.title ?? '' }).click()
    await expectScreen(page, `Drawings of ${project.title}`)

    const sheets = page.getByRole('table', { name: 'Sheets' })
    await sheets.getByText(doc.number, { exact: true }).waitFor()
    await page.getByLabel('Colours', { exact: true }).selectOption('project')
    await page.getByLabel('Open: or type a hex code').fill('#12')
    await page.getByLabel(`Rotation of ${doc.number}`).selectOption('90')
    await page.getByLabel(`Scale of ${doc.number}`).fill('1:100')
    // Without script the browser's own check stops the wrong code; check the server's too.
    if (!javaScript) await page.locator('form#project-overlay').evaluate((form) => form.setAttribute('novalidate', ''))
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await page.getByText('Give a colour as # and six hex digits, e.g. #D92D20.').waitFor()
    expect(await errorOf(page, 'Open: or type a hex code')).toContain('six hex digits')
    expect(await page.getByLabel('Open: or type a hex code').inputValue()).toBe('#12')
    expect(await page.getByLabel(`Rotation of ${doc.number}`).inputValue()).toBe('90')
    expect(await page.getByLabel(`Scale of ${doc.number}`).inputValue()).toBe('1:100')
    await checkAccessibility(page)

    await page.getByLabel('Open: or type a hex code').fill('#7a5af8')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await page.getByText('Drawings overlay of the project saved.').waitFor()
    await page.getByText('Saved now: #7A5AF8.').waitFor()
    expect(await page.getByLabel('Colours', { exact: true }).inputValue()).toBe('project')
    expect(await page.getByLabel(`Rotation of ${doc.number}`).inputValue()).toBe('90')
    expect(await page.getByLabel(`Scale of ${doc.number}`).inputValue()).toBe('1:100')
    expect(await page.getByLabel(`Offer for pins on ${doc.number}`).isChecked()).toBe(true)
    await checkAccessibility(page)

    // The drawing shows turned a quarter clockwise: an 800 × 400 sheet stands 400 wide and 800 high.
    await page.goto(`/documents/${doc.id}/sheet`)
    await expectScreen(page, `${doc.number} Level 2 plan`)
    const drawing = page.getByRole('group', { name: `Sheet ${doc.number}, revision P01` })
    expect(await drawing.getAttribute('viewBox')).toBe(`0 0 ${SHEET.height} ${SHEET.width}`)
    expect(await drawing.locator('image').getAttribute('transform')).toBe(`translate(${SHEET.height} 0) rotate(90)`)
    await page.getByText('Scale 1:100', { exact: false }).waitFor()

    // Pinning on the turned sheet: a click a quarter across and halfway down the sheet as shown is,
    // on the raster, halfway across and three quarters down.
    await page.goto(`/items/${item.id}/pin?zoom=100`)
    await expectScreen(page, `Pin item #${item.number} on a drawing`)
    const sheet = page.getByRole('button', { name: `Sheet ${doc.number}: click where the item is` })
    await sheet.scrollIntoViewIfNeeded()
    const box = await sheet.boundingBox()
    if (!box) throw new Error('the sheet is not shown')
    expect([box.width, box.height]).toEqual([SHEET.height, SHEET.width])
    await page.mouse.click(box.x + box.width * 0.25, box.y + box.height * 0.5)
    await page.getByText(`Item #${item.number} pinned on ${doc.number}.`).waitFor()
    const pin = await call<ItemPin>('GET', `/api/items/${item.id}/pin`)
    expect(pin.x).toBeCloseTo(0.5, 2)
    expect(pin.y).toBeCloseTo(0.75, 2)
    expect(pin.colour).toBe('#7A5AF8')
    j.assertNoConsoleErrors()
  })
})
