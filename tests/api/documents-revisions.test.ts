import { eq } from 'drizzle-orm'
import sharp from 'sharp'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { itemPins } from '#server/db/schema-documents'
import { MultipartError, readMultipart } from '#server/domain/documents/revision-form'
import { withTenant } from '#server/db/tenancy'
import type { UploadSession } from '#server/domain/uploads/engine'
import { blobStoreFor } from '#server/storage/blob-stores'
import type { DocumentDetail, Revision } from '~/lib/documents/types'
import { auditOf, expectProblem, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import {
  createRevisionUpload,
  documentProject,
  newDocument,
  pdfDocument,
  postRevisionForm,
  sendBytes,
  startRevisionUpload,
  uploadRevision,
} from '#tests/helpers/documents'
import { getUpload, pngImage, putChunk, setQuota, sha256Hex } from '#tests/helpers/photos'
import { body, insertItem, newReport, organisation, patch, put } from '#tests/helpers/reporting-a'

/** docs/documents.md "Revisions": revisions through the one resumable upload, their files and sheets, through HTTP. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-20T09:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

/** An organisation with a project and one document in it, made by its administrator. */
async function withDocument() {
  const org = await organisation(t)
  const project = await documentProject(org.admin.c)
  const doc = await newDocument(org.admin.c, project.id)
  return { ...org, project, doc }
}

async function detail(c: TestClient, documentId: string): Promise<DocumentDetail> {
  return body<DocumentDetail>(await c.get(`/api/documents/${documentId}`))
}

async function bytesOf(response: Response, status = 200): Promise<Buffer> {
  expect(response.status).toBe(status)
  return Buffer.from(await response.arrayBuffer())
}

/** Whether the session's staged bytes are in the store (the data folder or the bucket). */
const staged = async (tenantId: string, sessionId: string) => (await blobStoreFor(t.config).stat(`staging/${tenantId}/upload-${sessionId}`)) !== undefined

test('P01, then P02 supersedes it: both stay downloadable; the document takes P02’s status and state; complete again answers the same revision', async () => {
  const { tenant, admin, writer, reader, doc } = await withDocument()
  const first = pdfDocument()
  const session = await createRevisionUpload(writer.c, doc.id, first, { code: 'P01', status: 'S2', comment: 'For information', fileName: 'GA plan.pdf', checksum: sha256Hex(first) })
  expect(session).toMatchObject({ purpose: 'revision', documentId: doc.id, itemId: null, offset: 0, size: first.length, state: 'open', maxFileBytes: 1024 ** 3 })
  await sendBytes(writer.c, session.id, first, 200)
  const p01 = await body<Revision>(await writer.c.post(`/api/uploads/${session.id}/complete`), 201)
  expect(p01).toMatchObject({ id: session.id, documentId: doc.id, version: 1, code: 'P01', status: 'S2', comment: 'For information', fileName: 'GA plan.pdf', contentType: 'application/pdf' })
  expect(p01).toMatchObject({ sizeBytes: first.length, sha256: sha256Hex(first), superseded: false, issuedBy: { id: writer.user.id }, downloadUrl: `/api/revisions/${p01.id}/file` })
  expect(await getUpload(writer.c, session.id)).toMatchObject({ state: 'completed', revisionId: p01.id, photoId: null })
  expect(await staged(tenant.id, session.id)).toBe(false)
  // A retry after a lost response: 200 with the same revision, nothing issued twice.
  expect((await body<Revision>(await writer.c.post(`/api/uploads/${session.id}/complete`), 200)).id).toBe(p01.id)
  expect(await detail(reader.c, doc.id)).toMatchObject({ status: 'S2', state: 'Shared', currentRevision: { id: p01.id, code: 'P01', status: 'S2' } })

  const second = pdfDocument(842, 595)
  const p02 = await uploadRevision(admin.c, doc.id, second, { code: 'P02', status: 'S3', fileName: 'GA plan rev 2.pdf' })
  expect(p02).toMatchObject({ version: 2, code: 'P02', status: 'S3', comment: null, superseded: false })
  const after = await detail(reader.c, doc.id)
  expect(after).toMatchObject({ status: 'S3', state: 'Shared', currentRevision: { id: p02.id, code: 'P02' } })
  expect(after.revisions.map((r) => [r.code, r.version, r.superseded, r.supersededBy])).toEqual([
    ['P02', 2, false, null],
    ['P01', 1, true, { id: p02.id, code: 'P02' }],
  ])
  expect(after.revisions[1]?.supersededAtUtc).toBe(t.now().toISOString())
  expect(await bytesOf(await reader.c.get(p01.downloadUrl))).toEqual(first)
  expect(await bytesOf(await reader.c.get(p02.downloadUrl))).toEqual(second)

  const c01 = await uploadRevision(admin.c, doc.id, first, { code: 'C01', status: 'A1' })
  expect(await detail(reader.c, doc.id)).toMatchObject({ status: 'A1', state: 'Published', currentRevision: { id: c01.id, code: 'C01' } })
  const audit = await auditOf(t.db, { action: 'documents.revision.issued', tenantId: tenant.id })
  expect(audit.map((a) => (a.data as { code: string }).code)).toEqual(['P01', 'P02', 'C01'])
})

test('a code or status that cannot be issued is refused before any byte, with every problem at once (400)', async () => {
  const { writer, doc } = await withDocument()
  await uploadRevision(writer.c, doc.id, pdfDocument(), { code: 'P01', status: 'S2' })
  const again = await expectProblem(await startRevisionUpload(writer.c, doc.id, 100, { code: 'P01', status: 'S2' }), 400, 'KR_REVISION_INVALID')
  expect(again.errors?.code?.[0]).toMatch(/after the current one, P01: P02 is next/)
  const contractual = await expectProblem(await startRevisionUpload(writer.c, doc.id, 100, { code: 'C01', status: 'S2' }), 400, 'KR_REVISION_INVALID')
  expect(contractual.errors?.code?.[0]).toMatch(/contractual revision \(C01\) is issued for a published suitability/)
  expect(contractual.errors).not.toHaveProperty('status')
  const both = await expectProblem(await startRevisionUpload(writer.c, doc.id, 100, { code: 'Q7', status: 'Z9', checksum: 'not-a-hash' }), 400, 'KR_REVISION_INVALID')
  expect(Object.keys(both.errors ?? {}).sort()).toEqual(['checksum', 'code', 'status'])
  expect(both.errors?.status?.[0]).toMatch(/S0, S1, S2/)
  // A published suitability takes a C code; a sub-revision is for work in progress only.
  const published = await expectProblem(await startRevisionUpload(writer.c, doc.id, 100, { code: 'P02', status: 'A1' }), 400)
  expect(published.errors?.code?.[0]).toMatch(/takes a contractual revision code/)
  const sub = await expectProblem(await startRevisionUpload(writer.c, doc.id, 100, { code: 'P02.1', status: 'S2' }), 400)
  expect(sub.errors?.code?.[0]).toMatch(/Sub-revisions like P02.1 are for work in progress/)
  // Lower-case codes are read as upper case.
  expect((await body<UploadSession>(await startRevisionUpload(writer.c, doc.id, 100, { code: 'p02', status: 's3' }), 201)).state).toBe('open')
})

test('limits: over 1 GiB is 413 before any byte; an archived document takes no revision (409)', async () => {
  const { admin, writer, doc } = await withDocument()
  const big = await expectProblem(await startRevisionUpload(writer.c, doc.id, 1024 ** 3 + 1, { code: 'P01', status: 'S2', fileName: 'model.ifc', contentType: 'application/x-step' }), 413, 'KR_UPLOAD_TOO_LARGE')
  expect(big.maxBytes).toBe(1024 ** 3)
  const open = await createRevisionUpload(writer.c, doc.id, pdfDocument(), { code: 'P01', status: 'S2' })
  await sendBytes(writer.c, open.id, pdfDocument())
  await body(await patch(admin.c, `/api/documents/${doc.id}`, { archived: true }))
  await expectProblem(await startRevisionUpload(writer.c, doc.id, 100, { code: 'P01', status: 'S2' }), 409, 'KR_ARCHIVED')
  await expectProblem(await postRevisionForm(writer.c, doc.id, { bytes: pdfDocument(), name: 'a.pdf' }, { code: 'P01', status: 'S2' }), 409, 'KR_ARCHIVED')
  // Completing meanwhile is refused too; the session stays open for when the document is brought back.
  await expectProblem(await writer.c.post(`/api/uploads/${open.id}/complete`), 409, 'KR_ARCHIVED')
  expect((await getUpload(writer.c, open.id)).state).toBe('open')
  await body(await patch(admin.c, `/api/documents/${doc.id}`, { archived: false }))
  expect((await body<Revision>(await writer.c.post(`/api/uploads/${open.id}/complete`), 201)).code).toBe('P01')
})

test('chunks of a revision follow the upload protocol: a wrong offset is 409 with the expected offset', async () => {
  const { writer, doc } = await withDocument()
  const file = pdfDocument()
  const session = await createRevisionUpload(writer.c, doc.id, file, { code: 'P01', status: 'S0' })
  await body(await putChunk(writer.c, session.id, 0, file.subarray(0, 50)))
  const wrong = await expectProblem(await putChunk(writer.c, session.id, 10, file.subarray(10)), 409, 'KR_UPLOAD_OFFSET_MISMATCH')
  expect(wrong.expectedOffset).toBe(50)
  await body(await putChunk(writer.c, session.id, 50, file.subarray(50)))
  expect(await body<Revision>(await writer.c.post(`/api/uploads/${session.id}/complete`), 201)).toMatchObject({ code: 'P01', status: 'S0' })
})

test('a checksum mismatch fails the session with 422: its bytes deleted, no revision issued', async () => {
  const { tenant, writer, doc } = await withDocument()
  const file = pdfDocument()
  const session = await createRevisionUpload(writer.c, doc.id, file, { code: 'P01', status: 'S2', checksum: sha256Hex(pdfDocument(600, 800)) })
  await sendBytes(writer.c, session.id, file)
  await expectProblem(await writer.c.post(`/api/uploads/${session.id}/complete`), 422, 'KR_UPLOAD_CHECKSUM_MISMATCH')
  expect(await getUpload(writer.c, session.id)).toMatchObject({ state: 'failed', failureReason: 'checksum', revisionId: null })
  expect(await staged(tenant.id, session.id)).toBe(false)
  expect(await detail(writer.c, doc.id)).toMatchObject({ revisions: [], currentRevision: null, status: 'S0' })
})

test('the type is read from the bytes, never the name: PNG bytes named .pdf are image/png; text, ZIP and unknown bytes', async () => {
  const { writer, doc } = await withDocument()
  const cases: Array<[Buffer, string, string]> = [
    [pngImage(10, 10, 1), 'drawing.pdf', 'image/png'],
    [Buffer.from('Room schedule\nR01\tOffice\t24 m²\n'), 'schedule.pdf', 'text/plain'],
    [Buffer.concat([Buffer.from('PK\u0003\u0004', 'latin1'), Buffer.alloc(40, 1)]), 'spec.docx', 'application/zip'],
    [Buffer.from([0x00, 0x01, 0x02, 0xfe, 0xff, 0x10, 0x00, 0x00]), 'model.png', 'application/octet-stream'],
  ]
  let n = 1
  for (const [bytes, fileName, type] of cases) {
    const revision = await uploadRevision(writer.c, doc.id, bytes, { code: `P0${n++}`, status: 'S2', fileName, contentType: 'application/pdf' })
    expect([revision.fileName, revision.contentType]).toEqual([fileName, type])
    const file = await writer.c.get(revision.downloadUrl)
    expect(file.headers.get('content-type')).toBe(type)
    expect(await bytesOf(file)).toEqual(bytes)
  }
})

test('download: ETag and 304, one Range (206) or 416, inline for PDF and images, attachment otherwise, always sandboxed', async () => {
  const { writer, reader, doc } = await withDocument()
  const pdf = pdfDocument()
  const revision = await uploadRevision(writer.c, doc.id, pdf, { code: 'P01', status: 'S2', fileName: 'Level 3 (GA) — plan’s.pdf' })
  const full = await reader.c.get(revision.downloadUrl)
  expect(await bytesOf(full)).toEqual(pdf)
  expect(Object.fromEntries(['etag', 'cache-control', 'content-disposition', 'content-security-policy', 'x-content-type-options', 'accept-ranges', 'content-length'].map((h) => [h, full.headers.get(h)]))).toEqual({
    etag: `"${sha256Hex(pdf)}"`,
    'cache-control': 'private, no-cache',
    'content-disposition': "inline; filename*=UTF-8''Level%203%20%28GA%29%20%E2%80%94%20plan%E2%80%99s.pdf",
    'content-security-policy': 'sandbox',
    'x-content-type-options': 'nosniff',
    'accept-ranges': 'bytes',
    'content-length': String(pdf.length),
  })
  const fresh = await reader.c.get(revision.downloadUrl, { headers: { 'if-none-match': `"${sha256Hex(pdf)}"` } })
  expect(fresh.status).toBe(304)
  const part = await reader.c.get(revision.downloadUrl, { headers: { range: 'bytes=5-14' } })
  expect(part.headers.get('content-range')).toBe(`bytes 5-14/${pdf.length}`)
  expect(await bytesOf(part, 206)).toEqual(pdf.subarray(5, 15))
  const past = await reader.c.get(revision.downloadUrl, { headers: { range: `bytes=${pdf.length}-` } })
  expect(past.status).toBe(416)
  expect(past.headers.get('content-range')).toBe(`bytes */${pdf.length}`)

  const zip = Buffer.concat([Buffer.from('PK\u0003\u0004', 'latin1'), Buffer.alloc(20, 7)])
  const attached = await uploadRevision(writer.c, doc.id, zip, { code: 'P02', status: 'S2', fileName: 'models.zip' })
  const download = await reader.c.get(attached.downloadUrl)
  expect(download.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''models.zip")
  expect(download.headers.get('content-security-policy')).toBe('sandbox')
  expect(download.headers.get('x-content-type-options')).toBe('nosniff')
  await bytesOf(download)
  await expectProblem(await reader.c.get(`/api/revisions/${attached.id}/other`), 404)
  await expectProblem(await reader.c.get('/api/revisions/not-an-id/file'), 404)
})

test('sheets: a PNG and a PDF get a PNG raster at most 4096 px on the long side; other files have none (404)', async () => {
  const { writer, reader, doc } = await withDocument()
  const wide = pngImage(5000, 40, 3)
  const image = await uploadRevision(writer.c, doc.id, wide, { code: 'P01', status: 'S2', fileName: 'site plan.png', contentType: 'image/png' })
  expect(image.sheet).toEqual({ width: 4096, height: 33 })
  const raster = await reader.c.get(`/api/revisions/${image.id}/sheet`)
  expect(raster.headers.get('content-type')).toBe('image/png')
  expect(raster.headers.get('content-disposition')).toBe("inline; filename*=UTF-8''site%20plan-sheet.png")
  expect(await sharp(await bytesOf(raster)).metadata()).toMatchObject({ format: 'png', width: 4096, height: 33 })

  const pdf = await uploadRevision(writer.c, doc.id, pdfDocument(595, 842), { code: 'P02', status: 'S2' })
  expect(pdf.sheet?.height).toBe(4096)
  expect(pdf.sheet?.width).toBeGreaterThanOrEqual(2894)
  expect(pdf.sheet?.width).toBeLessThanOrEqual(2896)
  const page = sharp(await bytesOf(await reader.c.get(`/api/revisions/${pdf.id}/sheet`)))
  expect(await page.metadata()).toMatchObject({ format: 'png', height: 4096 })
  // The page is white with a blue rectangle near its bottom-left corner.
  const { data, info } = await page.raw().toBuffer({ resolveWithObject: true })
  const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)]
  expect(at(10, 10)).toEqual([255, 255, 255])
  expect(at(Math.round(info.width * (100 / 595)), Math.round(info.height * (1 - 100 / 842)))).toEqual([0, 0, 255])

  const text = await uploadRevision(writer.c, doc.id, Buffer.from('notes\n'), { code: 'P03', status: 'S2', fileName: 'notes.txt' })
  expect(text.sheet).toBeNull()
  await expectProblem(await reader.c.get(`/api/revisions/${text.id}/sheet`), 404, 'KR_NOT_FOUND')
  // A broken PDF is stored all the same, without a sheet.
  const broken = await uploadRevision(writer.c, doc.id, Buffer.from('%PDF-1.7\nnot really a PDF\n'), { code: 'P04', status: 'S2' })
  expect([broken.contentType, broken.sheet]).toEqual(['application/pdf', null])
})

