import { randomBytes } from 'node:crypto'
import sharp from 'sharp'
import { afterAll, beforeAll, expect, onTestFinished, test } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import type { Item, Project, Report } from '~/lib/reporting/types'
import { launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, signIn } from './steps'

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

type OverlayShape = { type: string }
type PhotoJson = { id: string; displayUrl: string | null; edit: { overlayJson: { version: number; width: number; shapes: OverlayShape[] }; displayUrl: string | null } | null }

function unique(prefix: string): string {
  return `${prefix} ${randomBytes(3).toString('hex')}`
}

/** The page's own API session (its cookies, the CSRF header from sp_csrf): what the journey starts from. */
async function apiOf(page: Page) {
  async function csrf(): Promise<string> {
    const cookie = (await page.context().cookies()).find((c) => c.name === 'sp_csrf' || c.name === '__Host-sp_csrf')
    if (!cookie) throw new Error('no CSRF cookie')
    return decodeURIComponent(cookie.value)
  }
  async function call<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', 'X-CSRF-Token': await csrf() }
    if (body !== undefined) headers['content-type'] = contentType
    const data = body === undefined ? undefined : contentType === 'application/json' ? JSON.stringify(body) : (body as Buffer)
    const response = await page.request.fetch(`${portal.baseUrl}${path}`, { method, headers, data })
    const text = await response.text()
    if (!response.ok()) throw new Error(`${method} ${path} answered ${response.status()}: ${text}`)
    return (text ? JSON.parse(text) : null) as T
  }
  return { call }
}

/** Signs in as the demo user and gives an item of theirs one photo, uploaded through the API. */
async function itemWithPhoto(page: Page) {
  await page.goto('/projects')
  await signIn(page, DEMO.user.email, DEMO.user.password)
  await expectScreen(page, 'Projects')
  const api = await apiOf(page)
  const project = await api.call<Project>('POST', '/api/projects', { title: unique('Dock Road') })
  const report = await api.call<Report>('POST', '/api/reports', { projectId: project.id, title: unique('Walkdown') })
  const item = await api.call<Item>('POST', `/api/reports/${report.id}/items`, { title: unique('Cracked render'), priority: 'medium' })
  const jpeg = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 190, g: 180, b: 160 } } }).jpeg().toBuffer()
  const session = await api.call<{ id: string }>('POST', `/api/items/${item.id}/uploads`, { fileName: 'wall.jpg', size: jpeg.length, contentType: 'image/jpeg' })
  await api.call('PUT', `/api/uploads/${session.id}/chunk?offset=0`, jpeg, 'application/octet-stream')
  const photo = await api.call<PhotoJson>('POST', `/api/uploads/${session.id}/complete`)
  return { api, item, photo }
}

/** Picks a radio of a toolbar group: the visible label is what the user taps. */
async function choose(page: Page, group: string, name: string) {
  const radio = page.getByRole('group', { name: group }).getByRole('radio', { name })
  await radio.locator('xpath=..').click()
  expect(await radio.isChecked()).toBe(true)
}

async function drag(page: Page, from: [number, number], to: [number, number]) {
  const box = await page.locator('canvas').boundingBox()
  if (!box) throw new Error('no canvas')
  await page.mouse.move(box.x + from[0], box.y + from[1])
  await page.mouse.down()
  await page.mouse.move(box.x + (from[0] + to[0]) / 2, box.y + (from[1] + to[1]) / 2, { steps: 4 })
  await page.mouse.move(box.x + to[0], box.y + to[1], { steps: 4 })
  await page.mouse.up()
}

