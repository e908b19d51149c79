import sharp from 'sharp'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { Item } from '~/lib/reporting/types'
import { show } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { documentProject, newDocument, uploadRevision } from '#tests/helpers/documents'
import { readPdf, readPdfImages, type PdfImageEntry } from '#tests/helpers/pdf-reader'
import { uploadPhoto } from '#tests/helpers/photos'
import { createItem, createOrg, createReport, json, patch, type Org } from '#tests/helpers/reporting-b'

/**
 * docs/exports.md "Photos": the report PDF prints each item's photos (markup applied, two per row,
 * captioned), the drawing it is pinned on, and the organisation's logo; the punch list a thumbnail
 * per row. Every image is found by poppler's pdfimages, not by our code, and looked at by its pixels.
 */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2025-03-10T08:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

/** Each test makes a logo, a drawing's revision, three photos and an edit through the API first: more than the default 30 s on a loaded machine. */
const SLOW = 120_000

/** A solid colour image, as JPEG or PNG, optionally with the camera metadata a phone writes. */
function solid(colour: string, format: 'png' | 'jpeg', size = { width: 120, height: 90 }, camera = false): Promise<Buffer> {
  let image = sharp({ create: { ...size, channels: 3, background: colour } })
  if (camera) image = image.withExif({ IFD0: { Make: 'ExportTestCam', Model: 'Lens 9000' }, IFD2: { UserComment: 'GPS 51.5007 -0.1246' } })
  return (format === 'png' ? image.png() : image.jpeg()).toBuffer()
}

/** The mean colour of an extracted image, to tell which picture it is. */
async function meanColour(image: PdfImageEntry): Promise<{ r: number; g: number; b: number }> {
  const stats = await sharp(image.png).stats()
  const [r, g, b] = stats.channels.map((c) => Math.round(c.mean))
  return { r: r ?? 0, g: g ?? 0, b: b ?? 0 }
}

function isColour(c: { r: number; g: number; b: number }, name: 'red' | 'green' | 'blue' | 'yellow' | 'white'): boolean {
  const hi = (v: number) => v > 180
  const lo = (v: number) => v < 80
  switch (name) {
    case 'red':
      return hi(c.r) && lo(c.g) && lo(c.b)
    case 'green':
      return lo(c.r) && hi(c.g) && lo(c.b)
    case 'blue':
      return lo(c.r) && lo(c.g) && hi(c.b)
    case 'yellow':
      return hi(c.r) && hi(c.g) && lo(c.b)
    case 'white':
      return hi(c.r) && hi(c.g) && hi(c.b)
  }
}

/** An edited version of the photo (markup flattened into the image), as the markup editor posts it. */
async function editPhoto(c: Org['writer'], photoId: string, bytes: Buffer): Promise<void> {
  const form = new FormData()
  form.set('photoId', photoId)
  form.set('overlayJson', JSON.stringify({ shapes: [{ kind: 'arrow', from: [1, 1], to: [5, 5], colour: '#0000ff' }] }))
  form.set('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'edited.png')
  await json(await c.request('/api/photos/edits', { method: 'POST', body: form }), 201)
}

async function setLogo(org: Org, bytes: Buffer): Promise<void> {
  const form = new FormData()
  form.set('logo', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'logo.png')
  await json(await org.admin.request('/api/settings/site/logo', { method: 'POST', body: form }), 201)
}

/** An organisation with a logo, a drawing (a 400 × 200 white sheet) and a report with a pinned item that has three photos, and one without. */
async function site() {
  const org = await createOrg(t)
  await setLogo(org, await solid('#ffff00', 'png', { width: 200, height: 80 }))
  const project = await documentProject(org.admin, 'EXP01')
  const drawing = await newDocument(org.admin, project.id, { title: 'Ground floor plan' })
  await uploadRevision(org.admin, drawing.id, await solid('#ffffff', 'png', { width: 400, height: 200 }), { code: 'P01', status: 'S2', fileName: 'plan.png', contentType: 'image/png' })
  const reportId = await createReport(t, org.admin.member, project.id)
  const pinned = await createItem(org.writer, reportId, { title: 'Zoë Ørsted: cracked tile' })
  const plain = await createItem(org.writer, reportId, { title: '山田 太郎 の 窓' })
  await json(await org.writer.request(`/api/items/${pinned.id}/pin`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ documentId: drawing.id, x: 0.25, y: 0.5 }) }))
  // Photo 1: a green JPEG straight from a camera; photo 2: red, edited to blue (markup); photo 3: a captioned PNG in green.
  const camera = await uploadPhoto(org.writer, pinned.id, await solid('#00ff00', 'jpeg', { width: 160, height: 120 }, true), { fileName: 'IMG_0001.jpg' })
  const marked = await uploadPhoto(org.writer, pinned.id, await solid('#ff0000', 'png'), { fileName: 'IMG_0002.png' })
  await editPhoto(org.writer, marked.id, await solid('#0000ff', 'png'))
  const third = await uploadPhoto(org.writer, pinned.id, await solid('#00ff00', 'png', { width: 90, height: 120 }), { fileName: 'IMG_0003.png' })
  await json(await patch(org.writer, `/api/photos/${third.id}`, { caption: 'Łukasz Wróbel: north wall' }))
  await json(await org.writer.post(`/api/items/${pinned.id}/responses`, { body: 'See the marked photo', photoIds: [marked.id, third.id] }), 201)
  return { org, reportId, pinned, plain, camera, drawing }
}