test('a new revision carries the drawing’s pins to its sheet at the same place, flagged for review', async () => {
  const { tenant, admin, writer, project, doc } = await withDocument()
  const p01 = await uploadRevision(writer.c, doc.id, pdfDocument(), { code: 'P01', status: 'S2' })
  const report = await newReport(admin.c, project.id)
  const item = await insertItem(t, { tenantId: tenant.id, userId: writer.user.id }, { id: report.id, projectId: project.id })
  await withTenant(t.db, tenant.id, (tx) => tx.insert(itemPins).values({ tenantId: tenant.id, itemId: item.id, documentId: doc.id, revisionId: p01.id, x: 0.25, y: 0.75, createdAt: t.now(), updatedAt: t.now() }))
  const p02 = await uploadRevision(writer.c, doc.id, pdfDocument(), { code: 'P02', status: 'S2' })
  const pins = await withTenant(t.db, tenant.id, (tx) => tx.select({ revisionId: itemPins.revisionId, x: itemPins.x, y: itemPins.y, needsReview: itemPins.needsReview }).from(itemPins).where(eq(itemPins.itemId, item.id)))
  expect(pins).toEqual([{ revisionId: p02.id, x: 0.25, y: 0.75, needsReview: true }])
})

test('the storage quota counts revisions and open revision uploads: past it, 413 KR_QUOTA_EXCEEDED', async () => {
  const { tenant, writer, doc } = await withDocument()
  const file = pdfDocument()
  await setQuota(t, tenant.id, file.length * 2 + 10)
  await uploadRevision(writer.c, doc.id, file, { code: 'P01', status: 'S2' })
  const open = await createRevisionUpload(writer.c, doc.id, file, { code: 'P02', status: 'S2' })
  const full = await expectProblem(await startRevisionUpload(writer.c, doc.id, 20, { code: 'P02', status: 'S2' }), 413, 'KR_QUOTA_EXCEEDED')
  expect(full).toMatchObject({ quotaBytes: file.length * 2 + 10, usedBytes: file.length * 2, requestedBytes: 20 })
  expect((await writer.c.delete(`/api/uploads/${open.id}`)).status).toBe(204)
  await createRevisionUpload(writer.c, doc.id, file, { code: 'P02', status: 'S2' })
})

