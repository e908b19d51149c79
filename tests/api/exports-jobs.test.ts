import { randomBytes } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import ExcelJS from 'exceljs'
import { parse } from 'csv-parse/sync'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { onCommittedChanges, type CommittedChange } from '#server/db/committed-changes'
import { exportJobs } from '#server/db/schema-exports'
import { withTenant } from '#server/db/tenancy'
import { createLogger } from '#server/http/logger'
import { Stopping } from '#server/jobs/claimed-rows'
import { runExportPass, startExportJobs, type ExportJobOptions } from '#server/jobs/export-jobs'
import { blobStoreFor } from '#server/storage/blob-stores'
import type { ExportEstimate, ExportJob } from '~/lib/exports/types'
import type { Item } from '~/lib/reporting/types'
import { expectProblem, mailsTo } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { readPdf } from '#tests/helpers/pdf-reader'
import { pngImage, uploadPhoto } from '#tests/helpers/photos'
import { allPages, createItem, createOrg, createReport, json, setMembershipStatus, type Org } from '#tests/helpers/reporting-b'
import { documentProject, newDocument, uploadRevision } from '#tests/helpers/documents'
import { organisation, put } from '#tests/helpers/reporting-a'
import type { Transmittal } from '~/lib/doc-control/types'
import type { Revision } from '~/lib/documents/types'

/**
 * docs/exports.md "Large exports as a job": the estimate that decides, start (202), follow, the job
 * (claim, progress, the staging file, a restart, a failure), the download only its owner may use,
 * the link that expires, running again, and the mail. Limits made small by the environment
 * (EXPORT_JOB_ITEMS=2, EXPORT_JOB_PHOTOS=1), as the e2e journey makes them.
 */

let t: TestBackend
const logger = createLogger('silent')

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-28T09:00:00.000Z', env: { EXPORT_JOB_ITEMS: '2', EXPORT_JOB_PHOTOS: '1', EXPORT_LINK_HOURS: '24' } })
})

afterAll(async () => {
  await t?.close()
})

function jobOptions(extra: Partial<ExportJobOptions> = {}): ExportJobOptions {
  return { db: t.db, store: blobStoreFor(t.config), logger, now: t.now, publicUrl: t.config.publicUrl, linkHours: t.config.exportJobs.linkHours, ...extra }
}

async function jobRow(tenantId: string, id: string) {
  return withTenant(t.db, tenantId, async (tx) => {
    const [row] = await tx.select().from(exportJobs).where(and(eq(exportJobs.tenantId, tenantId), eq(exportJobs.id, id)))
    if (!row) throw new Error('no export job row')
    return row
  })
}

/** Every blob the tenant's exports hold. */
async function exportBlobs(tenantId: string): Promise<string[]> {
  return (await blobStoreFor(t.config).list(`${tenantId}/exports`)).map((entry) => entry.key).sort()
}

async function reportWith(org: Org, titles: string[]): Promise<{ reportId: string; items: Item[] }> {
  const reportId = await createReport(t, org.admin.member, org.projectId, { title: `Walkdown ${titles.length}` })
  const items: Item[] = []
  for (const title of titles) items.push(await createItem(org.writer, reportId, { title }))
  return { reportId, items }
}

async function startReportJob(org: Org, reportId: string, notify = false): Promise<ExportJob> {
  const started = await org.writer.post('/api/exports', { kind: 'report-pdf', report: reportId, notify })
  const job = await json<ExportJob>(started, 202)
  expect(started.headers.get('location')).toBe(`/api/exports/${job.id}`)
  return job
}

