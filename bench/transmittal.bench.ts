// Transmittal packaging (docs/performance.md "Transmittal packaging"; issue 12: "Packaging 500 revisions totalling 2 GB: time, server
// memory peak (flat), progress updates"). Starts the built server (`npm run build` first) on a temporary data folder (PGlite), signs in
// as the seeded demo user and makes a project and `--revisions` documents through the API; stops it; then, with the server down, writes
// one revision of random bytes per document (`--total-mb` in all) through the blob store (FileBlobStore.put, streamed from
// crypto.randomBytes, never a whole file in memory) and their rows into the same data folder, as completing an upload would. Starts the
// server again, sends a transmittal of every revision to the demo user, starts packaging and polls GET …/package every `--poll-ms` until
// the package is ready, counting the distinct progress states seen; the server's VmRSS is sampled every 50 ms from /proc/<pid>/status
// throughout. Last, downloads the ZIP (streamed, counted, not kept) and checks its size. Everything is deleted afterwards.
// `npm run bench -- transmittal --revisions 50 --total-mb 200` for a quick run. BENCH_SERVER=/path/build/node/index.js runs another bundle.
import { randomBytes, randomUUID } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { and, eq } from 'drizzle-orm'
import { openDatabase } from '#server/db/client'
import { documentRevisions, documents } from '#server/db/schema-documents'
import { withTenant } from '#server/db/tenancy'
import { revisionKey } from '#server/domain/documents/revision-rules'
import { blobStoreFor } from '#server/storage/blob-stores'
import type { Transmittal, TransmittalPackage } from '~/lib/doc-control/types'
import type { DocumentDetail, NamingStandard } from '~/lib/documents/types'
import { memory, sampleRss, serverFile, start, type Running } from './built-server'
import { signInDemo, type DemoSession } from './demo-client'

const MB = 1024 * 1024
const rootDir = fileURLToPath(new URL('..', import.meta.url))
const { values: args } = parseArgs({
  options: { revisions: { type: 'string', default: '500' }, 'total-mb': { type: 'string', default: '2048' }, 'poll-ms': { type: 'string', default: '100' } },
})
const REVISIONS = Number(args.revisions)
const TOTAL = Number(args['total-mb']) * MB
const POLL_MS = Number(args['poll-ms'])