test('two uploads of the same next code complete at once: one is issued, the other is refused with 409 and the code now expected', async () => {
  const { tenant, admin, writer, doc } = await withDocument()
  await uploadRevision(writer.c, doc.id, pdfDocument(), { code: 'P01', status: 'S2' })
  const a = pdfDocument(600, 800)
  const b = pdfDocument(800, 600)
  const sa = await createRevisionUpload(writer.c, doc.id, a, { code: 'P02', status: 'S2' })
  const sb = await createRevisionUpload(admin.c, doc.id, b, { code: 'P02', status: 'S3' })
  await sendBytes(writer.c, sa.id, a)
  await sendBytes(admin.c, sb.id, b)
  const [ra, rb] = await Promise.all([writer.c.post(`/api/uploads/${sa.id}/complete`), admin.c.post(`/api/uploads/${sb.id}/complete`)])
  expect([ra.status, rb.status].sort()).toEqual([201, 409])
  const [lost, lostClient, lostSession] = ra.status === 409 ? [ra, writer.c, sa] : [rb, admin.c, sb]
  const conflict = await expectProblem(lost, 409, 'KR_REVISION_CONFLICT')
  expect(conflict).toMatchObject({ currentCode: 'P02', expectedCode: 'P03' })
  expect(conflict.errors?.code?.[0]).toMatch(/P03 is next/)
  expect(await getUpload(lostClient, lostSession.id)).toMatchObject({ state: 'failed', failureReason: 'conflict' })
  expect(await staged(tenant.id, lostSession.id)).toBe(false)
  expect((await detail(writer.c, doc.id)).revisions.map((r) => r.code)).toEqual(['P02', 'P01'])
})