test('the estimate decides: more items (or, for a report, photos) than the limits run as a job; another organisation’s report is a 404', async () => {
  const org = await createOrg(t)
  const small = await reportWith(org, ['One tile'])
  expect(await json<ExportEstimate>(await org.reader.get(`/api/exports/estimate?kind=report-pdf&report=${small.reportId}`))).toEqual({
    kind: 'report-pdf',
    items: 1,
    photos: 0,
    asJob: false,
    limits: { items: 2, photos: 1 },
  })
  // Photos beyond their limit make even a one-item report a job.
  await uploadPhoto(org.writer, small.items[0]?.id ?? '', pngImage(8, 6, 1))
  await uploadPhoto(org.writer, small.items[0]?.id ?? '', pngImage(8, 6, 2))
  expect(await json<ExportEstimate>(await org.reader.get(`/api/exports/estimate?kind=report-pdf&report=${small.reportId}`))).toMatchObject({ items: 1, photos: 2, asJob: true })
  const large = await reportWith(org, ['A', 'B', 'C'])
  expect(await json<ExportEstimate>(await org.reader.get(`/api/exports/estimate?kind=report-pdf&report=${large.reportId}`))).toMatchObject({ items: 3, asJob: true })
  // The punch list counts the screen's selection.
  expect(await json<ExportEstimate>(await org.reader.get(`/api/exports/estimate?kind=punch-list-pdf&report=${large.reportId}`))).toMatchObject({ kind: 'punch-list-pdf', items: 3, asJob: true })
  expect(await json<ExportEstimate>(await org.reader.get(`/api/exports/estimate?kind=punch-list-pdf&report=${small.reportId}`))).toMatchObject({ items: 1, asJob: false })

  const theirs = await createOrg(t)
  await expectProblem(await theirs.admin.get(`/api/exports/estimate?kind=report-pdf&report=${large.reportId}`), 404)
  await expectProblem(await theirs.admin.post('/api/exports', { kind: 'report-pdf', report: large.reportId }), 404)
  await expectProblem(await theirs.admin.post('/api/exports', { kind: 'punch-list-pdf', project: org.projectId }), 404)
  // The punch list's estimate reads no names, but another organisation's project or report is still not there.
  await expectProblem(await theirs.admin.get(`/api/exports/estimate?kind=punch-list-pdf&project=${org.projectId}`), 404)
  await expectProblem(await theirs.admin.get(`/api/exports/estimate?kind=punch-list-pdf&report=${large.reportId}`), 404)
  await expectProblem(await org.reader.get('/api/exports/estimate?kind=report-pdf'), 400)
  await expectProblem(await org.reader.get('/api/exports/estimate?kind=zip'), 400)
})

test('a report PDF as a job: queued, then ready with a PDF of every item, downloadable by its owner only; the mail says it is ready', async () => {
  const org = await createOrg(t)
  const titles = ['Zoë Ørsted’s cracked tile', 'Łukasz Wróbel’s loose rail', '山田 太郎 の 窓']
  const { reportId } = await reportWith(org, titles)
  const job = await startReportJob(org, reportId, true)
  expect(job).toMatchObject({ kind: 'report-pdf', title: 'Report PDF: Walkdown 3', status: 'queued', percent: 0, itemsDone: 0, itemsTotal: 3, downloadUrl: null, notify: true, returnTo: `/reports/${reportId}` })
  await expectProblem(await org.writer.get(`/api/exports/${job.id}/download`), 409, 'KR_EXPORT_NOT_READY')

  // What the hub is given: each change of the job, for its owner's connections alone.
  const told: CommittedChange[] = []
  const stopListening = onCommittedChanges(t.db, (changes) => told.push(...changes.filter((change) => change.entity === 'ExportJob')))
  try {
    expect(await runExportPass(jobOptions(), [org.tenant.id])).toBe(1)
  } finally {
    stopListening()
  }
  expect(told.map((change) => [change.entityId, change.audienceUserId])).toEqual([
    [job.id, org.writer.member.user.id], // claimed
    [job.id, org.writer.member.user.id], // a batch read
    [job.id, org.writer.member.user.id], // ready
  ])
  const ready = await json<ExportJob>(await org.writer.get(`/api/exports/${job.id}`))
  expect(ready).toMatchObject({ status: 'ready', percent: 100, itemsDone: 3, itemsTotal: 3, error: null, expired: false, downloadUrl: `/api/exports/${job.id}/download`, expiresAt: '2026-11-29T09:00:00.000Z' })
  const row = await jobRow(org.tenant.id, job.id)
  expect(row.blobKey).toMatch(new RegExp(`^${org.tenant.id}/exports/${job.id}-1\\.[0-9a-f]{64}$`))
  // Only the finished file is left: the staging file was moved into place.
  expect(await exportBlobs(org.tenant.id)).toEqual([row.blobKey])

  const file = await org.writer.get(`/api/exports/${job.id}/download`)
  expect(file.status).toBe(200)
  expect(file.headers.get('content-type')).toBe('application/pdf')
  expect(file.headers.get('content-disposition')).toMatch(/^attachment; filename\*=UTF-8''report-2026-11-28\.pdf$/)
  const pdf = await readPdf(await file.arrayBuffer())
  for (const title of titles) expect(pdf.text).toContain(title)
  expect(pdf.text).toContain('Walkdown 3')
  expect(pdf.fontsEmbedded).toBe(true)
  expect(ready.sizeBytes).toBe(Number(file.headers.get('content-length')))

  // Only its owner: another member of the organisation (even its admin) and another organisation get a 404.
  const theirs = await createOrg(t)
  for (const c of [org.admin, org.other, org.reader, theirs.admin]) {
    await expectProblem(await c.get(`/api/exports/${job.id}`), 404, 'KR_NOT_FOUND')
    await expectProblem(await c.get(`/api/exports/${job.id}/download`), 404, 'KR_NOT_FOUND')
    await expectProblem(await c.post(`/api/exports/${job.id}/retry`), 404, 'KR_NOT_FOUND')
  }
  await expectProblem(await org.writer.get('/api/exports/nope'), 404, 'KR_NOT_FOUND')
  await expectProblem(await org.writer.get('/api/exports/nope/download'), 404, 'KR_NOT_FOUND')

  const [mail] = await mailsTo(t.db, org.writer.member.user.email)
  expect(mail).toMatchObject({ template: 'export-ready', subject: 'Your export is ready: Report PDF: Walkdown 3' })
  expect(mail?.textBody).toContain(`${t.config.publicUrl}/exports/${job.id}`)
  expect(mail?.textBody).toContain('2026-11-29 09:00 UTC')
})

