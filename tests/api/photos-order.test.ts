import { afterAll, beforeAll, expect, test } from 'vitest'
import type { Photo } from '#server/domain/photos/photos'
import { expectProblem } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { photosOf, pngImage, uploadPhoto } from '#tests/helpers/photos'
import { createItem, createOrg, json, patch } from '#tests/helpers/reporting-b'
import type { TestClient } from '#tests/helpers/auth'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2025-03-10T08:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

function putOrder(c: TestClient, itemId: string, photoIds: unknown): Promise<Response> {
  return c.request(`/api/items/${itemId}/photos/order`, { method: 'PUT', json: { photoIds } })
}

async function threePhotos(c: TestClient, itemId: string): Promise<Photo[]> {
  const photos: Photo[] = []
  for (const seed of [1, 2, 3]) photos.push(await uploadPhoto(c, itemId, pngImage(4, 4, seed), { fileName: `p${seed}.png` }))
  return photos
}

test('PUT /photos/order applies the whole order at once and answers the photos in it, numbered 0, 1, 2', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const [a, b, c] = await threePhotos(org.writer, item.id)
  if (!a || !b || !c) throw new Error('no photos')
  const reordered = await json<{ items: Photo[] }>(await putOrder(org.other, item.id, [c.id, a.id, b.id]))
  expect(reordered.items.map((p) => [p.id, p.sortOrder])).toEqual([
    [c.id, 0],
    [a.id, 1],
    [b.id, 2],
  ])
  expect((await photosOf(org.reader, item.id)).map((p) => p.id)).toEqual([c.id, a.id, b.id])
  // The same order again changes nothing and still answers it.
  expect((await json<{ items: Photo[] }>(await putOrder(org.writer, item.id, [c.id, a.id, b.id]))).items.map((p) => p.id)).toEqual([c.id, a.id, b.id])
})

test('a list that does not match the item’s photos is refused with 409 and the current order; nothing moves', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const otherItem = await createItem(org.writer, org.reportId)
  const [a, b, c] = await threePhotos(org.writer, item.id)
  const elsewhere = await uploadPhoto(org.writer, otherItem.id, pngImage(3, 3, 9))
  if (!a || !b || !c) throw new Error('no photos')
  const current = [a.id, b.id, c.id]
  for (const ids of [[b.id, a.id], [c.id, b.id, a.id, elsewhere.id], [c.id, b.id, elsewhere.id], [c.id, b.id, 'not-a-photo'], []]) {
    const problem = await expectProblem(await putOrder(org.writer, item.id, ids), 409, 'KR_PHOTO_ORDER_MISMATCH')
    expect(problem.photoIds).toEqual(current)
  }
  // A photo deleted since the list was read: the stale full list no longer matches.
  expect((await org.writer.delete(`/api/photos/${b.id}`)).status).toBe(204)
  const stale = await expectProblem(await putOrder(org.writer, item.id, [c.id, b.id, a.id]), 409, 'KR_PHOTO_ORDER_MISMATCH')
  expect(stale.photoIds).toEqual([a.id, c.id])
  expect((await expectProblem(await putOrder(org.writer, item.id, [c.id, c.id]), 400, 'KR_VALIDATION')).errors?.photoIds).toBeDefined()
  await expectProblem(await putOrder(org.writer, item.id, 'abc'), 400, 'KR_VALIDATION')
  await expectProblem(await putOrder(org.writer, item.id, [1, 2]), 400, 'KR_VALIDATION')
  expect((await photosOf(org.reader, item.id)).map((p) => p.id)).toEqual([a.id, c.id])
})

test('the order call answers 404 for another tenant’s item and 403 for a read-only member', async () => {
  const org = await createOrg(t)
  const stranger = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const [a, b] = await threePhotos(org.writer, item.id)
  if (!a || !b) throw new Error('no photos')
  const photos = await photosOf(org.writer, item.id)
  const reversed = photos.map((p) => p.id).reverse()
  await expectProblem(await putOrder(stranger.admin, item.id, reversed), 404, 'KR_NOT_FOUND')
  await expectProblem(await putOrder(org.reader, item.id, reversed), 403, 'KR_FORBIDDEN')
  await expectProblem(await putOrder(org.writer, 'not-an-id', reversed), 404, 'KR_NOT_FOUND')
  expect((await photosOf(org.writer, item.id)).map((p) => p.id)).toEqual(photos.map((p) => p.id))
})