test('one multipart request (the form without JavaScript) issues a revision the same way; its problems come back as field errors', async () => {
  const { writer, reader, doc } = await withDocument()
  const pdf = pdfDocument()
  const revision = await body<Revision>(await postRevisionForm(writer.c, doc.id, { bytes: pdf, name: 'plan.pdf', type: 'application/pdf' }, { code: 'p01', status: 'S2', comment: 'First issue' }), 201)
  expect(revision).toMatchObject({ code: 'P01', status: 'S2', comment: 'First issue', fileName: 'plan.pdf', contentType: 'application/pdf', sizeBytes: pdf.length, sha256: sha256Hex(pdf) })
  expect(revision.sheet).not.toBeNull()
  expect(await bytesOf(await reader.c.get(revision.downloadUrl))).toEqual(pdf)

  const wrong = await expectProblem(await postRevisionForm(writer.c, doc.id, { bytes: pdf, name: 'plan.pdf' }, { code: 'P01', status: 'Q1' }), 400, 'KR_REVISION_INVALID')
  expect(Object.keys(wrong.errors ?? {}).sort()).toEqual(['code', 'status'])
  const noFile = await expectProblem(await postRevisionForm(writer.c, doc.id, undefined, { code: 'P02', status: 'S2' }), 400)
  expect(noFile.errors).toHaveProperty('file')
  const empty = await expectProblem(await postRevisionForm(writer.c, doc.id, { bytes: new Uint8Array(), name: '' }, { code: 'P02', status: 'S2' }), 400)
  expect(empty.errors).toHaveProperty('file')
  await expectProblem(await writer.c.request(`/api/documents/${doc.id}/revisions`, { method: 'POST', json: { code: 'P02' } }), 400)
  // The body as a browser frames it, arriving a few bytes at a time: boundaries split across reads are found.
  const form = new FormData()
  form.append('code', 'P02')
  form.append('status', 'S3')
  form.append('file', new File([new Uint8Array(pdf)], 'split.pdf'))
  const framed = new Response(form)
  const whole = new Uint8Array(await framed.arrayBuffer())
  let at = 0
  const trickle = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= whole.length) return controller.close()
      controller.enqueue(whole.slice(at, at + 7))
      at += 7
    },
  })
  const trickled = await writer.c.request(`/api/documents/${doc.id}/revisions`, {
    method: 'POST',
    headers: { 'content-type': framed.headers.get('content-type') ?? '' },
    body: trickle,
    duplex: 'half',
  } as RequestInit)
  expect(await body<Revision>(trickled, 201)).toMatchObject({ code: 'P02', fileName: 'split.pdf', sha256: sha256Hex(pdf) })
  const declared = await writer.c.request(`/api/documents/${doc.id}/revisions`, { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(2 * 1024 ** 3) }, body: '--x--' })
  await expectProblem(declared, 413, 'KR_BODY_TOO_LARGE')

  const large = pngImage(300, 300, 5)
  const third = await body<Revision>(await postRevisionForm(writer.c, doc.id, { bytes: large, name: 'scan.png' }, { code: 'P03', status: 'S3' }), 201)
  expect([third.contentType, third.sheet, third.version]).toEqual(['image/png', { width: 300, height: 300 }, 3])
  expect((await detail(reader.c, doc.id)).revisions.map((r) => r.code)).toEqual(['P03', 'P02', 'P01'])
})

