import { afterAll, beforeAll, expect, test } from 'vitest'
import type { Photo } from '#server/domain/photos/photos'
import { expectProblem, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { photosOf, pngImage } from '#tests/helpers/photos'
import { createItem, createOrg, json } from '#tests/helpers/reporting-b'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2025-03-10T08:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

function send(c: TestClient, itemId: string, files: { bytes: Uint8Array; name: string; type: string }[]): Promise<Response> {
  const form = new FormData()
  for (const f of files) form.append('photos', new File([new Uint8Array(f.bytes)], f.name, { type: f.type }))
  return c.request(`/api/items/${itemId}/photos`, { method: 'POST', body: form })
}

test('photos sent in one multipart request are stored in order: 201 with the Photos', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const first = pngImage(10, 8, 3)
  const second = pngImage(6, 4, 9)
  const body = await json<{ items: Photo[] }>(
    await send(org.writer, item.id, [
      { bytes: first, name: 'east.png', type: 'image/png' },
      { bytes: second, name: 'west.png', type: 'image/png' },
    ]),
    201,
  )
  expect(body.items.map((p) => [p.fileName, p.sizeBytes, p.contentType])).toEqual([
    ['east.png', first.length, 'image/png'],
    ['west.png', second.length, 'image/png'],
  ])
  expect((await photosOf(org.reader, item.id)).map((p) => p.id)).toEqual(body.items.map((p) => p.id))
})

test('a file that is not an image is refused with 415 and nothing is stored', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const response = await send(org.writer, item.id, [
    { bytes: pngImage(), name: 'fine.png', type: 'image/png' },
    { bytes: new TextEncoder().encode('not a photo at all'), name: 'notes.jpg', type: 'image/jpeg' },
  ])
  const problem = await expectProblem(response, 415, 'KR_UPLOAD_TYPE')
  expect(problem.detail).toContain('notes.jpg')
  expect(await photosOf(org.writer, item.id)).toEqual([])
})

test('a request without a file is a 400; another tenant’s item is a 404', async () => {
  const org = await createOrg(t)
  const other = await createOrg(t)
  const item = await createItem(other.writer, other.reportId)
  await expectProblem(await org.writer.request(`/api/items/${item.id}/photos`, { method: 'POST', body: new FormData() }), 400)
  await expectProblem(await send(org.writer, item.id, [{ bytes: pngImage(), name: 'a.png', type: 'image/png' }]), 404)
  expect(await photosOf(other.writer, item.id)).toEqual([])
})
