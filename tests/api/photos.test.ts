import { afterAll, beforeAll, expect, test } from 'vitest'
import type { Photo } from '#server/domain/photos/photos'
import type { ItemResponse } from '~/lib/reporting/types'
import { expectProblem } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { photosOf, pngImage, sha256Hex, uploadPhoto } from '#tests/helpers/photos'
import { createItem, createOrg, json, patch } from '#tests/helpers/reporting-b'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2025-03-10T08:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

async function bytesOf(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer())
}

test('an item’s photos are listed in sortOrder with size, dimensions and URLs; PATCH changes caption and order', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const first = await uploadPhoto(org.writer, item.id, pngImage(9, 4, 1), { fileName: 'first.png', chunkSize: 50 })
  const second = await uploadPhoto(org.other, item.id, pngImage(9, 4, 2), { fileName: 'second.png' })
  expect((await photosOf(org.reader, item.id)).map((p) => [p.fileName, p.sortOrder])).toEqual([
    ['first.png', 0],
    ['second.png', 1],
  ])
  const listed = (await photosOf(org.reader, item.id))[0]
  expect(listed).toMatchObject({ id: first.id, sizeBytes: first.sizeBytes, originalUrl: null })
  expect(listed?.thumbnailUrl).toMatch(/^\/api\/photos\/.+\/thumbnail\?v=[0-9a-f]{16}$/)

  t.now.advance(1000)
  // A place past the end is last (the others shift: tests/api/photos-order.test.ts).
  const moved = await json<Photo>(await patch(org.other, `/api/photos/${first.id}`, { sortOrder: 5, caption: '  Crack in the north wall ' }))
  expect(moved).toMatchObject({ sortOrder: 1, caption: 'Crack in the north wall', updatedAtUtc: t.now().toISOString() })
  expect((await photosOf(org.reader, item.id)).map((p) => p.id)).toEqual([second.id, first.id])
  expect((await json<Photo>(await patch(org.writer, `/api/photos/${first.id}`, { caption: '' }))).caption).toBeNull()
  await expectProblem(await patch(org.writer, `/api/photos/${first.id}`, { sortOrder: -1 }), 400, 'KR_VALIDATION')
  await expectProblem(await patch(org.reader, `/api/photos/${first.id}`, { caption: 'x' }), 403, 'KR_FORBIDDEN')
})

test('a photo is deleted by its uploader or an administrator, not by another member; then it is gone', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const mine = await uploadPhoto(org.writer, item.id, pngImage(4, 4, 3))
  const other = await uploadPhoto(org.writer, item.id, pngImage(4, 4, 4))
  await expectProblem(await org.other.delete(`/api/photos/${mine.id}`), 403, 'KR_FORBIDDEN')
  await expectProblem(await org.reader.delete(`/api/photos/${mine.id}`), 403, 'KR_FORBIDDEN')
  expect((await org.writer.delete(`/api/photos/${mine.id}`)).status).toBe(204)
  expect((await org.admin.delete(`/api/photos/${other.id}`)).status).toBe(204)
  expect(await photosOf(org.reader, item.id)).toEqual([])
  await expectProblem(await org.reader.get(`/api/photos/${mine.id}/display`), 404, 'KR_NOT_FOUND')
  await expectProblem(await org.writer.delete(`/api/photos/${mine.id}`), 404, 'KR_NOT_FOUND')
})