test('a read-only member may download a revision and its sheet, but not upload one (403)', async () => {
  const { writer, reader, doc } = await withDocument()
  const revision = await uploadRevision(writer.c, doc.id, pdfDocument(), { code: 'P01', status: 'S2' })
  await expectProblem(await startRevisionUpload(reader.c, doc.id, 100, { code: 'P02', status: 'S2' }), 403, 'KR_FORBIDDEN')
  await expectProblem(await postRevisionForm(reader.c, doc.id, { bytes: pdfDocument(), name: 'a.pdf' }, { code: 'P02', status: 'S2' }), 403, 'KR_FORBIDDEN')
  await bytesOf(await reader.c.get(revision.downloadUrl))
  await bytesOf(await reader.c.get(`/api/revisions/${revision.id}/sheet`))
})

test('another organisation’s document, revision and session answer 404 to every call', async () => {
  const { writer, doc } = await withDocument()
  const stranger = await organisation(t)
  const revision = await uploadRevision(writer.c, doc.id, pdfDocument(), { code: 'P01', status: 'S2' })
  const file = pdfDocument(600, 800)
  const session = await createRevisionUpload(writer.c, doc.id, file, { code: 'P02', status: 'S2' })
  for (const c of [stranger.admin.c, stranger.writer.c]) {
    await expectProblem(await startRevisionUpload(c, doc.id, 100, { code: 'P02', status: 'S2' }), 404, 'KR_NOT_FOUND')
    await expectProblem(await postRevisionForm(c, doc.id, { bytes: file, name: 'a.pdf' }, { code: 'P02', status: 'S2' }), 404, 'KR_NOT_FOUND')
    await expectProblem(await c.get(revision.downloadUrl), 404, 'KR_NOT_FOUND')
    await expectProblem(await c.get(`/api/revisions/${revision.id}/sheet`), 404, 'KR_NOT_FOUND')
    await expectProblem(await c.get(`/api/uploads/${session.id}`), 404, 'KR_NOT_FOUND')
    await expectProblem(await putChunk(c, session.id, 0, file), 404, 'KR_NOT_FOUND')
    await expectProblem(await c.post(`/api/uploads/${session.id}/complete`), 404, 'KR_NOT_FOUND')
    await expectProblem(await c.delete(`/api/uploads/${session.id}`), 404, 'KR_NOT_FOUND')
  }
  expect((await getUpload(writer.c, session.id)).offset).toBe(0)
})

