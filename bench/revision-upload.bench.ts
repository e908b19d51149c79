// Document revision uploads over loopback (docs/performance.md "Document revision uploads"; issue 11: "Upload of a 200 MB revision:
// throughput and server memory (flat in file size)"). Starts the built server (`npm run build` first) on a temporary data folder
// (PGlite), signs in as the seeded demo user, makes a project and a document through the API, then issues revisions of random bytes
// (application/octet-stream: no sheet is made) through the resumable upload (create, chunks of `chunkSize`, complete) at 20 MB and
// 200 MB, and through the one-request form (multipart, POST /api/documents/{id}/revisions) at 20 MB and 200 MB; last, a 20 MB PDF
// drawing (a scanned sheet: one page showing a 22-megapixel JPEG) through the resumable upload, to show what its sheet costs. The
// server's resident memory is read from /proc/<pid>/status: VmRSS every 50 ms during each upload, and VmHWM.
// BENCH_SERVER=/path/build/node/index.js runs another server bundle.
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import sharp from 'sharp'
import type { DocumentDetail, NamingStandard, Revision } from '~/lib/documents/types'
import { memory, sampleRss, serverFile, start, type Running } from './built-server'
import { signInDemo } from './demo-client'

const MB = 1024 * 1024
const SMALL = 20 * MB
const BIG = 200 * MB
/** How long the server idles after sign-in before its idle RSS is read. */
const SETTLE_MS = 3_000
const rootDir = fileURLToPath(new URL('..', import.meta.url))

if (!existsSync(serverFile)) {
  console.log(`skipped: no ${path.relative(rootDir, serverFile)} (run \`npm run build\` first)`)
  process.exit(0)
}
if (!readFileSync(serverFile, 'utf8').includes('/api/documents/:id/revisions')) {
  console.log(`skipped: ${path.relative(rootDir, serverFile)} predates the revision routes (run \`npm run build\` again)`)
  process.exit(0)
}

type Case = { label: string; bytes: Buffer; fileName: string; contentType: string; via: 'resumable' | 'form' }
type Result = { createMs?: number; chunkMs?: number; chunks?: number; chunkSize?: number; completeMs?: number; totalMs: number; revision: Revision }

