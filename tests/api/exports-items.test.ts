import ExcelJS from 'exceljs'
import { parse } from 'csv-parse/sync'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { Item } from '~/lib/reporting/types'
import { show } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { readPdf } from '#tests/helpers/pdf-reader'
import { allPages, createItem, createOrg, createPackage, createReport, json } from '#tests/helpers/reporting-b'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2025-03-10T08:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'
const COLUMNS = ['Number', 'Title', 'Status', 'Priority', 'Assignee', 'Package', 'Due date', 'Overdue', 'Project', 'Report', 'Next action', 'Location', 'Created by', 'Created (UTC)', 'Updated (UTC)', 'Link']

/** The CSV read by csv-parse, as records by header. */
async function csvRecords(response: Response): Promise<Array<Record<string, string>>> {
  expect(response.status, await show(response)).toBe(200)
  expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8')
  expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="items-2025-03-10\.csv"$/)
  const text = await response.text()
  const rows = parse(text, { bom: true }) as string[][]
  expect(rows[0]).toEqual(COLUMNS)
  return parse(text, { bom: true, columns: true }) as Array<Record<string, string>>
}

/** The XLSX read back by exceljs: the first sheet's rows as records by header. */
async function xlsxRecords(response: Response): Promise<Array<Record<string, unknown>>> {
  expect(response.status, await show(response)).toBe(200)
  expect(response.headers.get('content-type')).toBe(XLSX)
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.load(await response.arrayBuffer())
  const sheet = workbook.worksheets[0]
  if (!sheet) throw new Error('no sheet')
  const header = (sheet.getRow(1).values as unknown[]).slice(1)
  expect(header).toEqual(COLUMNS)
  const records: Array<Record<string, unknown>> = []
  sheet.eachRow((row, index) => {
    if (index === 1) return
    const values = (row.values as unknown[]).slice(1)
    records.push(Object.fromEntries(header.map((name, i) => [name as string, values[i] ?? ''])))
  })
  return records
}

function expectRowsOf(records: Array<Record<string, unknown>>, items: Item[]) {
  expect(records.map((r) => [Number(r.Number), r.Title, r.Assignee, r['Next action']])).toEqual(
    items.map((item) => [item.number, item.title, item.assignee?.displayName ?? '', item.nextAction.label]),
  )
}

test('the items export holds exactly the rows the outstanding list answers for the same filters, as CSV and XLSX', async () => {
  const org = await createOrg(t)
  await createPackage(t, org.admin.member, 'electrical')
  const secondReport = await createReport(t, org.admin.member, org.projectId)
  const names = ['Zoë Ørsted’s =SUM(A1) tile', 'Łukasz Wróbel, "quoted"\nsecond line', '山田 太郎 の 窓']
  for (const [index, title] of names.entries()) {
    await createItem(org.writer, index === 2 ? secondReport : org.reportId, {
      title,
      assigneeUserId: index === 0 ? org.other.member.user.id : null,
      packageKey: index === 1 ? 'electrical' : null,
      dueDate: index === 1 ? '2025-03-01' : null,
    })
  }

  const everything = await allPages(org.reader, '/api/items/outstanding?limit=2', 'before')
  expect(everything.items).toHaveLength(3)
  const csv = await csvRecords(await org.reader.get('/api/items/outstanding/export?format=csv'))
  expectRowsOf(csv, everything.items)
  expect(csv.find((r) => r.Title?.startsWith('Łukasz'))).toMatchObject({ Title: 'Łukasz Wróbel, "quoted"\nsecond line', Package: 'Package electrical', Overdue: 'yes', 'Due date': '2025-03-01' })
  expect(csv.map((r) => r.Link)).toEqual(everything.items.map((item) => expect.stringMatching(new RegExp(`/items/${item.id}$`))))
  // A title that starts like a formula goes out behind an apostrophe only when it starts so.
  expect(csv.find((r) => r.Title?.includes('Ørsted'))?.Title).toBe('Zoë Ørsted’s =SUM(A1) tile')

  const xlsx = await xlsxRecords(await org.reader.get('/api/items/outstanding/export?format=xlsx'))
  expectRowsOf(xlsx, everything.items)

  // The screen's filters: the report, overdue, the assignee as "me".
  const onReport = await allPages(org.reader, `/api/items/outstanding?reportId=${secondReport}`, 'before')
  expectRowsOf(await csvRecords(await org.reader.get(`/api/items/outstanding/export?format=csv&report=${secondReport}`)), onReport.items)
  const overdue = await allPages(org.reader, '/api/items/outstanding?overdue=true', 'before')
  expect(overdue.items).toHaveLength(1)
  expectRowsOf(await xlsxRecords(await org.reader.get('/api/items/outstanding/export?format=xlsx&overdue=1')), overdue.items)
  const mine = await allPages(org.other, `/api/items/outstanding?assigneeUserId=${org.other.member.user.id}`, 'before')
  expect(mine.items).toHaveLength(1)
  expectRowsOf(await csvRecords(await org.other.get('/api/items/outstanding/export?format=csv&assignee=me')), mine.items)
})