test('serving: signed in, with ETag, Cache-Control, 304, Range (206) and 416; the original only to members who may edit', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const image = pngImage(30, 20, 7)
  const photo = await uploadPhoto(org.writer, item.id, image, { fileName: 'wall.png' })
  if (!photo.displayUrl) throw new Error('no display URL')
  expect(photo).toMatchObject({ width: 30, height: 20, contentType: 'image/png', sizeBytes: image.length })

  const display = await org.reader.get(photo.displayUrl)
  expect(display.status).toBe(200)
  expect(display.headers.get('content-type')).toMatch(/^image\//)
  expect(display.headers.get('cache-control')).toBe('private, max-age=31536000, immutable')
  const body = await bytesOf(display)
  const etag = display.headers.get('etag')
  expect(etag).toBe(`"${sha256Hex(body)}"`)
  expect(display.headers.get('content-length')).toBe(String(body.length))

  const unversioned = await org.reader.get(`/api/photos/${photo.id}/display`)
  expect(unversioned.headers.get('cache-control')).toBe('private, no-cache')
  await unversioned.arrayBuffer()
  const notModified = await org.reader.get(photo.displayUrl, { headers: { 'if-none-match': etag ?? '' } })
  expect(notModified.status).toBe(304)
  expect(notModified.headers.get('etag')).toBe(etag)

  const ranged = await org.reader.get(photo.displayUrl, { headers: { range: 'bytes=0-9' } })
  expect(ranged.status).toBe(206)
  expect(ranged.headers.get('content-range')).toBe(`bytes 0-9/${body.length}`)
  expect(await bytesOf(ranged)).toEqual(body.subarray(0, 10))
  const tail = await org.reader.get(photo.displayUrl, { headers: { range: 'bytes=-4' } })
  expect(await bytesOf(tail)).toEqual(body.subarray(body.length - 4))
  const outside = await org.reader.get(photo.displayUrl, { headers: { range: `bytes=${body.length}-` } })
  expect(outside.status).toBe(416)
  expect(outside.headers.get('content-range')).toBe(`bytes */${body.length}`)

  const head = await org.reader.request(photo.displayUrl, { method: 'HEAD' })
  expect([head.status, head.headers.get('etag'), head.headers.get('content-length')]).toEqual([200, etag, String(body.length)])

  const thumbnail = await org.reader.get(`/api/photos/${photo.id}/thumbnail`)
  expect(thumbnail.status).toBe(200)
  await thumbnail.arrayBuffer()

  await expectProblem(await org.reader.get(`/api/photos/${photo.id}/original`), 403, 'KR_FORBIDDEN')
  const original = await org.other.get(`/api/photos/${photo.id}/original`)
  expect(original.status).toBe(200)
  expect(original.headers.get('content-disposition')).toBe(`attachment; filename*=UTF-8''wall.png`)
  expect(await bytesOf(original)).toEqual(image)

  const signedOut = await t.fetch(photo.displayUrl)
  expect(signedOut.status).toBe(401)
})

test('another tenant’s photo ids answer 404 for every photo call', async () => {
  const org = await createOrg(t)
  const stranger = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const photo = await uploadPhoto(org.writer, item.id, pngImage(3, 3, 8))
  await expectProblem(await stranger.admin.get(`/api/items/${item.id}/photos`), 404, 'KR_NOT_FOUND')
  for (const variant of ['display', 'thumbnail', 'original']) {
    await expectProblem(await stranger.admin.get(`/api/photos/${photo.id}/${variant}`), 404, 'KR_NOT_FOUND')
  }
  await expectProblem(await patch(stranger.admin, `/api/photos/${photo.id}`, { caption: 'mine' }), 404, 'KR_NOT_FOUND')
  await expectProblem(await stranger.admin.delete(`/api/photos/${photo.id}`), 404, 'KR_NOT_FOUND')
  const form = new FormData()
  form.set('photoId', photo.id)
  form.set('overlayJson', '{}')
  form.set('file', new Blob([new Uint8Array(pngImage(3, 3, 9))], { type: 'image/png' }), 'edit.png')
  await expectProblem(await stranger.admin.request('/api/photos/edits', { method: 'POST', body: form }), 404, 'KR_NOT_FOUND')
  expect((await photosOf(org.reader, item.id)).map((p) => p.caption)).toEqual([null])
})

