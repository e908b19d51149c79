import { randomBytes } from 'node:crypto'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import type { Item } from '~/lib/reporting/types'
import { launchBrowser, newJourneyContext, startPortal, type Portal } from './harness'
import { expectScreen, signIn, newDemoItem } from './steps'

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

const unique = (prefix: string) => `${prefix} ${randomBytes(3).toString('hex')}`

/** A small real photo: a JPEG or PNG of a flat colour, made with sharp. */
async function image(name: string, format: 'jpeg' | 'png', colour: { r: number; g: number; b: number }) {
  const buffer = await sharp({ create: { width: 64, height: 48, channels: 3, background: colour } })[format]().toBuffer()
  return { name, mimeType: `image/${format}`, buffer }
}

/** An item of the demo user's, made through the API of the running portal. */
function newItem(): Promise<Item> {
  return newDemoItem(portal.baseUrl, { project: unique('Dock Road'), report: unique('Photo round'), item: unique('Cracked tile'), priority: 'medium' })
}

async function openItem(page: Page, item: Item) {
  await page.goto(`/items/${item.id}`)
  await signIn(page, DEMO.user.email, DEMO.user.password)
  await expectScreen(page, `#${item.number} ${item.title}`)
}

describe('JS on', () => {
  test('two photos upload while writing, one through a dropped connection, and the response posts with both', async () => {
    const item = await newItem()
    const j = await newJourneyContext(browser, { javaScript: true, baseUrl: portal.baseUrl, ignore: [/chunk/, /Failed to load resource/] })
    onTestFinished(() => j.close())
    const { page } = j
    await openItem(page, item)
    let dropped = 0
    await page.route('**/chunk**', async (route) => {
      if (dropped++ === 0) return route.abort('internetdisconnected')
      return route.continue()
    })
    await page.getByLabel('Your response').fill('Tiles photographed.')
    await page.getByRole('region', { name: 'Respond' }).getByLabel('Choose photos').setInputFiles([await image('north.jpg', 'jpeg', { r: 200, g: 40, b: 40 }), await image('south.png', 'png', { r: 40, g: 200, b: 40 })])
    const uploads = page.getByRole('list', { name: 'Photo uploads' })
    await uploads.getByText('Uploaded').nth(1).waitFor()
    expect(dropped).toBeGreaterThan(1)
    await page.getByRole('button', { name: 'Send response' }).click()
    await page.getByText('Response sent.').waitFor()
    const thread = page.getByRole('region', { name: 'Responses' })
    await thread.getByRole('img', { name: 'Photo 1 (north.jpg)' }).waitFor()
    await thread.getByRole('img', { name: 'Photo 2 (south.png)' }).waitFor()
    j.assertNoConsoleErrors()
  })

  test('dragging the second photo before the first saves the new order, which stays after a reload', async () => {
    const item = await newItem()
    const j = await newJourneyContext(browser, { javaScript: true, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j
    await openItem(page, item)
    await page.getByLabel('Your response').fill('Two photos to sort.')
    await page.getByRole('region', { name: 'Respond' }).getByLabel('Choose photos').setInputFiles([await image('first.jpg', 'jpeg', { r: 120, g: 20, b: 20 }), await image('second.png', 'png', { r: 20, g: 120, b: 20 })])
    await page.getByRole('list', { name: 'Photo uploads' }).getByText('Uploaded').nth(1).waitFor()
    await page.getByRole('button', { name: 'Send response' }).click()
    await page.getByText('Response sent.').waitFor()

    const gallery = page.getByRole('region', { name: 'Photos' })
    await gallery.getByRole('img', { name: 'Photo 2 (second.png)' }).waitFor()
    await gallery.getByTitle('Drag photo 2 to reorder').dragTo(gallery.getByRole('img', { name: 'Photo 1 (first.jpg)' }))
    await expect.poll(() => gallery.getByRole('status').textContent()).toBe('Photo 2 moved to position 1 of 2.')
    await page.getByText('Photo order saved.').waitFor()
    await gallery.getByRole('img', { name: 'Photo 1 (second.png)' }).waitFor()

    await page.reload()
    await gallery.getByRole('img', { name: 'Photo 1 (second.png)' }).waitFor()
    await gallery.getByRole('img', { name: 'Photo 2 (first.jpg)' }).waitFor()
    // The buttons stay the keyboard way.
    await expect.poll(() => gallery.getByRole('button', { name: 'Move photo 1 down' }).count()).toBe(1)
    j.assertNoConsoleErrors()
  })
})

describe('JS on, phone', () => {
  test('nothing below the photo fields moves when their upload island arrives', async () => {
    const item = await newItem()
    const j = await newJourneyContext(browser, { javaScript: true, viewport: 'phone', baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j
    // The island's chunk is held back until the form has been measured without it.
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    await page.route(/\/upload-island-[\w-]+\.js/, async (route) => {
      await held
      await route.continue()
    })
    await openItem(page, item)
    const respond = page.getByRole('region', { name: 'Respond' })
    // The close request's checkbox sits under two photo fields on a verifier's page (close, respond).
    const askToClose = respond.getByLabel('Ask to close this item')
    const before = await askToClose.boundingBox()
    expect(await respond.getByLabel('Shrink photos before upload (faster on a weak connection)').isDisabled()).toBe(true)
    release()
    await respond.getByText('Take photo').waitFor()
    await expect.poll(() => respond.getByLabel('Shrink photos before upload (faster on a weak connection)').isEnabled()).toBe(true)
    expect(await askToClose.boundingBox()).toEqual(before)
    j.assertNoConsoleErrors()
  })

  test('with "shrink before upload" on, a large photo is made smaller in the browser before it is sent', async () => {
    const item = await newItem()
    const j = await newJourneyContext(browser, { javaScript: true, viewport: 'phone', baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j
    await openItem(page, item)
    const respond = page.getByRole('region', { name: 'Respond' })
    await respond.getByLabel('Shrink photos before upload (faster on a weak connection)').check()
    // A camera-sized photo: noise does not compress, like a real scene.
    const big = await sharp({ create: { width: 3000, height: 2000, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
      .jpeg({ quality: 92 })
      .toBuffer()
    await page.getByLabel('Your response').fill('Shrunk on the phone.')
    await respond.getByLabel('Choose photos').setInputFiles([{ name: 'site.jpeg', mimeType: 'image/jpeg', buffer: big }])
    const uploads = page.getByRole('list', { name: 'Photo uploads' })
    await uploads.getByText('Uploaded').waitFor()
    await uploads.getByText('→').first().waitFor()
    await page.getByRole('button', { name: 'Send response' }).click()
    await page.getByText('Response sent.').waitFor()

    const photos = (await (await page.request.get(`/api/items/${item.id}/photos`, { headers: { accept: 'application/json' } })).json()) as {
      items: Array<{ fileName: string; width: number; height: number; sizeBytes?: number }>
    }
    expect(photos.items).toHaveLength(1)
    const [photo] = photos.items
    expect(Math.max(photo?.width ?? 0, photo?.height ?? 0)).toBeLessThanOrEqual(2048)
    expect(photo?.fileName).toMatch(/\.jpg$/)
    // The setting is remembered on this device.
    await page.reload()
    // The setting is read by the upload island, which loads after hydration.
    await respond.getByText('Take photo').waitFor()
    await expect.poll(() => respond.getByLabel('Shrink photos before upload (faster on a weak connection)').isChecked()).toBe(true)
    j.assertNoConsoleErrors()
  })
})

describe('JS off', () => {
  test('the plain file field stores the photo with the response; the gallery captions, moves and deletes; a stale move is refused', async () => {
    const item = await newItem()
    const j = await newJourneyContext(browser, { javaScript: false, baseUrl: portal.baseUrl })
    onTestFinished(() => j.close())
    const { page } = j
    await openItem(page, item)
    // What only script does (the uploads while writing, the device's shrink setting) is not offered.
    expect(await page.getByText('Shrink photos before upload').first().isVisible()).toBe(false)
    expect(await page.getByText('They upload while you write').first().isVisible()).toBe(false)
    await page.getByLabel('Your response').fill('Two photos, no script.')
    await page.getByRole('region', { name: 'Respond' }).getByLabel('Photos (optional)').setInputFiles([await image('east.jpg', 'jpeg', { r: 10, g: 10, b: 200 }), await image('west.png', 'png', { r: 200, g: 200, b: 10 })])
    await page.getByRole('button', { name: 'Send response' }).click()
    await page.getByText('Response sent.').waitFor()
    const thread = page.getByRole('region', { name: 'Responses' })
    await thread.getByRole('img', { name: 'Photo 1 (east.jpg)' }).waitFor()

    const gallery = page.getByRole('region', { name: 'Photos' })
    await gallery.getByLabel('Caption of photo 1').fill('East wall')
    await gallery.getByRole('button', { name: 'Save caption' }).first().click()
    await page.getByText('Caption saved.').waitFor()
    await gallery.getByRole('img', { name: 'Photo 1: East wall' }).waitFor()

    await gallery.getByRole('button', { name: 'Move photo 1 down' }).click()
    await page.getByText('Photo moved down.').waitFor()
    await gallery.getByRole('img', { name: 'Photo 2: East wall' }).waitFor()
    await gallery.getByRole('img', { name: 'Photo 1 (west.png)' }).waitFor()

    // Someone else deletes a photo in another tab; this page still shows two.
    const other = await j.context.newPage()
    await other.goto(`/items/${item.id}`)
    await expectScreen(other, `#${item.number} ${item.title}`)
    const otherGallery = other.getByRole('region', { name: 'Photos' })
    await otherGallery.getByText('Delete photo 1…').click()
    await otherGallery.getByRole('button', { name: 'Yes, delete photo' }).click()
    await other.getByText('Photo deleted.').waitFor()
    // A move from the stale page sends an order that no longer matches: nothing moves, the page says so.
    await gallery.getByRole('button', { name: 'Move photo 1 down' }).click()
    await page.getByText('The photos changed while you were moving them, so nothing moved.', { exact: false }).waitFor()
    await gallery.getByRole('img', { name: 'Photo 1: East wall' }).waitFor()
    expect(await gallery.getByRole('img').count()).toBe(1)
    j.assertNoConsoleErrors()
  })
})