test('an export of more items than one batch keeps the list’s order and misses none', async () => {
  const org = await createOrg(t)
  for (let i = 0; i < 205; i++) await createItem(org.writer, org.reportId, { title: `Item ${i}` })
  const everything = await allPages(org.reader, `/api/items/outstanding?limit=100&projectId=${org.projectId}`, 'before')
  expect(everything.items).toHaveLength(205)
  expectRowsOf(await csvRecords(await org.reader.get(`/api/items/outstanding/export?format=csv&project=${org.projectId}`)), everything.items)
})

test('another organisation’s project or report is a 404, a bad filter a 400, and nobody signed out gets a file', async () => {
  const org = await createOrg(t)
  const stranger = await createOrg(t)
  await createItem(org.writer, org.reportId)
  for (const path of [`project=${org.projectId}`, `report=${org.reportId}`]) {
    const response = await stranger.admin.get(`/api/items/outstanding/export?format=csv&${path}`)
    expect(response.status, await show(response)).toBe(404)
    expect(response.headers.get('content-type')).toBe('application/problem+json')
  }
  const bad = await org.reader.get('/api/items/outstanding/export?format=pdfx&status=closed')
  expect(bad.status).toBe(400)
  const problem = (await bad.json()) as { errors: Record<string, string[]> }
  expect(Object.keys(problem.errors)).toEqual(expect.arrayContaining(['format', 'status']))
  const { client } = await import('#tests/helpers/auth')
  expect((await client(t).get('/api/items/outstanding/export?format=csv')).status).toBe(401)
})

test('the contract lists the export with both spreadsheet media types', async () => {
  const org = await createOrg(t)
  const document = (await (await org.reader.get('/api/openapi.json')).json()) as { paths: Record<string, { get?: { responses: Record<string, { content?: Record<string, unknown> }> } }> }
  const ok = document.paths['/api/items/outstanding/export']?.get?.responses['200']
  expect(Object.keys(ok?.content ?? {})).toEqual(['text/csv', XLSX])
})

