import { createHash, randomBytes } from 'node:crypto'
import { PassThrough } from 'node:stream'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { fromBufferPromise } from 'yauzl'
import { transmittalPackages } from '#server/db/schema-doc-control'
import { documentRevisions } from '#server/db/schema-documents'
import { withTenant } from '#server/db/tenancy'
import { PACKAGE_PROGRESS_BYTES, type PackageContents } from '#server/domain/doc-control/packaging'
import { COVER_SHEET_NAME, writePackage, type ZipProgress } from '#server/domain/doc-control/packaging-zip'
import { COVER_SHEET_PDF_NAME } from '#server/domain/doc-control/cover-sheet-pdf'
import { createLogger } from '#server/http/logger'
import { runPackagingPass, startTransmittalPackaging } from '#server/jobs/transmittal-packaging'
import { blobStoreFor } from '#server/storage/blob-stores'
import type { Transmittal, TransmittalPackage } from '~/lib/doc-control/types'
import type { Revision } from '~/lib/documents/types'
import { expectProblem, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { readPdf } from '#tests/helpers/pdf-reader'
import { documentProject, newDocument, uploadRevision } from '#tests/helpers/documents'
import { body, organisation, put, type Signed } from '#tests/helpers/reporting-a'

/**
 * docs/doc-control.md "Packaging": start (202), poll, the job (claim, progress, heartbeat, the
 * restart of a package whose instance died, failure), the ZIP read back, and its download with Range,
 * counted per recipient.
 */

let t: TestBackend
const logger = createLogger('silent')

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-20T09:00:00.000Z' })
})

afterAll(async () => {
  await t.close()
})