test('a member whose folder entry is none finds the document’s revisions missing (404), files and uploads alike', async () => {
  const { admin, writer, project } = await organisation(t).then(async (org) => ({ ...org, project: await documentProject(org.admin.c) }))
  const folder = await body<{ id: string }>(await admin.c.post(`/api/projects/${project.id}/folders`, { name: 'Confidential' }), 201)
  const doc = await newDocument(admin.c, project.id, { folderId: folder.id })
  const revision = await uploadRevision(admin.c, doc.id, pdfDocument(), { code: 'P01', status: 'S2' })
  await bytesOf(await writer.c.get(revision.downloadUrl))
  await body(await put(admin.c, `/api/folders/${folder.id}/permissions`, { entries: [{ subjectKind: 'user', subject: writer.user.id, level: 'none' }] }))
  await expectProblem(await writer.c.get(revision.downloadUrl), 404, 'KR_NOT_FOUND')
  await expectProblem(await writer.c.get(`/api/revisions/${revision.id}/sheet`), 404, 'KR_NOT_FOUND')
  await expectProblem(await startRevisionUpload(writer.c, doc.id, 100, { code: 'P02', status: 'S2' }), 404, 'KR_NOT_FOUND')
})

/** A multipart body framed by hand (for what no browser sends): each part's header lines, a blank line, its bytes. */
function framed(parts: Array<{ headers: string[]; bytes: string | Uint8Array }>, boundary = 'XyZ-7'): Buffer {
  const pieces = parts.flatMap((p) => [Buffer.from(`--${boundary}\r\n${p.headers.join('\r\n')}\r\n\r\n`), Buffer.from(p.bytes), Buffer.from('\r\n')])
  return Buffer.concat([...pieces, Buffer.from(`--${boundary}--\r\n`)])
}
const field = (name: string, value: string) => ({ headers: [`Content-Disposition: form-data; name="${name}"`], bytes: value })
const filePart = (name: string, fileName: string, bytes: Uint8Array) => ({
  headers: [`Content-Disposition: form-data; name="${name}"; filename="${fileName}"`, 'Content-Type: application/pdf'],
  bytes,
})
const postFramed = (c: TestClient, documentId: string, bytes: Uint8Array, boundary = 'XyZ-7') =>
  c.request(`/api/documents/${documentId}/revisions`, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body: new Uint8Array(bytes) })