test('the punch list PDF lists the same items, names in any script, grouped as asked, with embedded fonts, links and page numbers', async () => {
  const org = await createOrg(t)
  await createPackage(t, org.admin.member, 'glazing')
  const names = ['Zoë Ørsted', 'Łukasz Wróbel', '山田 太郎']
  for (const [index, title] of names.entries()) {
    await createItem(org.writer, org.reportId, { title, packageKey: index === 2 ? 'glazing' : null, dueDate: '2025-03-20' })
  }
  const listed = await allPages(org.reader, `/api/items/outstanding?projectId=${org.projectId}`, 'before')
  const response = await org.reader.get(`/api/items/outstanding/punch-list?project=${org.projectId}&group=package`, { headers: { 'accept-language': 'de-DE' } })
  expect(response.status, await show(response)).toBe(200)
  expect(response.headers.get('content-type')).toBe('application/pdf')
  expect(response.headers.get('content-disposition')).toBe('attachment; filename="punch-list-2025-03-10.pdf"')
  const bytes = new Uint8Array(await response.arrayBuffer())
  const pdf = await readPdf(bytes)
  expect(pdf.pages).toBe(1)
  expect(pdf.fontsEmbedded, pdf.fonts).toBe(true)
  for (const name of names) expect(pdf.text).toContain(name)
  // Every listed item, as many as the list has, and in the screen's grouping: "glazing" before "No package".
  const numbers = [...pdf.text.matchAll(/#(\d+)\s/g)].map((m) => Number(m[1]))
  expect([...numbers].sort()).toEqual(listed.items.map((item) => item.number).sort())
  expect(pdf.text.indexOf('glazing (1)')).toBeLessThan(pdf.text.indexOf('No package (2)'))
  expect(pdf.text).toContain('20.03.2025')
  expect(pdf.text).toMatch(/Punch list · Page 1/)
  // The links back to each item's page.
  const raw = Buffer.from(bytes).toString('latin1')
  for (const item of listed.items) expect(raw).toContain(`/items/${item.id}`)

  const stranger = await createOrg(t)
  expect((await stranger.reader.get(`/api/items/outstanding/punch-list?project=${org.projectId}`)).status).toBe(404)
})

test('the report PDF has a cover, every item with its responses in order and its close confirmation, links, and the report’s name in the footer', async () => {
  const org = await createOrg(t)
  const first = await createItem(org.writer, org.reportId, { title: 'Zoë Ørsted: cracked tile', description: 'Near the east door', assigneeUserId: org.other.member.user.id })
  const second = await createItem(org.writer, org.reportId, { title: '山田 太郎 の 窓' })
  await json(await org.other.post(`/api/items/${first.id}/responses`, { body: 'Łukasz Wróbel replaced it', requestClose: true }), 201)
  await json(await org.writer.post(`/api/items/${first.id}/confirm-close`, { confirmed: true, body: 'Checked on site' }))
  const report = await json<{ title: string | null }>(await org.reader.get(`/api/reports/${org.reportId}`))

  const response = await org.reader.get(`/api/reports/${org.reportId}/pdf`, { headers: { 'accept-language': 'en-GB' } })
  expect(response.status, await show(response)).toBe(200)
  expect(response.headers.get('content-type')).toBe('application/pdf')
  const bytes = new Uint8Array(await response.arrayBuffer())
  const pdf = await readPdf(bytes)
  expect(pdf.fontsEmbedded, pdf.fonts).toBe(true)
  expect(pdf.pages).toBeGreaterThanOrEqual(1)
  const text = pdf.text
  for (const expected of [report.title ?? '', 'Zoë Ørsted: cracked tile', '山田 太郎 の 窓', 'Łukasz Wróbel replaced it', 'Near the east door', 'Checked on site', 'Close confirmed by', `${org.writer.member.user.displayName}`, '2 items: 1 open, 0 close requested, 1 closed']) {
    expect(text).toContain(expected)
  }
  // Responses in order: the request before the confirmation; items oldest first.
  expect(text.indexOf('Łukasz Wróbel replaced it')).toBeLessThan(text.indexOf('Checked on site'))
  // The items in the report's own order (oldest first, then by id: these two share the test clock's instant).
  const listedItems = await json<{ items: Array<{ title: string }> }>(await org.reader.get(`/api/reports/${org.reportId}/items`))
  const [firstListed, secondListed] = listedItems.items.map((item) => item.title)
  expect(text.indexOf(firstListed ?? '')).toBeLessThan(text.indexOf(secondListed ?? ''))
  expect(text).toMatch(new RegExp(`${(report.title ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} · Page 1`))
  const raw = Buffer.from(bytes).toString('latin1')
  for (const item of [first, second]) expect(raw).toContain(`/items/${item.id}`)

  const stranger = await createOrg(t)
  expect((await stranger.admin.get(`/api/reports/${org.reportId}/pdf`)).status).toBe(404)
  expect((await org.reader.get('/api/reports/6f1c0d6e-8d1b-4c53-9a43-1d1e2f3a4b5c/pdf')).status).toBe(404)
})
