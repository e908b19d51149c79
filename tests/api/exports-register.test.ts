import { randomBytes } from 'node:crypto'
import ExcelJS from 'exceljs'
import { parse } from 'csv-parse/sync'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { Transmittal } from '~/lib/doc-control/types'
import type { Folder, SearchPage } from '~/lib/documents/types'
import { show } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { readPdf } from '#tests/helpers/pdf-reader'
import { documentProject, newDocument, uploadRevision } from '#tests/helpers/documents'
import { body, organisation, put } from '#tests/helpers/reporting-a'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2025-03-10T08:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

/** Every page of the documents screen's search, as the API answers it. */
async function searchAll(c: Parameters<typeof documentProject>[0], search: string) {
  const first = await body<SearchPage>(await c.get(`/api/documents/search?${search}&pageSize=100`))
  return first.items
}

test('the register holds the documents the search finds, with the metadata fields as columns, as CSV and XLSX; another organisation’s project is a 404', async () => {
  const { admin, reader } = await organisation(t)
  const project = await documentProject(admin.c)
  await body(await put(admin.c, `/api/projects/${project.id}/metadata-fields`, { fields: [{ key: 'originator', label: 'Originator', kind: 'text', required: false }] }))
  const folder = await body<Folder>(await admin.c.post(`/api/projects/${project.id}/folders`, { name: 'Drawings', parentId: null }), 201)
  await newDocument(admin.c, project.id, { title: 'Ground floor plan, Zoë Ørsted', metadata: { originator: '山田 太郎' } })
  await newDocument(admin.c, project.id, { title: 'Roof plan', folderId: folder.id, metadata: { originator: 'Łukasz Wróbel' } })

  const expected = await searchAll(reader.c, `projectId=${project.id}`)
  expect(expected).toHaveLength(2)
  const csv = await reader.c.get(`/api/documents/register/export?format=csv&projectId=${project.id}`)
  expect(csv.status, await show(csv)).toBe(200)
  expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8')
  const rows = parse(await csv.text(), { bom: true }) as string[][]
  expect(rows[0]).toEqual(['Number', 'Title', 'Revision', 'Suitability', 'State', 'Discipline', 'Type', 'Revision issued (UTC)', 'Updated (UTC)', 'Originator', 'Link'])
  expect(rows.slice(1).map((r) => [r[0], r[1], r[3], r[4]])).toEqual(expected.map((d) => [d.number, d.title, d.status, d.state]))
  expect(rows.slice(1).map((r) => r[9]).sort()).toEqual(['Łukasz Wróbel', '山田 太郎'].sort())

  // A folder: only what is in it, as the screen lists it.
  const inFolder = await searchAll(reader.c, `projectId=${project.id}&folderId=${folder.id}`)
  const xlsx = await reader.c.get(`/api/documents/register/export?format=xlsx&projectId=${project.id}&folderId=${folder.id}`)
  expect(xlsx.status, await show(xlsx)).toBe(200)
  expect(xlsx.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.load(await xlsx.arrayBuffer())
  const sheet = workbook.worksheets[0]
  const read: unknown[][] = []
  sheet?.eachRow((row, index) => {
    if (index > 1) read.push([row.getCell(1).value, row.getCell(2).value, row.getCell(10).value])
  })
  expect(read).toEqual(inFolder.map((d) => [d.number, d.title, 'Łukasz Wróbel']))

  const stranger = await organisation(t)
  expect((await stranger.admin.c.get(`/api/documents/register/export?format=csv&projectId=${project.id}`)).status).toBe(404)
  expect((await stranger.admin.c.get(`/api/documents/register/export?format=csv&folderId=${folder.id}`)).status).toBe(404)
  expect((await reader.c.get(`/api/documents/register/export?format=doc&projectId=${project.id}`)).status).toBe(400)
})

test('the transmittals export has one row per recipient: sent, to whom, acknowledged when; only what the caller may read; another organisation’s project is a 404', async () => {
  const { admin, writer, reader } = await organisation(t)
  const project = await documentProject(admin.c, 'EXP01')
  const doc = await newDocument(writer.c, project.id)
  const revision = await uploadRevision(writer.c, doc.id, randomBytes(48), { code: 'P01', status: 'S2', fileName: 'sheet.bin' })
  const made = await body<Transmittal>(await writer.c.post(`/api/projects/${project.id}/transmittals`, { subject: 'Drawings for Zoë Ørsted', revisionIds: [revision.id] }), 201)
  await body(await put(writer.c, `/api/transmittals/${made.id}/recipients`, { userIds: [reader.user.id, admin.user.id], partyIds: [] }))
  await body(await writer.c.post(`/api/transmittals/${made.id}/send`))
  const acknowledged = await body<Transmittal>(await reader.c.post(`/api/transmittals/${made.id}/acknowledge`))
  const listed = await body<{ items: Transmittal[] }>(await reader.c.get(`/api/projects/${project.id}/transmittals`))
  expect(listed.items.map((x) => x.id)).toEqual([made.id])

  const response = await reader.c.get(`/api/projects/${project.id}/transmittals/export?format=csv`)
  expect(response.status, await show(response)).toBe(200)
  const records = parse(await response.text(), { bom: true, columns: true }) as Array<Record<string, string>>
  const recipients = listed.items[0]?.recipients ?? []
  expect(records.map((r) => [r.Number, r.Subject, r.To, r['To (e-mail)'], r['Acknowledged (UTC)'], r['Sent (UTC)']])).toEqual(
    recipients.map((x) => [made.number, 'Drawings for Zoë Ørsted', x.displayName, x.email, x.acknowledgedAt ?? '', listed.items[0]?.sentAt]),
  )
  expect(records.find((r) => r.To === reader.user.displayName)?.['Acknowledged (UTC)']).toBe(byUserAck(acknowledged, reader.user.id))

  const xlsx = await reader.c.get(`/api/projects/${project.id}/transmittals/export?format=xlsx&status=sent`)
  expect(xlsx.status, await show(xlsx)).toBe(200)
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.load(await xlsx.arrayBuffer())
  expect(workbook.worksheets[0]?.rowCount).toBe(1 + recipients.length)

  const stranger = await organisation(t)
  expect((await stranger.admin.c.get(`/api/projects/${project.id}/transmittals/export?format=csv`)).status).toBe(404)
})

function byUserAck(transmittal: Transmittal, userId: string): string | undefined {
  return transmittal.recipients.find((r) => r.userId === userId)?.acknowledgedAt ?? undefined
}

test('the transmittal cover sheet PDF lists number, from, to, purpose and each document with revision and suitability; only for who may read it', async () => {
  const { admin, writer, reader } = await organisation(t)
  const project = await documentProject(admin.c, 'CVR01')
  const doc = await newDocument(writer.c, project.id, { title: 'Façade detail 山田' })
  const revision = await uploadRevision(writer.c, doc.id, randomBytes(48), { code: 'P02', status: 'S3', fileName: 'sheet.bin' })
  const made = await body<Transmittal>(await writer.c.post(`/api/projects/${project.id}/transmittals`, { subject: 'For Łukasz Wróbel', revisionIds: [revision.id], purpose: 'for-review' }), 201)
  await body(await put(writer.c, `/api/transmittals/${made.id}/recipients`, { userIds: [reader.user.id], partyIds: [] }))
  await body(await writer.c.post(`/api/transmittals/${made.id}/send`))

  const response = await reader.c.get(`/api/transmittals/${made.id}/cover-sheet`)
  expect(response.status, await show(response)).toBe(200)
  expect(response.headers.get('content-type')).toBe('application/pdf')
  const pdf = await readPdf(await response.arrayBuffer())
  expect(pdf.fontsEmbedded, pdf.fonts).toBe(true)
  for (const expected of [`Transmittal ${made.number}`, 'For Łukasz Wróbel', 'For review', writer.user.displayName, reader.user.email, doc.number, 'Façade detail 山田', 'P02', 'S3']) {
    expect(pdf.text).toContain(expected)
  }
  // Reading the sheet is not opening the transmittal.
  const after = await body<{ items: Transmittal[] }>(await writer.c.get(`/api/projects/${project.id}/transmittals`))
  expect(after.items[0]?.recipients[0]?.openedAt).toBeNull()

  const stranger = await organisation(t)
  expect((await stranger.admin.c.get(`/api/transmittals/${made.id}/cover-sheet`)).status).toBe(404)
})