test('the one-request form’s edges (busboy): cut short, a broken part header, too many parts, a field too long are 400; a file under another name is skipped; names are kept as sent', async () => {
  const { tenant, writer, doc } = await withDocument()
  const pdf = pdfDocument()
  const whole = framed([field('code', 'P01'), field('status', 'S2'), filePart('file', 'plan.pdf', pdf)])
  // Cut inside the file, or just before the closing boundary's dashes: nothing is issued.
  for (const cut of [whole.subarray(0, 300), whole.subarray(0, whole.length - 4)]) {
    const short = await expectProblem(await postFramed(writer.c, doc.id, cut), 400)
    expect(short.detail).toMatch(/^Send the revision as multipart\/form-data/)
  }
  await expectProblem(await postFramed(writer.c, doc.id, Buffer.from('no boundary anywhere')), 400)
  await expectProblem(await postFramed(writer.c, doc.id, framed([{ headers: ['Content-Disposition form-data; name="code"'], bytes: 'P01' }])), 400)
  // At most 20 parts: 20 are taken, 21 refused.
  const extra = (n: number) => Array.from({ length: n }, (_, i) => field(`extra${i}`, 'x'))
  const many = await expectProblem(await postFramed(writer.c, doc.id, framed([field('code', 'P01'), field('status', 'S2'), ...extra(18), filePart('file', 'plan.pdf', pdf)])), 400)
  expect(many.detail).toMatch(/at most 20 fields/)
  // A field of 8 KB is taken, one byte more is refused with an error on that field.
  const long = await expectProblem(await postFramed(writer.c, doc.id, framed([field('code', 'P01'), field('note', 'n'.repeat(8 * 1024 + 1)), field('status', 'S2')])), 400)
  expect(long.errors?.note).toEqual(['note is too long.'])
  expect((await detail(writer.c, doc.id)).revisions).toEqual([])
  const decoy = pngImage(20, 20, 2)
  const body20 = framed([
    field('code', 'P01'),
    field('status', 'S2'),
    field('note', 'n'.repeat(8 * 1024)),
    ...extra(15),
    filePart('attachment', 'decoy.png', decoy),
    filePart('file', 'Level 3 — plan’s.pdf', pdf),
  ])
  const taken = await body<Revision>(await postFramed(writer.c, doc.id, body20), 201)
  expect(taken).toMatchObject({ code: 'P01', fileName: 'Level 3 — plan’s.pdf', contentType: 'application/pdf', sha256: sha256Hex(pdf) })
  // A browser escapes a quote in a file name as %22; a path is kept as sent.
  const form = new FormData()
  form.append('code', 'P02')
  form.append('status', 'S2')
  form.append('file', new File([new Uint8Array(pdf)], 'drawings/"GA" plan.pdf'))
  const quoted = await body<Revision>(await writer.c.request(`/api/documents/${doc.id}/revisions`, { method: 'POST', body: form }), 201)
  expect(quoted.fileName).toBe('drawings/"GA" plan.pdf')
  expect((await blobStoreFor(t.config).list(`staging/${tenant.id}`)).filter((e) => e.key.split('/').at(-1)?.startsWith('direct-'))).toEqual([])
})