console.log('generating files …')
const small = noise(SMALL)
const big = noise(BIG)
const pdf = await scannedPdf(SMALL)
const cases: Case[] = [
  { label: '1 MB warm-up (resumable)', bytes: noise(MB), fileName: 'warm-up.bin', contentType: 'application/octet-stream', via: 'resumable' },
  { label: '20 MB random bytes, resumable', bytes: small, fileName: 'model-20.bin', contentType: 'application/octet-stream', via: 'resumable' },
  { label: '200 MB random bytes, resumable', bytes: big, fileName: 'model-200.bin', contentType: 'application/octet-stream', via: 'resumable' },
  { label: '20 MB random bytes, one multipart request', bytes: small, fileName: 'form-20.bin', contentType: 'application/octet-stream', via: 'form' },
  { label: '200 MB random bytes, one multipart request', bytes: big, fileName: 'form-200.bin', contentType: 'application/octet-stream', via: 'form' },
  { label: '20 MB PDF (one A1 page, a 22-megapixel scan), resumable: with its sheet', bytes: pdf, fileName: 'scan-20.pdf', contentType: 'application/pdf', via: 'resumable' },
]

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-bench-revision-upload-'))
let running: Running | undefined
try {
  running = await start({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' })
  const server = running
  const base = server.base
  const { headers } = await signInDemo(base)
  const call = async <T>(method: string, url: string, json: unknown, status: number): Promise<T> => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { ...headers, accept: 'application/json', ...(json !== undefined && { 'content-type': 'application/json' }) },
      body: json === undefined ? undefined : JSON.stringify(json),
    })
    if (res.status !== status) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`)
    return (await res.json()) as T
  }

  const project = await call<{ id: string }>('POST', '/api/projects', { title: 'Revision upload bench', code: 'BEN01' }, 201)
  const standard = await call<NamingStandard>('GET', `/api/projects/${project.id}/naming-standard`, undefined, 200)
  // Each field's first code, digits for a free digits field, letters otherwise (as tests/helpers/documents.ts does).
  const number = standard.fields.map((f) => f.codes?.[0]?.code ?? (f.charset === 'digits' ? '1'.padStart(f.minLength, '0') : 'X'.repeat(f.minLength))).join('-')
  const doc = await call<DocumentDetail>('POST', `/api/projects/${project.id}/documents`, { number, title: 'Bench drawing', folderId: null, metadata: {} }, 201)
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
  const idle = memory(server)
  console.log(`server pid ${server.child.pid}, document ${number}; idle RSS ${mib(idle.rss)}, VmHWM so far ${mib(idle.hwm)}; load average ${loadAverage()}`)

  const rows: string[] = []
  let version = 0
  for (const c of cases) {
    const code = `P${String(++version).padStart(2, '0')}`
    const before = memory(server)
    const sampler = sampleRss(server)
    const r = c.via === 'resumable' ? await resumable(base, headers, doc.id, c, code) : await form(base, headers, doc.id, c, code)
    const { peak } = sampler.stop()
    const after = memory(server)
    if (r.revision.sizeBytes !== c.bytes.length) throw new Error(`${c.label}: stored ${r.revision.sizeBytes} bytes, sent ${c.bytes.length}`)
    const size = c.bytes.length / MB
    console.log(`\n${c.label}: ${code}, ${r.revision.contentType}, sheet ${r.revision.sheet ? `${r.revision.sheet.width}×${r.revision.sheet.height}` : 'none'}`)
    if (r.chunkMs !== undefined) {
      console.log(
        `   create ${ms(r.createMs)}, chunk phase ${ms(r.chunkMs)} (${r.chunks} chunks of ${(r.chunkSize ?? 0) / MB} MB, ${(size / (r.chunkMs / 1000)).toFixed(0)} MB/s), complete ${ms(r.completeMs)}`,
      )
    }
    console.log(`   end to end ${ms(r.totalMs)} (${(size / (r.totalMs / 1000)).toFixed(0)} MB/s)`)
    console.log(
      `   server RSS before ${mib(before.rss)}, peak ${mib(peak)} (${signed(peak - before.rss)}; ${signed(peak - idle.rss)} over idle), after ${mib(after.rss)}; VmHWM ${mib(after.hwm)}`,
    )
    rows.push(
      `| ${c.label} | ${r.createMs === undefined ? '–' : ms(r.createMs)} | ${r.chunkMs === undefined ? '–' : `${ms(r.chunkMs)} (${(size / (r.chunkMs / 1000)).toFixed(0)} MB/s)`} | ${r.completeMs === undefined ? '–' : ms(r.completeMs)} | ${ms(r.totalMs)} (${(size / (r.totalMs / 1000)).toFixed(0)} MB/s) | ${signed(peak - before.rss)} / ${signed(peak - idle.rss)} | ${mib(after.hwm)} |`,
    )
  }
  console.log(`\nload average at the end ${loadAverage()}`)
  console.log('\n| Upload | Create | Chunk phase | Complete | End to end | Peak RSS over before / over idle | VmHWM after |')
  console.log('|---|---|---|---|---|---|---|')
  for (const row of rows) console.log(row)
} finally {
  await running?.stop()
  await rm(dataDir, { recursive: true, force: true })
}

/** create, PUT …/chunk?offset=N in the session's chunkSize, complete: each phase timed. */
async function resumable(base: string, headers: Record<string, string>, documentId: string, c: Case, code: string): Promise<Result> {
  const json = { ...headers, accept: 'application/json' }
  const t0 = performance.now()
  const created = await fetch(`${base}/api/documents/${documentId}/uploads`, {
    method: 'POST',
    headers: { ...json, 'content-type': 'application/json' },
    body: JSON.stringify({ fileName: c.fileName, size: c.bytes.length, contentType: c.contentType, code, status: 'S2' }),
  })
  if (created.status !== 201) throw new Error(`create upload: ${created.status} ${await created.text()}`)
  const session = (await created.json()) as { id: string; chunkSize: number }
  const t1 = performance.now()
  let chunks = 0
  for (let offset = 0; offset < c.bytes.length; chunks++) {
    const part = c.bytes.subarray(offset, Math.min(c.bytes.length, offset + session.chunkSize))
    const res = await fetch(`${base}/api/uploads/${session.id}/chunk?offset=${offset}`, {
      method: 'PUT',
      headers: { ...json, 'content-type': 'application/octet-stream' },
      body: part as Uint8Array<ArrayBuffer>,
    })
    if (!res.ok) throw new Error(`chunk at ${offset}: ${res.status} ${await res.text()}`)
    const next = Number(res.headers.get('upload-offset'))
    await res.body?.cancel()
    if (!(next > offset)) throw new Error(`chunk at ${offset}: the offset did not move (${next})`)
    offset = next
  }
  const t2 = performance.now()
  const done = await fetch(`${base}/api/uploads/${session.id}/complete`, { method: 'POST', headers: json })
  if (done.status !== 201) throw new Error(`complete: ${done.status} ${await done.text()}`)
  const revision = (await done.json()) as Revision
  const t3 = performance.now()
  return { createMs: t1 - t0, chunkMs: t2 - t1, chunks, chunkSize: session.chunkSize, completeMs: t3 - t2, totalMs: t3 - t0, revision }
}

/** POST /api/documents/{id}/revisions as the form without JavaScript sends it: fields, then the file. */
async function form(base: string, headers: Record<string, string>, documentId: string, c: Case, code: string): Promise<Result> {
  const body = new FormData()
  body.append('code', code)
  body.append('status', 'S2')
  body.append('file', new File([c.bytes as Uint8Array<ArrayBuffer>], c.fileName, { type: c.contentType }))
  const t0 = performance.now()
  const res = await fetch(`${base}/api/documents/${documentId}/revisions`, { method: 'POST', headers: { ...headers, accept: 'application/json' }, body })
  if (res.status !== 201) throw new Error(`form: ${res.status} ${await res.text()}`)
  const revision = (await res.json()) as Revision
  return { totalMs: performance.now() - t0, revision }
}

/** Random bytes, so nothing recognises them (application/octet-stream) and nothing compresses them. */
function noise(size: number): Buffer {
  const bytes = randomBytes(size)
  bytes[0] = 0
  return bytes
}

/**
 * A one-page A1 PDF showing a JPEG of Gaussian noise (what a scanned drawing is), padded to `size` bytes with an unused stream, so
 * PDFium must load the whole file, decode 22 megapixels and draw them at the sheet's size. xref offsets computed.
 */
async function scannedPdf(size: number): Promise<Buffer> {
  const [width, height] = [5600, 4000]
  const jpeg = await sharp({ create: { width, height, channels: 3, background: { r: 128, g: 128, b: 128 }, noise: { type: 'gaussian', mean: 128, sigma: 30 } } })
    .jpeg({ quality: 75 })
    .toBuffer()
  const [pageWidth, pageHeight] = [2384, 1684]
  const content = Buffer.from(`q ${pageWidth} 0 0 ${pageHeight} 0 0 cm /Scan Do Q`)
  const stream = (dict: string, data: Buffer) => Buffer.concat([Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`), data, Buffer.from('\nendstream')])
  const objects = (padding: number) => [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${pageWidth} ${pageHeight}] /Resources << /XObject << /Scan 5 0 R >> >> /Contents 4 0 R >>`),
    stream('', content),
    stream(`/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode`, jpeg),
    stream('', Buffer.alloc(padding, 0x20)),
  ]
  const assemble = (padding: number) => {
    const parts: Buffer[] = [Buffer.from('%PDF-1.7\n')]
    let length = parts[0]?.length ?? 0
    const offsets: number[] = []
    objects(padding).forEach((object, index) => {
      offsets.push(length)
      const framed = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`), object, Buffer.from('\nendobj\n')])
      parts.push(framed)
      length += framed.length
    })
    const count = offsets.length + 1
    const xref = `xref\n0 ${count}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`
    parts.push(Buffer.from(`${xref}trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`))
    return Buffer.concat(parts)
  }
  const unpadded = assemble(0)
  if (unpadded.length > size) return unpadded
  // The padding's own digits (its /Length, the offsets after it) change the total a little: settle it in two passes.
  let padded = assemble(size - unpadded.length)
  padded = assemble(Math.max(0, size - unpadded.length - (padded.length - size)))
  return padded
}

function ms(value: number | undefined): string {
  return value === undefined ? '–' : value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${value.toFixed(0)} ms`
}

function mib(bytes: number): string {
  return `${(bytes / MB).toFixed(0)} MB`
}

function signed(bytes: number): string {
  return `${bytes < 0 ? '−' : '+'}${mib(Math.abs(bytes))}`
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ')
}