test('an edited version is stored beside the original with its overlay, and can be fetched and edited again', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const photo = await uploadPhoto(org.writer, item.id, pngImage(10, 10, 11))
  const edited = pngImage(10, 10, 12)
  const overlay = { shapes: [{ kind: 'arrow', from: [1, 1], to: [5, 5], colour: '#ff0000' }] }
  const form = new FormData()
  form.set('photoId', photo.id)
  form.set('overlayJson', JSON.stringify(overlay))
  form.set('file', new Blob([new Uint8Array(edited)], { type: 'image/png' }), 'edited.png')
  const withEdit = await json<Photo>(await org.other.request('/api/photos/edits', { method: 'POST', body: form }), 201)
  expect(withEdit).toMatchObject({ id: photo.id, sha256: photo.sha256, edit: { overlayJson: overlay, contentType: 'image/png', sizeBytes: edited.length, editedBy: { id: org.other.member.user.id } } })
  const file = await org.reader.get(withEdit.edit?.fileUrl ?? '')
  expect(await bytesOf(file)).toEqual(edited)
  expect((await org.reader.get(withEdit.edit?.displayUrl ?? '')).status).toBe(200)
  expect((await photosOf(org.reader, item.id))[0]?.edit?.overlayJson).toEqual(overlay)
  // The original stays as it was.
  expect(await bytesOf(await org.writer.get(`/api/photos/${photo.id}/original`))).toEqual(await bytesOf(await org.writer.get(photo.originalUrl ?? '')))

  const text = new FormData()
  text.set('photoId', photo.id)
  text.set('overlayJson', '{}')
  text.set('file', new Blob(['not an image at all'], { type: 'image/png' }), 'edited.png')
  await expectProblem(await org.other.request('/api/photos/edits', { method: 'POST', body: text }), 415, 'KR_UPLOAD_TYPE')
  const badOverlay = new FormData()
  badOverlay.set('photoId', photo.id)
  badOverlay.set('overlayJson', '{not json')
  badOverlay.set('file', new Blob([new Uint8Array(edited)], { type: 'image/png' }), 'edited.png')
  const problem = await expectProblem(await org.other.request('/api/photos/edits', { method: 'POST', body: badOverlay }), 400, 'KR_VALIDATION')
  expect(Object.keys(problem.errors ?? {})).toEqual(['overlayJson'])
  await expectProblem(await org.reader.request('/api/photos/edits', { method: 'POST', body: form }), 403, 'KR_FORBIDDEN')
})

test('responses and close confirmations accept this item’s photos and refuse another item’s or a deleted one (400 photoIds)', async () => {
  const org = await createOrg(t)
  const item = await createItem(org.writer, org.reportId)
  const otherItem = await createItem(org.writer, org.reportId)
  const photo = await uploadPhoto(org.writer, item.id, pngImage(5, 3, 13))
  const elsewhere = await uploadPhoto(org.writer, otherItem.id, pngImage(5, 3, 14))
  const gone = await uploadPhoto(org.writer, item.id, pngImage(5, 3, 15))
  expect((await org.writer.delete(`/api/photos/${gone.id}`)).status).toBe(204)

  const response = await json<ItemResponse>(await org.other.post(`/api/items/${item.id}/responses`, { body: 'See photo', photoIds: [photo.id], requestClose: true }), 201)
  expect(response.photoIds).toEqual([photo.id])
  for (const ids of [[elsewhere.id], [photo.id, gone.id], ['not-a-photo']]) {
    const refused = await expectProblem(await org.other.post(`/api/items/${item.id}/responses`, { body: 'x', photoIds: ids }), 400, 'KR_VALIDATION')
    expect(refused.errors?.photoIds?.[0]).toMatch(/^Only photos of this item can be attached/)
  }
  await expectProblem(await org.writer.post(`/api/items/${item.id}/confirm-close`, { confirmed: true, photoIds: [elsewhere.id] }), 400, 'KR_VALIDATION')
  await json(await org.writer.post(`/api/items/${item.id}/confirm-close`, { confirmed: true, body: 'Checked', photoIds: [photo.id] }))
  const thread = (await json<{ items: ItemResponse[] }>(await org.reader.get(`/api/items/${item.id}/responses`))).items
  expect(thread.map((r) => [r.kind, r.photoIds])).toEqual([
    ['response', [photo.id]],
    ['close_confirmed', [photo.id]],
  ])
})