test('two reorders at once are applied one after the other: the result is one of them, never a mix', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const [a, b, c] = await threePhotos(org.writer, item.id)
  if (!a || !b || !c) throw new Error('no photos')
  const first = [c.id, b.id, a.id]
  const second = [b.id, a.id, c.id]
  const responses = await Promise.all([putOrder(org.writer, item.id, first), putOrder(org.other, item.id, second)])
  expect(responses.map((r) => r.status)).toEqual([200, 200])
  const final = (await photosOf(org.reader, item.id)).map((p) => p.id)
  expect([first, second]).toContainEqual(final)
  expect((await photosOf(org.reader, item.id)).map((p) => p.sortOrder)).toEqual([0, 1, 2])
})

test('PATCH sortOrder moves one photo to that place and shifts the others: no two share a place', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const [a, b, c] = await threePhotos(org.writer, item.id)
  if (!a || !b || !c) throw new Error('no photos')
  expect((await json<Photo>(await patch(org.writer, `/api/photos/${a.id}`, { sortOrder: 1 }))).sortOrder).toBe(1)
  expect((await photosOf(org.reader, item.id)).map((p) => [p.id, p.sortOrder])).toEqual([
    [b.id, 0],
    [a.id, 1],
    [c.id, 2],
  ])
  // Past the end is last.
  expect((await json<Photo>(await patch(org.writer, `/api/photos/${b.id}`, { sortOrder: 99 }))).sortOrder).toBe(2)
  expect((await json<Photo>(await patch(org.writer, `/api/photos/${c.id}`, { sortOrder: 0 }))).sortOrder).toBe(0)
  expect((await photosOf(org.reader, item.id)).map((p) => [p.id, p.sortOrder])).toEqual([
    [c.id, 0],
    [a.id, 1],
    [b.id, 2],
  ])
  // A new photo comes last.
  const d = await uploadPhoto(org.writer, item.id, pngImage(4, 4, 4))
  expect(d.sortOrder).toBe(3)
})

test('file names are kept as sent for the original’s download; the photo shows a cleaned display name', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const cases: Array<[string, string]> = [
    ['../../tmp/x.jpg', 'x.jpg'],
    ['C:\\Users\\site\\DSC 0042.JPG', 'DSC 0042.JPG'],
    ['evil\r\nSet-Cookie: a=b.png', 'evilSet-Cookie: a=b.png'],
    ['   spaced out.png\t', 'spaced out.png'],
    ['photos/', 'photo'],
    ['..', 'photo'],
    ['gpj.\u202eexe.png', 'gpj.exe.png'],
    [`${'a'.repeat(200)}.png`, 'a'.repeat(120)],
  ]
  for (const [seed, [sent, shown]] of cases.entries()) {
    const photo = await uploadPhoto(org.writer, item.id, pngImage(3, 3, 40 + seed), { fileName: sent })
    expect([photo.fileName, photo.displayName]).toEqual([sent.trim(), shown])
  }
  // Control characters other than tab and line breaks are refused by the one text rule, like in any field.
  for (const fileName of ['a\u0000.png', '\u0007\u001b ']) {
    const refused = await expectProblem(await org.writer.post(`/api/items/${item.id}/uploads`, { fileName, size: 10, contentType: 'image/png' }), 400, 'KR_VALIDATION')
    expect(Object.keys(refused.errors ?? {})).toEqual(['fileName'])
  }
  const [first] = await photosOf(org.writer, item.id)
  expect(first?.displayName).toBe('x.jpg')
  const original = await org.writer.get(first?.originalUrl ?? '')
  expect(original.headers.get('content-disposition')).toBe(`attachment; filename*=UTF-8''${encodeURIComponent('../../tmp/x.jpg')}`)
  await original.arrayBuffer()
})