test('JS on: draw a rectangle and an arrow, undo, redo, save; reopening brings the shapes back', async () => {
  const { page, assertNoConsoleErrors } = await newJourneyContext(browser, { javaScript: true, baseUrl: portal.baseUrl }).then((j) => {
    onTestFinished(() => j.close())
    return j
  })
  const { api, item, photo } = await itemWithPhoto(page)
  expect(photo.edit).toBeNull()

  await page.goto(`/items/${item.id}/photos/${photo.id}/markup`)
  await expectScreen(page, 'Mark up photo')
  const status = page.getByRole('status').filter({ hasText: /shape/ })
  await expect.poll(() => status.textContent()).toBe('No shapes yet.')

  await choose(page, 'Tool', 'Rectangle')
  await choose(page, 'Colour', 'Red')
  await drag(page, [40, 40], [200, 160])
  await expect.poll(() => status.textContent()).toBe('1 shape.')
  await choose(page, 'Tool', 'Arrow')
  await drag(page, [300, 60], [380, 200])
  await expect.poll(() => status.textContent()).toBe('2 shapes.')
  // Something was painted where the rectangle's left edge is (scaled to the canvas's own pixels).
  const painted = await page.locator('canvas').evaluate((canvas: HTMLCanvasElement) => {
    const scale = canvas.width / canvas.getBoundingClientRect().width
    return canvas.getContext('2d')?.getImageData(Math.round(40 * scale), Math.round(100 * scale), 1, 1).data[3] ?? 0
  })
  expect(painted).toBeGreaterThan(0)

  await page.keyboard.press('Control+z')
  await expect.poll(() => status.textContent()).toBe('1 shape.')
  await page.keyboard.press('Control+Shift+z')
  await expect.poll(() => status.textContent()).toBe('2 shapes.')
  await page.getByRole('button', { name: 'Undo' }).click()
  await expect.poll(() => status.textContent()).toBe('1 shape.')
  await page.getByRole('button', { name: 'Redo' }).click()
  await expect.poll(() => status.textContent()).toBe('2 shapes.')

  await page.getByRole('button', { name: 'Save markup' }).click()
  await page.waitForURL((url) => url.pathname === `/items/${item.id}`)
  await page.getByRole('heading', { level: 1, name: new RegExp(`#${item.number} `) }).waitFor()

  const saved = (await api.call<{ items: PhotoJson[] }>('GET', `/api/items/${item.id}/photos`)).items.find((p) => p.id === photo.id)
  expect(saved?.edit).not.toBeNull()
  expect(saved?.edit?.displayUrl).toBeTruthy()
  expect(saved?.edit?.overlayJson).toMatchObject({ version: 1, width: 640, height: 480 })
  expect(saved?.edit?.overlayJson.shapes.map((s) => s.type)).toEqual(['rect', 'arrow'])

  await page.goto(`/items/${item.id}/photos/${photo.id}/markup`)
  await expectScreen(page, 'Mark up photo')
  await expect.poll(() => status.textContent()).toBe('2 shapes.')
  const shapes = page.getByRole('region', { name: 'Shapes on this photo' }).getByRole('listitem')
  await expect.poll(() => shapes.allInnerTexts()).toEqual([expect.stringContaining('1. Rectangle, red'), expect.stringContaining('2. Arrow, red')])
  assertNoConsoleErrors()
})

test('JS off: the page shows the photo, says marking up needs JavaScript, and links back to the item', async () => {
  const { page, assertNoConsoleErrors } = await newJourneyContext(browser, { javaScript: false, baseUrl: portal.baseUrl }).then((j) => {
    onTestFinished(() => j.close())
    return j
  })
  const { item, photo } = await itemWithPhoto(page)
  await page.goto(`/items/${item.id}/photos/${photo.id}/markup`)
  await expectScreen(page, 'Mark up photo')
  await page.getByText('Marking up needs JavaScript').waitFor()
  expect(await page.getByRole('img', { name: 'Photo wall.jpg' }).count()).toBe(1)
  expect(await page.getByRole('button', { name: 'Save markup' }).count()).toBe(0)
  await page.getByRole('link', { name: `Back to item #${item.number}` }).click()
  await page.waitForURL((url) => url.pathname === `/items/${item.id}`)
  await page.getByRole('heading', { level: 1, name: new RegExp(`#${item.number} `) }).waitFor()

  const unknown = await page.goto(`/items/${item.id}/photos/00000000-0000-4000-8000-000000000000/markup`)
  expect(unknown?.status()).toBe(404)
  assertNoConsoleErrors()
})