test('the form reader keeps memory flat: a slow consumer holds the body back (backpressure); past maxBodyBytes it stops as too-large', async () => {
  const size = 16 * 1024 * 1024
  const chunk = Buffer.alloc(64 * 1024, 7)
  let produced = 0
  let consumed = 0
  let lead = 0
  async function* body() {
    yield Buffer.from('--b\r\nContent-Disposition: form-data; name="code"\r\n\r\nP01\r\n--b\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n')
    for (produced = 0; produced < size;) {
      produced += chunk.length
      yield chunk
    }
    yield Buffer.from('\r\n--b--\r\n')
  }
  const seen: string[] = []
  await readMultipart(body(), 'b', { maxBodyBytes: size + 1024, maxParts: 5, maxFieldBytes: 100 }, async (part) => {
    seen.push(part.kind === 'field' ? `${part.name}=${part.value}` : `${part.name}:${part.fileName}`)
    if (part.kind !== 'file') return
    // The consumer is busy before it reads a byte: the body is not read on meanwhile.
    for (let i = 0; i < 100; i++) await new Promise((resolve) => setImmediate(resolve))
    lead = produced
    for await (const bytes of part.bytes) {
      consumed += (bytes as Buffer).length
      lead = Math.max(lead, produced - consumed)
      await new Promise((resolve) => setImmediate(resolve))
    }
  })
  expect(seen).toEqual(['code=P01', 'file:big.bin'])
  expect(consumed).toBe(size)
  // What was read ahead of the consumer stays at a chunk or two of the body, whatever the file's size.
  expect(lead).toBeLessThan(1024 * 1024)

  const refused = await readMultipart(body(), 'b', { maxBodyBytes: 1024 * 1024, maxParts: 5, maxFieldBytes: 100 }, async (part) => {
    if (part.kind === 'file') for await (const bytes of part.bytes) void bytes
  }).catch((error: unknown) => error)
  expect(refused).toBeInstanceOf(MultipartError)
  expect((refused as MultipartError).reason).toBe('too-large')
})