test('the report PDF prints the logo, the drawing with its pin, and each item’s photos with markup applied and captions, without camera metadata', async () => {
  const { org, reportId, pinned } = await site()
  const response = await org.reader.get(`/api/reports/${reportId}/pdf`, { headers: { 'accept-language': 'en-GB' } })
  expect(response.status, await show(response)).toBe(200)
  const bytes = new Uint8Array(await response.arrayBuffer())
  const pdf = await readPdf(bytes)
  const images = await readPdfImages(bytes)
  const colours = await Promise.all(images.map(meanColour))

  // Logo (yellow), the sheet (white, 2:1), three photos: five images, all JPEG.
  expect(images).toHaveLength(5)
  expect(images.every((image) => image.encoding === 'jpeg')).toBe(true)
  expect(isColour(colours[0] ?? { r: 0, g: 0, b: 0 }, 'yellow')).toBe(true)
  expect(images[0]?.page).toBe(1)
  const sheet = images[1]
  expect(sheet && sheet.width / sheet.height).toBeCloseTo(2, 1)
  expect(isColour(colours[1] ?? { r: 0, g: 0, b: 0 }, 'white')).toBe(true)
  // The photos in the item's order: the camera's green, the edited one in blue (not its red original), the green one.
  expect(colours.slice(2).map((c) => (['red', 'green', 'blue'] as const).find((name) => isColour(c, name)))).toEqual(['green', 'blue', 'green'])

  expect(pdf.text).toContain('Pinned on')
  expect(pdf.text).toContain('revision P01')
  expect(pdf.text).toMatch(/Photo 1 · IMG_0001\.jpg/)
  expect(pdf.text).toMatch(/Photo 3 · Łukasz Wróbel: north wall/)
  expect(pdf.text).toContain('Photos 2 and 3 below')
  expect(pdf.text).toContain('山田 太郎 の 窓')

  // No camera metadata or location in the file: renditions carry none and the rest is re-encoded without any.
  const raw = Buffer.from(bytes).toString('latin1')
  for (const secret of ['ExportTestCam', 'Lens 9000', 'GPS 51.5007', 'Exif']) expect(raw).not.toContain(secret)
  // Each item's photos link to its page, as its title does.
  expect(raw.split(`/items/${pinned.id}`).length - 1).toBeGreaterThanOrEqual(5)
}, SLOW)

test('a drawing several items are pinned on is in the file once: each item draws the same image object', async () => {
  const { org, reportId, plain, drawing } = await site()
  await json(await org.writer.request(`/api/items/${plain.id}/pin`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ documentId: drawing.id, x: 0.75, y: 0.25 }) }))
  const response = await org.reader.get(`/api/reports/${reportId}/pdf`)
  expect(response.status, await show(response)).toBe(200)
  const bytes = new Uint8Array(await response.arrayBuffer())
  const images = await readPdfImages(bytes)
  // Logo, three photos and the sheet under each of the two items (the items' order is the clock's, the same for both here).
  expect(images).toHaveLength(6)
  const sheets = images.filter((image) => image.width === 400 && image.height === 200)
  expect(sheets).toHaveLength(2)
  expect(sheets[1]?.object).toBe(sheets[0]?.object)
  expect(new Set(images.map((image) => image.object)).size).toBe(5)
  expect((await readPdf(bytes)).text.split('Pinned on').length - 1).toBe(2)
}, SLOW)

test('the punch list has the first photo’s thumbnail on each row that has one, and the logo', async () => {
  const { org, pinned, plain } = await site()
  const listed = await json<{ items: Item[] }>(await org.reader.get(`/api/items/outstanding?projectId=${pinned.projectId}`))
  expect(listed.items.map((i) => i.id).sort()).toEqual([pinned.id, plain.id].sort())
  const response = await org.reader.get(`/api/items/outstanding/punch-list?project=${pinned.projectId}`)
  expect(response.status, await show(response)).toBe(200)
  const bytes = new Uint8Array(await response.arrayBuffer())
  const images = await readPdfImages(bytes)
  // The logo and one thumbnail (the item without photos has none): the camera's green photo, small.
  expect(images).toHaveLength(2)
  expect(isColour(await meanColour(images[0] as PdfImageEntry), 'yellow')).toBe(true)
  const thumbnail = images[1] as PdfImageEntry
  expect(isColour(await meanColour(thumbnail), 'green')).toBe(true)
  expect(Math.max(thumbnail.width, thumbnail.height)).toBeLessThanOrEqual(200)
  const pdf = await readPdf(bytes)
  expect(pdf.text).toContain('Zoë Ørsted: cracked tile')
  expect(Buffer.from(bytes).toString('latin1')).not.toContain('ExportTestCam')
}, SLOW)

test('another organisation’s member sees none of the photos: the report is a 404', async () => {
  const { reportId } = await site()
  const stranger = await createOrg(t)
  expect((await stranger.admin.get(`/api/reports/${reportId}/pdf`)).status).toBe(404)
}, SLOW)