function jobOptions() {
  return { db: t.db, store: blobStoreFor(t.config), logger, now: t.now }
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

/** A transmittal sent from `sender` to `to` with a revision of each of `files`. */
async function sentWith(
  sender: Signed,
  to: Signed[],
  files: Uint8Array[],
  subject = 'Package test',
): Promise<{ transmittal: Transmittal; revisions: Revision[]; projectId: string }> {
  const p = await documentProject(sender.c)
  const revisions: Revision[] = []
  for (const [i, bytes] of files.entries()) {
    const doc = await newDocument(sender.c, p.id)
    revisions.push(await uploadRevision(sender.c, doc.id, bytes, { code: 'P01', status: 'S2', fileName: `file-${i}.bin` }))
  }
  const made = await body<Transmittal>(await sender.c.post(`/api/projects/${p.id}/transmittals`, { subject, revisionIds: revisions.map((r) => r.id) }), 201)
  await body(await put(sender.c, `/api/transmittals/${made.id}/recipients`, { userIds: to.map((m) => m.user.id), partyIds: [] }))
  return { transmittal: await body<Transmittal>(await sender.c.post(`/api/transmittals/${made.id}/send`)), revisions, projectId: p.id }
}

async function download(c: TestClient, transmittalId: string, headers: Record<string, string> = {}): Promise<Response> {
  return c.get(`/api/transmittals/${transmittalId}/package/download`, { headers })
}

/** Every entry of a ZIP: its name and bytes, in order. */
async function entriesOf(zip: Buffer): Promise<Array<{ name: string; bytes: Buffer }>> {
  const file = await fromBufferPromise(zip, { lazyEntries: true })
  const entries: Array<{ name: string; bytes: Buffer }> = []
  for await (const entry of file.eachEntry()) {
    const stream = await file.openReadStreamPromise(entry)
    const chunks: Buffer[] = []
    for await (const chunk of stream) chunks.push(chunk as Buffer)
    entries.push({ name: entry.fileName, bytes: Buffer.concat(chunks) })
  }
  return entries
}

async function packageRow(tenantId: string, packageId: string) {
  return withTenant(t.db, tenantId, async (tx) => {
    const [row] = await tx.select().from(transmittalPackages).where(eq(transmittalPackages.id, packageId))
    if (!row) throw new Error('no package row')
    return row
  })
}

async function setPackage(tenantId: string, packageId: string, change: Partial<typeof transmittalPackages.$inferInsert>): Promise<void> {
  await withTenant(t.db, tenantId, (tx) =>
    tx
      .update(transmittalPackages)
      .set(change)
      .where(and(eq(transmittalPackages.tenantId, tenantId), eq(transmittalPackages.id, packageId))),
  )
}

test('start, poll, package and download: the ZIP holds the cover sheet first and every file byte for byte, and a download is counted per recipient', async () => {
  const { writer, reader, tenant } = await organisation(t)
  const files = [randomBytes(10_000), randomBytes(20), randomBytes(70_000)]
  const { transmittal, revisions } = await sentWith(writer, [reader], files, 'Tender <b>drawings</b> & "specs"')
  const id = transmittal.id

  await expectProblem(await writer.c.get(`/api/transmittals/${id}/package`), 404, 'KR_PACKAGE_NOT_STARTED')
  await expectProblem(await download(writer.c, id), 404, 'KR_PACKAGE_NOT_STARTED')
  const started = await writer.c.post(`/api/transmittals/${id}/package`)
  const queued = await body<TransmittalPackage>(started, 202)
  expect(started.headers.get('location')).toBe(`/api/transmittals/${id}/package`)
  expect(queued).toMatchObject({ status: 'queued', percent: 0, filesDone: 0, filesTotal: 3, bytesDone: 0, bytesTotal: 80_020, downloadUrl: null, sizeBytes: null })
  // Asking again answers the package under way; so does the read-only recipient.
  expect((await body<TransmittalPackage>(await reader.c.post(`/api/transmittals/${id}/package`), 202)).id).toBe(queued.id)
  await expectProblem(await download(writer.c, id), 409, 'KR_PACKAGE_NOT_READY')

  expect(await runPackagingPass(jobOptions(), [tenant.id])).toBe(1)
  const ready = await body<TransmittalPackage>(await writer.c.get(`/api/transmittals/${id}/package`))
  expect(ready).toMatchObject({
    id: queued.id,
    status: 'ready',
    percent: 100,
    filesDone: 3,
    filesTotal: 3,
    bytesDone: 80_020,
    error: null,
    downloadUrl: `/api/transmittals/${id}/package/download`,
  })
  expect((await body<Transmittal>(await writer.c.get(`/api/transmittals/${id}`))).package?.status).toBe('ready')
  expect((await packageRow(tenant.id, queued.id)).attempts).toBe(1)

  const response = await download(writer.c, id)
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toBe('application/zip')
  expect(response.headers.get('accept-ranges')).toBe('bytes')
  expect(response.headers.get('content-disposition')).toBe(`attachment; filename*=UTF-8''${transmittal.number}.zip`)
  const zip = Buffer.from(await response.arrayBuffer())
  expect(zip.length).toBe(ready.sizeBytes)
  const entries = await entriesOf(zip)
  expect(entries.map((e) => e.name)).toEqual([COVER_SHEET_NAME, COVER_SHEET_PDF_NAME, ...transmittal.revisions.map((r) => `${r.number}_P01.bin`)])
  for (const [i, revision] of revisions.entries()) {
    const entry = entries[i + 2]
    expect(entry?.bytes.length).toBe(files[i]?.length)
    expect(sha256(entry?.bytes ?? Buffer.alloc(0))).toBe(revision.sha256)
  }
  const cover = entries[0]?.bytes.toString('utf8') ?? ''
  expect(cover).toContain(`Transmittal ${transmittal.number}`)
  expect(cover).toContain('Tender &lt;b&gt;drawings&lt;/b&gt; &amp; &quot;specs&quot;')
  expect(cover).not.toContain('<b>drawings')
  expect(cover).toContain(reader.user.email)
  for (const revision of revisions) expect(cover).toContain(revision.sha256)
  // The PDF sheet, read by poppler: number, subject, who to, each document with its revision and suitability.
  const coverPdf = await readPdf(entries[1]?.bytes ?? Buffer.alloc(0))
  expect(coverPdf.fontsEmbedded, coverPdf.fonts).toBe(true)
  expect(coverPdf.text).toContain(`Transmittal ${transmittal.number}`)
  expect(coverPdf.text).toContain('Tender <b>drawings</b> & "specs"')
  expect(coverPdf.text).toContain(reader.user.email)
  for (const revision of transmittal.revisions) expect(coverPdf.text).toContain(revision.number)

  // Range: a part (206), past the end (416), the last bytes.
  const part = await download(writer.c, id, { range: 'bytes=0-99' })
  expect(part.status).toBe(206)
  expect(part.headers.get('content-range')).toBe(`bytes 0-99/${zip.length}`)
  expect(Buffer.from(await part.arrayBuffer()).equals(zip.subarray(0, 100))).toBe(true)
  const past = await download(writer.c, id, { range: `bytes=${zip.length}-` })
  expect(past.status).toBe(416)
  expect(past.headers.get('content-range')).toBe(`bytes */${zip.length}`)
  const tail = await download(writer.c, id, { range: 'bytes=-22' })
  expect(tail.status).toBe(206)
  expect(Buffer.from(await tail.arrayBuffer()).equals(zip.subarray(zip.length - 22))).toBe(true)

  // The sender's downloads are not a recipient's; the recipient's first is, a resumed range is the same download, a second whole one counts.
  const before = await body<Transmittal>(await writer.c.get(`/api/transmittals/${id}`))
  expect(before.recipients[0]).toMatchObject({ downloads: 0, downloadedAt: null, status: 'sent' })
  t.now.set('2026-11-20T09:07:00.000Z')
  expect((await download(reader.c, id)).status).toBe(200)
  expect((await download(reader.c, id, { range: 'bytes=1000-' })).status).toBe(206)
  t.now.set('2026-11-20T09:08:00.000Z')
  expect((await download(reader.c, id, { range: 'bytes=0-' })).status).toBe(206)
  t.now.reset()
  const after = await body<Transmittal>(await writer.c.get(`/api/transmittals/${id}`))
  expect(after.recipients[0]).toMatchObject({
    userId: reader.user.id,
    downloads: 2,
    downloadedAt: '2026-11-20T09:07:00.000Z',
    openedAt: '2026-11-20T09:07:00.000Z',
    status: 'opened',
  })
})

test('a draft is not packaged; another organisation’s transmittal is 404 to every packaging call', async () => {
  const { writer, reader } = await organisation(t)
  const theirs = await organisation(t)
  const p = await documentProject(writer.c)
  const made = await body<Transmittal>(await writer.c.post(`/api/projects/${p.id}/transmittals`, { subject: 'Draft' }), 201)
  await expectProblem(await writer.c.post(`/api/transmittals/${made.id}/package`), 409, 'KR_TRANSMITTAL_STATE')
  const { transmittal } = await sentWith(writer, [reader], [randomBytes(10)])
  await body(await writer.c.post(`/api/transmittals/${transmittal.id}/package`), 202)
  const c = theirs.admin.c
  await expectProblem(await c.post(`/api/transmittals/${transmittal.id}/package`), 404, 'KR_NOT_FOUND')
  await expectProblem(await c.get(`/api/transmittals/${transmittal.id}/package`), 404, 'KR_NOT_FOUND')
  await expectProblem(await download(c, transmittal.id), 404, 'KR_NOT_FOUND')
  await expectProblem(await c.get('/api/transmittals/nope/package/download'), 404, 'KR_NOT_FOUND')
})

test('packaging after a restart: a package left running by a dead instance is claimed by a fresh job and completed from the first file', async () => {
  const { writer, reader, tenant } = await organisation(t)
  const files = [randomBytes(5_000), randomBytes(6_000)]
  const { transmittal, revisions } = await sentWith(writer, [reader], files)
  const queued = await body<TransmittalPackage>(await writer.c.post(`/api/transmittals/${transmittal.id}/package`), 202)
  // What a dead instance leaves: running, one file in, a heartbeat that stopped.
  const alive = new Date(t.now().getTime() - 20_000)
  await setPackage(tenant.id, queued.id, { status: 'running', attempts: 1, filesDone: 1, bytesDone: 5_000, heartbeatAt: alive })

  // While its heartbeat is recent, the instance may be alive: nobody else takes it.
  expect(await runPackagingPass(jobOptions(), [tenant.id])).toBe(0)
  expect(await packageRow(tenant.id, queued.id)).toMatchObject({ status: 'running', attempts: 1, filesDone: 1 })

  await setPackage(tenant.id, queued.id, { heartbeatAt: new Date(t.now().getTime() - 5 * 60_000) })
  const fresh = startTransmittalPackaging({ ...jobOptions(), intervalMs: 3_600_000 })
  try {
    await fresh.whenIdle()
  } finally {
    await fresh.stop()
  }
  const row = await packageRow(tenant.id, queued.id)
  expect(row).toMatchObject({ status: 'ready', attempts: 2, filesDone: 2, bytesDone: 11_000, error: null })
  expect(row.blobKey).toMatch(new RegExp(`/package-${queued.id}-2\\.[0-9a-f]{64}$`))
  const zip = Buffer.from(await (await download(writer.c, transmittal.id)).arrayBuffer())
  const entries = await entriesOf(zip)
  expect(entries.slice(2).map((e) => sha256(e.bytes))).toEqual(revisions.map((r) => r.sha256))
})

test('an instance that stops hands its package back, queued, for the next to start at once', async () => {
  const { writer, reader, tenant } = await organisation(t)
  const { transmittal } = await sentWith(writer, [reader], [randomBytes(100)])
  const real = blobStoreFor(t.config)
  // A store whose revision files never finish reading: the package is still under way when the instance stops.
  const stalled = new Proxy(real, {
    get(target, property, receiver) {
      if (property === 'read') return (key: string) => (key.includes('/revisions/') ? new PassThrough() : target.read(key))
      const value = Reflect.get(target, property, receiver) as unknown
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  const queued = await body<TransmittalPackage>(await writer.c.post(`/api/transmittals/${transmittal.id}/package`), 202)
  const job = startTransmittalPackaging({ ...jobOptions(), store: stalled, intervalMs: 3_600_000 })
  while ((await packageRow(tenant.id, queued.id)).status !== 'running') await new Promise((resolve) => setTimeout(resolve, 10))
  await job.stop()
  expect(await packageRow(tenant.id, queued.id)).toMatchObject({ status: 'queued', attempts: 1, heartbeatAt: null, blobKey: null })
  expect((await real.list(`${tenant.id}/transmittals`)).map((e) => e.key)).toEqual([])
  await runPackagingPass(jobOptions(), [tenant.id])
  expect(await packageRow(tenant.id, queued.id)).toMatchObject({ status: 'ready', attempts: 2 })
})

test('a request wakes the job of this instance at once', async () => {
  const { writer, reader } = await organisation(t)
  const { transmittal } = await sentWith(writer, [reader], [randomBytes(100)])
  const job = startTransmittalPackaging({ ...jobOptions(), intervalMs: 3_600_000 })
  try {
    await job.whenIdle()
    await body(await writer.c.post(`/api/transmittals/${transmittal.id}/package`), 202)
    await job.whenIdle()
  } finally {
    await job.stop()
  }
  expect((await body<TransmittalPackage>(await writer.c.get(`/api/transmittals/${transmittal.id}/package`))).status).toBe('ready')
})

test('a failure leaves the package failed with a readable error and its attempts; asking again queues it again', async () => {
  const { writer, reader, tenant } = await organisation(t)
  const bytes = randomBytes(3_000)
  const { transmittal, revisions } = await sentWith(writer, [reader], [randomBytes(100), bytes])
  const revision = revisions[1] as Revision
  const store = blobStoreFor(t.config)
  const [stored] = await withTenant(t.db, tenant.id, (tx) => tx.select({ blobKey: documentRevisions.blobKey }).from(documentRevisions).where(eq(documentRevisions.id, revision.id)))
  const key = stored?.blobKey as string
  await store.delete(key)

  const queued = await body<TransmittalPackage>(await writer.c.post(`/api/transmittals/${transmittal.id}/package`), 202)
  expect(await runPackagingPass(jobOptions(), [tenant.id])).toBe(1)
  const failed = await body<TransmittalPackage>(await writer.c.get(`/api/transmittals/${transmittal.id}/package`))
  const number = transmittal.revisions[1]?.number
  expect(failed).toMatchObject({ status: 'failed', error: `The file of ${number} P01 is missing from storage.`, downloadUrl: null })
  expect((await packageRow(tenant.id, queued.id)).attempts).toBe(1)
  const refused = await expectProblem(await download(writer.c, transmittal.id), 409, 'KR_PACKAGE_NOT_READY')
  expect(refused.detail).toContain('missing from storage')
  // Nothing half-written is left where packages go.
  expect((await store.list(`${tenant.id}/transmittals`)).map((e) => e.key)).toEqual([])

  await store.put(key, bytes)
  expect(await body<TransmittalPackage>(await writer.c.post(`/api/transmittals/${transmittal.id}/package`), 202)).toMatchObject({ id: queued.id, status: 'queued', error: null })
  await runPackagingPass(jobOptions(), [tenant.id])
  expect(await packageRow(tenant.id, queued.id)).toMatchObject({ status: 'ready', attempts: 2 })

  // A package whose instances kept dying is given up rather than claimed for ever.
  const other = await sentWith(writer, [reader], [randomBytes(10)])
  const stuck = await body<TransmittalPackage>(await writer.c.post(`/api/transmittals/${other.transmittal.id}/package`), 202)
  await setPackage(tenant.id, stuck.id, { status: 'running', attempts: 5, heartbeatAt: new Date(t.now().getTime() - 5 * 60_000) })
  await runPackagingPass(jobOptions(), [tenant.id])
  expect(await packageRow(tenant.id, stuck.id)).toMatchObject({ status: 'failed', error: 'Packaging was interrupted 5 times; start it again.' })
})

test('progress is reported after every file and every 8 MiB, and a damaged file fails the package by name', async () => {
  const store = blobStoreFor(t.config)
  const big = randomBytes(PACKAGE_PROGRESS_BYTES + 1_000_000)
  const small = randomBytes(1_000)
  await store.put('progress-test/big', big)
  await store.put('progress-test/small', small)
  const at = new Date('2026-11-20T09:00:00.000Z')
  const file = (label: string, key: string, bytes: Buffer, hash = sha256(bytes)) => ({
    label,
    entryName: `${label}.bin`,
    blobKey: key,
    sizeBytes: bytes.length,
    sha256: hash,
    modifiedAt: at,
    number: label,
    title: label,
    code: 'P01',
    status: 'S2',
    fileName: `${label}.bin`,
  })
  const contents: PackageContents = {
    number: 'T-TRN-000001',
    subject: 'Progress',
    purpose: 'for-record',
    message: '',
    responseDueDate: null,
    sentAt: at,
    sentBy: 'Sender',
    project: { title: 'P', code: 'T' },
    recipients: [],
    revisions: [file('BIG', 'progress-test/big', big), file('SMALL', 'progress-test/small', small)],
  }
  const seen: ZipProgress[] = []
  const stored = await writePackage(store, 'progress-test/out.zip', contents, async (p) => {
    seen.push(p)
  })
  expect(seen).toEqual([
    { filesDone: 0, bytesDone: expect.any(Number) },
    { filesDone: 1, bytesDone: big.length },
    { filesDone: 2, bytesDone: big.length + small.length },
  ])
  expect(seen[0]?.bytesDone).toBeGreaterThanOrEqual(PACKAGE_PROGRESS_BYTES)
  const zip = await readAll('progress-test/out.zip')
  expect(zip.length).toBe(stored.size)
  const entries = await entriesOf(zip)
  expect(entries.map((e) => e.name)).toEqual([COVER_SHEET_NAME, COVER_SHEET_PDF_NAME, 'BIG.bin', 'SMALL.bin'])

  const damaged = { ...contents, revisions: [file('SMALL', 'progress-test/small', small, '0'.repeat(64))] }
  await expect(writePackage(store, 'progress-test/damaged.zip', damaged, async () => undefined)).rejects.toThrow('The file of SMALL does not match its recorded size and SHA-256')
  expect(await store.stat('progress-test/damaged.zip')).toBeUndefined()
  for (const key of ['progress-test/big', 'progress-test/small', 'progress-test/out.zip']) await store.delete(key)
})

async function readAll(key: string): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of blobStoreFor(t.config).read(key)) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}