test('a punch list as a job holds what the screen lists for the same filters, read as its owner', async () => {
  const org = await createOrg(t)
  const { reportId } = await reportWith(org, ['North door', 'South door', 'East door'])
  const started = await org.reader.post('/api/exports', { kind: 'punch-list-pdf', report: reportId, group: 'status' })
  const job = await json<ExportJob>(started, 202)
  expect(job).toMatchObject({ title: expect.stringContaining('Punch list PDF: Report:'), itemsTotal: 3, returnTo: `/items?report=${reportId}&group=status` })
  await runExportPass(jobOptions(), [org.tenant.id])
  const listed = await allPages(org.reader, `/api/items/outstanding?report=${reportId}&limit=2`, 'before')
  const pdf = await readPdf(await (await org.reader.get(`/api/exports/${job.id}/download`)).arrayBuffer())
  for (const item of listed.items) expect(pdf.text).toContain(`#${item.number}`)
  expect(pdf.text).toContain('3 items')
})

test('a spreadsheet of items as a job, CSV and Excel: the same rows as the streaming call for the same filters, saved under their names', async () => {
  const org = await createOrg(t)
  const { reportId } = await reportWith(org, ['Zoë Ørsted’s door', 'Łukasz Wróbel’s wall', '山田 太郎の窓'])
  const estimate = await json<ExportEstimate>(await org.reader.get(`/api/exports/estimate?kind=items-csv&report=${reportId}`))
  expect(estimate).toMatchObject({ kind: 'items-csv', items: 3, asJob: true })
  const csvJob = await json<ExportJob>(await org.reader.post('/api/exports', { kind: 'items-csv', report: reportId }), 202)
  const xlsxJob = await json<ExportJob>(await org.reader.post('/api/exports', { kind: 'items-xlsx', report: reportId }), 202)
  expect(csvJob).toMatchObject({ kind: 'items-csv', title: expect.stringMatching(/^Items \(CSV\): Report: /), itemsTotal: 3, returnTo: `/items?report=${reportId}` })
  expect(xlsxJob.title).toMatch(/^Items \(Excel\): Report: /)
  await runExportPass(jobOptions(), [org.tenant.id])

  const streamed = await org.reader.get(`/api/items/outstanding/export?format=csv&report=${reportId}`)
  const expected = parse(await streamed.text(), { bom: true }) as string[][]
  expect(expected).toHaveLength(4)
  expect(await json<ExportJob>(await org.reader.get(`/api/exports/${csvJob.id}`))).toMatchObject({ status: 'ready', percent: 100, itemsDone: 3 })
  const csv = await org.reader.get(`/api/exports/${csvJob.id}/download`)
  expect(csv.status).toBe(200)
  expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8')
  expect(csv.headers.get('content-disposition')).toMatch(/items-\d{4}-\d{2}-\d{2}\.csv$/)
  expect(parse(await csv.text(), { bom: true })).toEqual(expected)

  const xlsx = await org.reader.get(`/api/exports/${xlsxJob.id}/download`)
  expect(xlsx.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
  expect(xlsx.headers.get('content-disposition')).toMatch(/items-\d{4}-\d{2}-\d{2}\.xlsx$/)
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.load(await xlsx.arrayBuffer())
  const rows: string[][] = []
  workbook.worksheets[0]?.eachRow((row) => rows.push(expected[0]?.map((_, index) => String(row.getCell(index + 1).value ?? '')) ?? []))
  expect(rows).toEqual(expected)
  // Another member of the organisation may not use the owner's link.
  expect((await org.writer.get(`/api/exports/${csvJob.id}/download`)).status).toBe(404)
})

test('the document register and a project’s transmittals as jobs, CSV and Excel: the same rows as their streaming calls, counted in documents and transmittals; filters of another kind are refused; another organisation’s project is a 404', async () => {
  const { tenant, admin, writer, reader } = await organisation(t)
  const project = await documentProject(admin.c, 'JOB01')
  const revisions: Revision[] = []
  for (const title of ['Plan, Zoë Ørsted', 'Section, Łukasz Wróbel', '立面図 山田 太郎']) {
    const doc = await newDocument(writer.c, project.id, { title })
    revisions.push(await uploadRevision(writer.c, doc.id, randomBytes(32), { code: 'P01', status: 'S2', fileName: 'sheet.bin' }))
  }

  // The register: three documents, over the limit of two.
  const registerSize = await json<ExportEstimate>(await reader.c.get(`/api/exports/estimate?kind=register-csv&project=${project.id}`))
  expect(registerSize).toMatchObject({ kind: 'register-csv', items: 3, asJob: true })
  expect((await json<ExportEstimate>(await reader.c.get(`/api/exports/estimate?kind=register-xlsx&project=${project.id}&q=${encodeURIComponent('山田')}`))).items).toBe(1)
  const csvJob = await json<ExportJob>(await reader.c.post('/api/exports', { kind: 'register-csv', project: project.id }), 202)
  const xlsxJob = await json<ExportJob>(await reader.c.post('/api/exports', { kind: 'register-xlsx', project: project.id, suitability: 's2' }), 202)
  expect(csvJob).toMatchObject({ title: expect.stringMatching(/^Document register \(CSV\): Project: /), itemsTotal: 3, returnTo: `/documents?projectId=${project.id}` })
  expect(xlsxJob).toMatchObject({ title: expect.stringMatching(/^Document register \(Excel\): Project: .* · Suitability: S2$/), returnTo: `/documents?projectId=${project.id}&status=S2` })

  // Transmittals: three, each to two people (a row per recipient), counted as three.
  for (const [index, revision] of revisions.entries()) {
    const made = await json<Transmittal>(await writer.c.post(`/api/projects/${project.id}/transmittals`, { subject: `Issue ${index + 1} for Zoë Ørsted`, revisionIds: [revision.id] }), 201)
    await json(await put(writer.c, `/api/transmittals/${made.id}/recipients`, { userIds: [reader.user.id, admin.user.id], partyIds: [] }))
    await json(await writer.c.post(`/api/transmittals/${made.id}/send`))
  }
  expect(await json<ExportEstimate>(await reader.c.get(`/api/exports/estimate?kind=transmittals-xlsx&project=${project.id}&transmittalStatus=sent`))).toMatchObject({ items: 3, asJob: true })
  const sentJob = await json<ExportJob>(await reader.c.post('/api/exports', { kind: 'transmittals-csv', project: project.id }), 202)
  const sentXlsxJob = await json<ExportJob>(await reader.c.post('/api/exports', { kind: 'transmittals-xlsx', project: project.id, transmittalStatus: 'sent' }), 202)
  expect(sentJob).toMatchObject({ title: expect.stringMatching(/^Transmittals \(CSV\): Project: /), itemsTotal: 3, returnTo: `/doc-control/transmittals?projectId=${project.id}` })
  expect(sentXlsxJob.returnTo).toBe(`/doc-control/transmittals?projectId=${project.id}&status=sent`)

  await runExportPass(jobOptions(), [tenant.id])
  const cases = [
    { job: csvJob, stream: `/api/documents/register/export?format=csv&projectId=${project.id}`, name: /document-register-\d{4}-\d{2}-\d{2}\.csv$/, rows: 4 },
    { job: xlsxJob, stream: `/api/documents/register/export?format=csv&projectId=${project.id}&status=S2`, name: /document-register-\d{4}-\d{2}-\d{2}\.xlsx$/, rows: 4 },
    { job: sentJob, stream: `/api/projects/${project.id}/transmittals/export?format=csv`, name: /transmittals-\d{4}-\d{2}-\d{2}\.csv$/, rows: 7 },
    { job: sentXlsxJob, stream: `/api/projects/${project.id}/transmittals/export?format=csv&status=sent`, name: /transmittals-\d{4}-\d{2}-\d{2}\.xlsx$/, rows: 7 },
  ]
  for (const { job, stream, name, rows } of cases) {
    expect(await json<ExportJob>(await reader.c.get(`/api/exports/${job.id}`))).toMatchObject({ status: 'ready', percent: 100, itemsDone: 3, itemsTotal: 3 })
    const expected = parse(await (await reader.c.get(stream)).text(), { bom: true }) as string[][]
    expect(expected).toHaveLength(rows)
    const file = await reader.c.get(`/api/exports/${job.id}/download`)
    expect(file.status).toBe(200)
    expect(file.headers.get('content-disposition')).toMatch(name)
    if (job.kind.endsWith('-csv')) {
      expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8')
      expect(parse(await file.text(), { bom: true })).toEqual(expected)
    } else {
      const workbook = new ExcelJS.Workbook()
      await workbook.xlsx.load(await file.arrayBuffer())
      const read: string[][] = []
      workbook.worksheets[0]?.eachRow((row) => read.push(expected[0]?.map((_, index) => String(row.getCell(index + 1).value ?? '')) ?? []))
      expect(read).toEqual(expected)
    }
    // Another member of the organisation may not use the owner's link.
    expect((await writer.c.get(`/api/exports/${job.id}/download`)).status).toBe(404)
  }

  // A filter the kind does not read is refused, not ignored; transmittals need their project.
  await expectProblem(await reader.c.get(`/api/exports/estimate?kind=register-csv&project=${project.id}&status=open`), 400)
  await expectProblem(await reader.c.post('/api/exports', { kind: 'items-csv', suitability: 'S2' }), 400)
  await expectProblem(await reader.c.post('/api/exports', { kind: 'transmittals-csv' }), 400)
  await expectProblem(await reader.c.get(`/api/exports/estimate?kind=register-csv&project=${project.id}&suitability=Z9`), 400)
  // Another organisation's project or folder: 404, whether asked for a size or a job.
  const stranger = await organisation(t)
  const folder = await json<{ id: string }>(await admin.c.post(`/api/projects/${project.id}/folders`, { name: 'Drawings', parentId: null }), 201)
  await expectProblem(await stranger.admin.c.get(`/api/exports/estimate?kind=register-csv&project=${project.id}`), 404)
  await expectProblem(await stranger.admin.c.get(`/api/exports/estimate?kind=register-xlsx&folder=${folder.id}`), 404)
  await expectProblem(await stranger.admin.c.post('/api/exports', { kind: 'transmittals-xlsx', project: project.id }), 404)
  await expectProblem(await stranger.admin.c.post('/api/exports', { kind: 'register-csv', project: project.id }), 404)
})

test('the link expires: the call says so (410), the next pass deletes the file, and running it again makes a new one', async () => {
  const org = await createOrg(t)
  const { reportId } = await reportWith(org, ['A', 'B', 'C'])
  const job = await startReportJob(org, reportId)
  await runExportPass(jobOptions(), [org.tenant.id])
  const key = (await jobRow(org.tenant.id, job.id)).blobKey
  // A day later (the session would not last so long: the link's end is moved instead).
  await withTenant(t.db, org.tenant.id, (tx) => tx.update(exportJobs).set({ expiresAt: new Date(t.now().getTime() - 60_000) }).where(eq(exportJobs.id, job.id)))
  {
    expect(await json<ExportJob>(await org.writer.get(`/api/exports/${job.id}`))).toMatchObject({ status: 'ready', expired: true, downloadUrl: null })
    await expectProblem(await org.writer.get(`/api/exports/${job.id}/download`), 410, 'KR_EXPORT_EXPIRED')
    await runExportPass(jobOptions(), [org.tenant.id])
    expect(await blobStoreFor(t.config).stat(key ?? '')).toBeUndefined()
    expect(await exportBlobs(org.tenant.id)).toEqual([])

    const again = await json<ExportJob>(await org.writer.post(`/api/exports/${job.id}/retry`), 202)
    expect(again).toMatchObject({ id: job.id, status: 'queued', expired: false, downloadUrl: null })
    await runExportPass(jobOptions(), [org.tenant.id])
    expect(await json<ExportJob>(await org.writer.get(`/api/exports/${job.id}`))).toMatchObject({ status: 'ready', expired: false })
    expect((await org.writer.get(`/api/exports/${job.id}/download`)).status).toBe(200)
    // A ready job is answered as it is.
    expect(await json<ExportJob>(await org.writer.post(`/api/exports/${job.id}/retry`), 202)).toMatchObject({ status: 'ready' })
  }
})

test('a failure mid-way says why, leaves no file behind, and the job can be run again', async () => {
  const org = await createOrg(t)
  const { reportId } = await reportWith(org, ['A', 'B', 'C'])
  const job = await startReportJob(org, reportId, true)
  const broken = jobOptions({
    afterBatch: () => {
      throw new Error('the disk is full')
    },
  })
  expect(await runExportPass(broken, [org.tenant.id])).toBe(1)
  const failed = await json<ExportJob>(await org.writer.get(`/api/exports/${job.id}`))
  expect(failed).toMatchObject({ status: 'failed', error: 'The export failed unexpectedly; run it again.', downloadUrl: null })
  expect(await exportBlobs(org.tenant.id)).toEqual([])
  await expectProblem(await org.writer.get(`/api/exports/${job.id}/download`), 409, 'KR_EXPORT_NOT_READY')
  expect((await mailsTo(t.db, org.writer.member.user.email)).map((m) => m.subject)).toEqual(['Your export failed: Report PDF: Walkdown 3'])

  // A member whose membership ended: the job reads as them, so it fails and says why.
  await setMembershipStatus(t, org.writer.member, 'suspended')
  await withTenant(t.db, org.tenant.id, (tx) => tx.update(exportJobs).set({ status: 'queued' }).where(eq(exportJobs.id, job.id)))
  await runExportPass(jobOptions(), [org.tenant.id])
  expect((await jobRow(org.tenant.id, job.id)).error).toBe('Your membership of this organisation is not active.')
  await setMembershipStatus(t, org.writer.member, 'active')

  const again = await json<ExportJob>(await org.writer.post(`/api/exports/${job.id}/retry`), 202)
  expect(again).toMatchObject({ status: 'queued', error: null, percent: 0 })
  await runExportPass(jobOptions(), [org.tenant.id])
  expect(await json<ExportJob>(await org.writer.get(`/api/exports/${job.id}`))).toMatchObject({ status: 'ready', error: null })
})

test('EXPORT_JOB_PAUSE_MS: a job pauses after each batch, its progress written first; a stop during the pause hands it back at once', async () => {
  const org = await createOrg(t)
  const { reportId } = await reportWith(org, ['A', 'B', 'C'])
  const job = await startReportJob(org, reportId)
  const stopping = new AbortController()
  const started = Date.now()
  // A minute's pause after the first batch; the instance stops while it waits (as startExportJobs' stop does).
  let duringThePause: { status: string; itemsDone: number } | undefined
  const pausing = async () => {
    duringThePause = await jobRow(org.tenant.id, job.id)
    stopping.abort(new Stopping())
  }
  await runExportPass(jobOptions({ pauseMs: 60_000, afterBatch: async () => void setTimeout(() => void pausing(), 50) }), [org.tenant.id], stopping.signal)
  expect(duringThePause).toMatchObject({ status: 'running', itemsDone: 3 })
  expect(Date.now() - started).toBeLessThan(30_000)
  // Handed back, queued, nothing left behind; the next pass (without a pause) makes it.
  expect(await jobRow(org.tenant.id, job.id)).toMatchObject({ status: 'queued', itemsDone: 0 })
  expect(await exportBlobs(org.tenant.id)).toEqual([])
  await runExportPass(jobOptions(), [org.tenant.id])
  expect(await json<ExportJob>(await org.writer.get(`/api/exports/${job.id}`))).toMatchObject({ status: 'ready', itemsDone: 3 })
})

test('after a restart: a job left running by a dead instance is claimed again, started over, and only the complete file is offered', async () => {
  const org = await createOrg(t)
  const { reportId } = await reportWith(org, ['A', 'B', 'C'])
  const job = await startReportJob(org, reportId)
  // The first instance writes every page, then hangs before the file is complete (and, with no heartbeat, looks dead).
  let release = () => {}
  let reached = () => {}
  const hung = new Promise<void>((resolve) => (release = resolve))
  const midway = new Promise<void>((resolve) => (reached = resolve))
  const dying = runExportPass(
    jobOptions({
      heartbeatMs: 3_600_000,
      afterBatch: async () => {
        reached()
        await hung
      },
    }),
    [org.tenant.id],
  )
  await midway
  expect(await json<ExportJob>(await org.writer.get(`/api/exports/${job.id}`))).toMatchObject({ status: 'running', itemsDone: 3, downloadUrl: null })
  await expectProblem(await org.writer.get(`/api/exports/${job.id}/download`), 409, 'KR_EXPORT_NOT_READY')
  // The pages so far are in the store's temporary file of the staging key: nothing under the exports' keys yet.
  expect(await exportBlobs(org.tenant.id)).toEqual([])

  // While its heartbeat is recent nobody else takes it; once stale, a fresh instance does and starts over.
  expect(await runExportPass(jobOptions(), [org.tenant.id])).toBe(0)
  try {
    t.now.advance(5 * 60_000)
    const fresh = startExportJobs({ ...jobOptions(), intervalMs: 3_600_000 })
    try {
      await fresh.whenIdle()
    } finally {
      await fresh.stop()
    }
    const row = await jobRow(org.tenant.id, job.id)
    expect(row).toMatchObject({ status: 'ready', attempts: 2, itemsDone: 3 })
    expect(row.blobKey).toMatch(new RegExp(`/exports/${job.id}-2\\.[0-9a-f]{64}$`))
    // The dead instance wakes: its claim is gone, so its file is deleted and the job left as the fresh instance made it.
    release()
    expect(await dying).toBe(0)
    expect(await exportBlobs(org.tenant.id)).toEqual([row.blobKey])
    expect(await jobRow(org.tenant.id, job.id)).toMatchObject({ status: 'ready', attempts: 2, blobKey: row.blobKey })
    const pdf = await readPdf(await (await org.writer.get(`/api/exports/${job.id}/download`)).arrayBuffer())
    expect(pdf.pages).toBeGreaterThanOrEqual(1)
  } finally {
    t.now.reset()
  }
})

test('My exports: the caller’s own jobs, newest first, a page at a time, with state, size and the link while it works; nobody else’s', async () => {
  const org = await createOrg(t)
  const theirs = await createOrg(t)
  const { reportId } = await reportWith(org, ['A', 'B', 'C'])
  const theirReport = await reportWith(theirs, ['X', 'Y', 'Z'])
  type JobPage = { items: ExportJob[]; nextCursor: string | null }
  expect(await json<JobPage>(await org.writer.get('/api/exports'))).toEqual({ items: [], nextCursor: null })
  try {
    const first = await startReportJob(org, reportId)
    t.now.advance(60_000)
    const failing = await startReportJob(org, reportId)
    t.now.advance(60_000)
    const expiring = await startReportJob(org, reportId)
    t.now.advance(60_000)
    // Another member's job (the administrator's) and another organisation's.
    const admins = await json<ExportJob>(await org.admin.post('/api/exports', { kind: 'report-pdf', report: reportId }), 202)
    const other = await json<ExportJob>(await theirs.writer.post('/api/exports', { kind: 'report-pdf', report: theirReport.reportId }), 202)
    await runExportPass(
      jobOptions({
        afterBatch: (claim) => {
          if (claim.jobId === failing.id) throw new Error('the disk is full')
          return Promise.resolve()
        },
      }),
      [org.tenant.id],
    )
    await withTenant(t.db, org.tenant.id, (tx) => tx.update(exportJobs).set({ expiresAt: new Date(t.now().getTime() - 60_000) }).where(eq(exportJobs.id, expiring.id)))
    t.now.advance(60_000)
    const queued = await startReportJob(org, reportId)

    const page1 = await json<JobPage>(await org.writer.get('/api/exports?limit=2'))
    expect(page1.items.map((job) => job.id)).toEqual([queued.id, expiring.id])
    expect(page1.items[0]).toMatchObject({ status: 'queued', percent: 0, itemsTotal: 3, downloadUrl: null, sizeBytes: null })
    expect(page1.items[1]).toMatchObject({ status: 'ready', expired: true, downloadUrl: null })
    expect(page1.nextCursor).toEqual(expect.any(String))
    const page2 = await json<JobPage>(await org.writer.get(`/api/exports?limit=2&after=${page1.nextCursor}`))
    expect(page2.items.map((job) => job.id)).toEqual([failing.id, first.id])
    expect(page2.items[0]).toMatchObject({ status: 'failed', error: 'The export failed unexpectedly; run it again.', downloadUrl: null })
    const ready = page2.items[1]
    expect(ready).toMatchObject({ status: 'ready', expired: false, percent: 100, downloadUrl: `/api/exports/${first.id}/download`, expiresAt: expect.any(String) })
    expect(ready?.sizeBytes).toBeGreaterThan(1000)
    expect(page2.nextCursor).toBeNull()
    // The whole list in one page (the default size) is the same, and the link it gives works.
    expect((await json<JobPage>(await org.writer.get('/api/exports'))).items.map((job) => job.id)).toEqual([queued.id, expiring.id, failing.id, first.id])
    expect((await org.writer.get(ready?.downloadUrl ?? '')).status).toBe(200)

    // Run again, a failed job starts anew: it comes back to the top.
    t.now.advance(60_000)
    await json<ExportJob>(await org.writer.post(`/api/exports/${failing.id}/retry`), 202)
    expect((await json<JobPage>(await org.writer.get('/api/exports?limit=1'))).items.map((job) => job.id)).toEqual([failing.id])

    // Owner only: the administrator sees their own job alone, the other organisation its own, a reader none.
    expect((await json<JobPage>(await org.admin.get('/api/exports'))).items.map((job) => job.id)).toEqual([admins.id])
    expect((await json<JobPage>(await theirs.writer.get('/api/exports'))).items.map((job) => job.id)).toEqual([other.id])
    expect(await json<JobPage>(await org.reader.get('/api/exports'))).toEqual({ items: [], nextCursor: null })
    await expectProblem(await org.writer.get('/api/exports?after=not-a-cursor'), 400)
    await expectProblem(await org.writer.get('/api/exports?limit=0'), 400)
    await expectProblem(await org.writer.get('/api/exports?limit=101'), 400)
  } finally {
    t.now.reset()
  }
})