if (!existsSync(serverFile)) {
  console.log(`skipped: no ${path.relative(rootDir, serverFile)} (run \`npm run build\` first)`)
  process.exit(0)
}
if (!readFileSync(serverFile, 'utf8').includes('/api/transmittals/:transmittalId/package')) {
  console.log(`skipped: ${path.relative(rootDir, serverFile)} predates transmittal packaging (run \`npm run build\` again)`)
  process.exit(0)
}

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-bench-transmittal-'))
let running: Running | undefined
try {
  // 1. Documents through the API (the server makes and seeds the data folder).
  running = await start({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' })
  let api = await client(running)
  const me = await api.call<{ userId: string; tenantId: string }>('GET', '/auth/session', undefined, 200)
  const project = await api.call<{ id: string }>('POST', '/api/projects', { title: 'Transmittal bench', code: 'BEN01' }, 201)
  const standard = await api.call<NamingStandard>('GET', `/api/projects/${project.id}/naming-standard`, undefined, 200)
  const documentIds: string[] = []
  const t0 = performance.now()
  for (let i = 1; i <= REVISIONS; i++) {
    const number = standard.fields.map((f) => f.codes?.[0]?.code ?? (f.charset === 'digits' ? String(i).padStart(f.minLength, '0') : 'X'.repeat(f.minLength))).join('-')
    const doc = await api.call<DocumentDetail>('POST', `/api/projects/${project.id}/documents`, { number, title: `Model ${i}`, folderId: null, metadata: {} }, 201)
    documentIds.push(doc.id)
  }
  console.log(`${REVISIONS} documents made through the API in ${ms(performance.now() - t0)}`)
  await running.stop()
  running = undefined

  // 2. Their revisions: random bytes through the blob store, rows as completing an upload writes them.
  const t1 = performance.now()
  const revisionIds = await writeRevisions(me.tenantId, me.userId, documentIds)
  console.log(`${REVISIONS} revisions, ${mib(TOTAL)} of random bytes, written through the blob store in ${ms(performance.now() - t1)}`)

  // 3. Send, package, poll.
  running = await start({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' })
  const server = running
  api = await client(server)
  const draft = await api.call<Transmittal>('POST', `/api/projects/${project.id}/transmittals`, { subject: 'Bench issue', purpose: 'for-construction', revisionIds }, 201)
  await api.call('PUT', `/api/transmittals/${draft.id}/recipients`, { userIds: [me.userId], partyIds: [] }, 200)
  const sent = await api.call<Transmittal>('POST', `/api/transmittals/${draft.id}/send`, undefined, 200)
  await new Promise((resolve) => setTimeout(resolve, 2_000))
  const idle = memory(server)
  console.log(`server pid ${server.child.pid}; ${sent.number} sent with ${sent.revisions.length} revisions; idle RSS ${mib(idle.rss)}, VmHWM so far ${mib(idle.hwm)}`)

  const rss = sampleRss(server)
  const t2 = performance.now()
  const queued = await api.call<TransmittalPackage>('POST', `/api/transmittals/${draft.id}/package`, undefined, 202)
  const states = new Set<string>()
  let polls = 0
  let firstProgressMs: number | undefined
  let pkg = queued
  while (pkg.status === 'queued' || pkg.status === 'running') {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    pkg = await api.call<TransmittalPackage>('GET', `/api/transmittals/${draft.id}/package`, undefined, 200)
    polls++
    if (pkg.status === 'running' && (pkg.filesDone > 0 || pkg.bytesDone > 0)) {
      firstProgressMs ??= performance.now() - t2
      states.add(`${pkg.filesDone}/${pkg.bytesDone}`)
    }
  }
  const packMs = performance.now() - t2
  const packing = rss.stop()
  if (pkg.status !== 'ready') throw new Error(`packaging ended ${pkg.status}: ${pkg.error}`)
  const afterPack = memory(server)
  console.log(
    `\npackaged ${pkg.filesTotal} files, ${mib(pkg.bytesTotal)} of revisions into a ${mib(pkg.sizeBytes ?? 0)} ZIP in ${ms(packMs)} (${(pkg.bytesTotal / MB / (packMs / 1000)).toFixed(0)} MB/s)`,
  )
  console.log(`   first progress seen after ${ms(firstProgressMs)}; ${states.size} distinct progress states seen in ${polls} polls every ${POLL_MS} ms`)
  console.log(
    `   server RSS idle ${mib(idle.rss)}; during packaging min ${mib(packing.min)}, median ${mib(packing.median)}, peak ${mib(packing.peak)} (${signed(packing.peak - idle.rss)} over idle); after ${mib(afterPack.rss)}; VmHWM ${mib(afterPack.hwm)}`,
  )

  // 4. The download, streamed and counted.
  const downloading = sampleRss(server)
  const t3 = performance.now()
  const res = await fetch(`${server.base}/api/transmittals/${draft.id}/package/download`, { headers: api.session.headers })
  if (res.status !== 200 || !res.body) throw new Error(`download: ${res.status} ${await res.text()}`)
  let received = 0
  for await (const chunk of res.body) received += chunk.length
  const downloadMs = performance.now() - t3
  const download = downloading.stop()
  if (received !== pkg.sizeBytes) throw new Error(`downloaded ${received} bytes of ${pkg.sizeBytes}`)
  console.log(
    `\ndownloaded the ZIP (${mib(received)}) in ${ms(downloadMs)} (${(received / MB / (downloadMs / 1000)).toFixed(0)} MB/s); server RSS peak ${mib(download.peak)} (${signed(download.peak - idle.rss)} over idle)`,
  )
  console.log(
    `load average at the end ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')}`,
  )
  console.log('\n| Revisions | Bytes | Packaging | Throughput | Progress states seen (polls) | Server RSS idle → peak while packaging | VmHWM after |')
  console.log('|---|---|---|---|---|---|---|')
  console.log(
    `| ${pkg.filesTotal} | ${mib(pkg.bytesTotal)} | ${ms(packMs)} | ${(pkg.bytesTotal / MB / (packMs / 1000)).toFixed(0)} MB/s | ${states.size} (${polls}) | ${mib(idle.rss)} → ${mib(packing.peak)} | ${mib(afterPack.hwm)} |`,
  )
} finally {
  await running?.stop()
  await rm(dataDir, { recursive: true, force: true })
}

async function client(server: Running): Promise<{ session: DemoSession; call: <T = unknown>(method: string, url: string, json: unknown, status: number) => Promise<T> }> {
  const session = await signInDemo(server.base)
  return {
    session,
    async call<T>(method: string, url: string, json: unknown, status: number): Promise<T> {
      const res = await fetch(`${server.base}${url}`, {
        method,
        headers: { ...session.headers, accept: 'application/json', ...(json !== undefined && { 'content-type': 'application/json' }) },
        body: json === undefined ? undefined : JSON.stringify(json),
      })
      if (res.status !== status) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`)
      return (await res.json()) as T
    },
  }
}

/** One revision per document, of random bytes streamed into the store: TOTAL bytes in all. */
async function writeRevisions(tenantId: string, userId: string, ids: string[]): Promise<string[]> {
  const handle = await openDatabase({ dataDir, migrationsFolder: path.join(rootDir, 'server/db/migrations') })
  const store = blobStoreFor({ dataDir })
  const base = Math.floor(TOTAL / ids.length)
  const revisionIds: string[] = []
  try {
    for (const [i, documentId] of ids.entries()) {
      const size = i === ids.length - 1 ? TOTAL - base * (ids.length - 1) : base
      const revisionId = randomUUID()
      const staging = `staging/${tenantId}/bench-${revisionId}`
      const { sha256 } = await store.put(staging, Readable.from(noise(size)))
      const blobKey = revisionKey(tenantId, revisionId, 'file', sha256)
      await store.move(staging, blobKey)
      await withTenant(handle.db, tenantId, async (tx) => {
        await tx.insert(documentRevisions).values({
          tenantId,
          id: revisionId,
          documentId,
          version: 1,
          code: 'P01',
          status: 'S2',
          issuedBy: userId,
          fileName: `model-${i + 1}.bin`,
          contentType: 'application/octet-stream',
          sizeBytes: size,
          sha256,
          blobKey,
        })
        await tx
          .update(documents)
          .set({ currentRevisionId: revisionId, status: 'S2', state: 'Shared' })
          .where(and(eq(documents.tenantId, tenantId), eq(documents.id, documentId)))
      })
      revisionIds.push(revisionId)
    }
  } finally {
    await handle.close()
  }
  return revisionIds
}

function* noise(size: number): Generator<Buffer> {
  for (let left = size; left > 0; left -= MB) yield randomBytes(Math.min(MB, left))
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
