// The PDF exports with their photos through HTTP (issue 34, docs/performance.md "Exports with photos
// through HTTP"): "a punch list of 1,000 items with 2,000 photos, and a report of 300 items with 600
// photos, each grows the server's memory by at most 200 MB while it runs and finishes within 60 s,
// PGlite and PostgreSQL". Starts the built server (`npm run build` first) once to make its data
// folder (and, with PostgreSQL, its own scratch database), stops it, seeds with the server down: one
// organisation and its administrator, a project, a report of 300 items (two photos and one response
// asking to close each) and one of 1,000 items (two photos each), the photos' rows as an upload
// leaves them and their blobs in the server's own file blob store: a display rendition (2048 × 1536)
// and a thumbnail (320 × 240) each, JPEGs made as the server's renditions are (quality 82,
// progressive, mozjpeg) from a photo-like picture (`--distinct`, 40 different pictures; each photo
// has its own blobs). Starts the server again and, as a person on the screens would (the job:
// POST /api/exports, then GET /api/exports/{id} every `--poll-ms` until it is ready, then the
// download, counted and checked with its size), asks for the report PDF and then the punch list PDF
// of the 1,000-item report. The server's VmRSS is sampled every 50 ms from /proc/<pid>/status while
// each export runs; the figure is its peak above the idle level before the export.
// PGlite always; PostgreSQL too with BENCH_DATABASE_URL=postgres://… (a scratch database is made
// there and dropped after). `--only report|punch-list` runs one. BENCH_SERVER=… runs another bundle.
// Run: `nice -n 10 npx tsx bench/exports-http.bench.ts` (about a minute of seeding per database).
import { randomBytes, randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { sql } from 'drizzle-orm'
import sharp from 'sharp'
import { openDatabase, type Database } from '#server/db/client'
import { memberships, tenants, users } from '#server/db/schema'
import { rowsOf, withTenant } from '#server/db/tenancy'
import { blobStoreFor } from '#server/storage/blob-stores'
import type { BlobStore } from '#server/storage/blob-store'
import type { ExportJob } from '~/lib/exports/types'
import { configFor, memory, sampleRss, serverFile, start, type Running } from './built-server'
import { adminQuery, databaseOf, signIn } from './items-workload'

const MB = 1024 * 1024
const rootDir = fileURLToPath(new URL('..', import.meta.url))
const migrationsFolder = path.join(rootDir, 'server/db/migrations')
const { values: args } = parseArgs({
  options: { only: { type: 'string' }, distinct: { type: 'string', default: '40' }, 'poll-ms': { type: 'string', default: '250' } },
})
const DISTINCT = Number(args.distinct)
const POLL_MS = Number(args['poll-ms'])
const REPORT_ITEMS = 300
const PUNCH_LIST_ITEMS = 1000
const PHOTOS_PER_ITEM = 2

if (!existsSync(serverFile)) {
  console.log(`skipped: no ${path.relative(rootDir, serverFile)} (run \`npm run build\` first)`)
  process.exit(0)
}

type Seeded = { tenantId: string; userId: string; projectId: string; reportId: string; punchReportId: string; photoBytes: { display: number; thumbnail: number } }
type Figure = { label: string; seconds: number; peakAbove: number; idle: number; bytes: number; polls: number; states: number }

const figures: Array<Figure & { database: string }> = []
const pictures = await makePictures()
await run('PGlite', undefined)
const serverUrl = process.env.BENCH_DATABASE_URL
if (serverUrl) await run('PostgreSQL', serverUrl)
else console.log('\n(PostgreSQL skipped: set BENCH_DATABASE_URL=postgres://… to run it too)')

console.log(`\nload average at the end ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')}`)
console.log('\n| Database | Export | Time (job asked → ready) | Server RSS idle → peak (growth) | File | Progress states seen (polls) |')
console.log('| --- | --- | --- | --- | --- | --- |')
for (const f of figures) {
  console.log(`| ${f.database} | ${f.label} | ${f.seconds.toFixed(1)} s | ${mib(f.idle)} → ${mib(f.idle + f.peakAbove)} (+${mib(f.peakAbove)}) | ${mib(f.bytes)} | ${f.states} (${f.polls}) |`)
}

async function run(database: string, server: string | undefined): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-bench-exports-http-'))
  const scratch = server ? `sp_bench_exports_${randomBytes(4).toString('hex')}` : undefined
  let running: Running | undefined
  try {
    if (server && scratch) await adminQuery(server, `create database "${scratch}"`)
    const env: Record<string, string> = { DATA_DIR: dataDir, LOG_LEVEL: 'warn', SEED: 'false', ...(server && scratch && { DATABASE_URL: databaseOf(server, scratch) }) }
    console.log(`\n-- ${database}: seeding ${REPORT_ITEMS} + ${PUNCH_LIST_ITEMS} items with ${(REPORT_ITEMS + PUNCH_LIST_ITEMS) * PHOTOS_PER_ITEM} photos …`)
    // A first start migrates; the PGlite folder is locked while a server runs, so seed it stopped.
    await (await start(env)).stop()
    const handle = await openDatabase({ dataDir, databaseUrl: env.DATABASE_URL, migrationsFolder })
    let seeded: Seeded
    let headers: Record<string, string>
    try {
      const started = performance.now()
      seeded = await seed(handle.db, blobStoreFor({ dataDir }))
      headers = await signIn(handle.db, configFor(env), { ...seeded, outstanding: 0 })
      console.log(
        `   seeded in ${((performance.now() - started) / 1000).toFixed(1)} s; a display rendition ${(seeded.photoBytes.display / 1024).toFixed(0)} KB, a thumbnail ${(seeded.photoBytes.thumbnail / 1024).toFixed(0)} KB on average`,
      )
    } finally {
      await handle.close()
    }
    running = await start(env)
    const exports = [
      { key: 'report', label: `Report PDF, ${REPORT_ITEMS} items / ${REPORT_ITEMS * PHOTOS_PER_ITEM} photos`, body: { kind: 'report-pdf', report: seeded.reportId } },
      { key: 'punch-list', label: `Punch list PDF, ${PUNCH_LIST_ITEMS} items / ${PUNCH_LIST_ITEMS * PHOTOS_PER_ITEM} photos`, body: { kind: 'punch-list-pdf', report: seeded.punchReportId } },
    ].filter((e) => !args.only || e.key === args.only)
    for (const e of exports) {
      const figure = await exportThroughHttp(running, headers, e.label, e.body)
      figures.push({ ...figure, database })
    }
  } finally {
    await running?.stop()
    await rm(dataDir, { recursive: true, force: true })
    if (server && scratch) await adminQuery(server, `drop database if exists "${scratch}" with (force)`)
  }
}

/** Starts the export as the screens do, follows it until it is ready, downloads it; the server's RSS sampled throughout. */
async function exportThroughHttp(server: Running, headers: Record<string, string>, label: string, body: Record<string, string>): Promise<Figure> {
  const call = (method: string, url: string, json?: unknown) =>
    fetch(`${server.base}${url}`, {
      method,
      headers: { ...headers, origin: server.base, accept: 'application/json', 'accept-language': 'en-GB', ...(json !== undefined && { 'content-type': 'application/json', 'idempotency-key': randomUUID() }) },
      body: json === undefined ? undefined : JSON.stringify(json),
    })
  await new Promise((resolve) => setTimeout(resolve, 2_000))
  const idle = memory(server).rss
  const rss = sampleRss(server)
  const started = performance.now()
  const res = await call('POST', '/api/exports', body)
  if (res.status !== 202) throw new Error(`POST /api/exports: ${res.status} ${await res.text()}`)
  let job = (await res.json()) as ExportJob
  let polls = 0
  const states = new Set<string>()
  while (job.status === 'queued' || job.status === 'running') {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    const polled = await call('GET', `/api/exports/${job.id}`)
    if (!polled.ok) throw new Error(`GET /api/exports/${job.id}: ${polled.status} ${await polled.text()}`)
    job = (await polled.json()) as ExportJob
    polls++
    states.add(`${job.status}:${job.itemsDone}`)
  }
  const seconds = (performance.now() - started) / 1000
  if (job.status !== 'ready' || !job.downloadUrl) throw new Error(`${label}: the export ended ${job.status}: ${job.error}\n${server.log().slice(-3000)}`)
  const download = await call('GET', job.downloadUrl)
  if (download.status !== 200 || !download.body) throw new Error(`download: ${download.status} ${await download.text()}`)
  let bytes = 0
  for await (const chunk of download.body) bytes += (chunk as Uint8Array).length
  const { peak } = rss.stop()
  if (bytes !== job.sizeBytes) throw new Error(`${label}: downloaded ${bytes} bytes of ${job.sizeBytes}`)
  console.log(`   ${label}: ready in ${seconds.toFixed(1)} s (${polls} polls, ${states.size} states seen); server RSS idle ${mib(idle)}, peak ${mib(peak)} (+${mib(peak - idle)}); ${mib(bytes)} downloaded`)
  return { label, seconds, peakAbove: peak - idle, idle, bytes, polls, states: states.size }
}

/** Photo-like pictures: soft noise over a gradient of colours, so they compress like a photo, not like flat colour or pure noise. */
async function makePictures(): Promise<Array<{ display: Buffer; thumbnail: Buffer }>> {
  const out: Array<{ display: Buffer; thumbnail: Buffer }> = []
  for (let i = 0; i < DISTINCT; i++) {
    const [w, h] = [2048, 1536]
    const gradient = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${(i * 37) % 360},45%,60%)"/><stop offset="1" stop-color="hsl(${(i * 37 + 140) % 360},35%,30%)"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/>${Array.from({ length: 60 }, (_, k) => `<rect x="${(k * 211 + i * 53) % w}" y="${(k * 97 + i * 31) % h}" width="${80 + ((k * 13) % 300)}" height="${40 + ((k * 29) % 200)}" fill="hsl(${(k * 47 + i * 11) % 360},30%,${30 + (k % 5) * 10}%)" opacity="0.7"/>`).join('')}</svg>`,
    )
    const noise = await sharp({ create: { width: w, height: h, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 18 } } })
      .png()
      .toBuffer()
    const pixels = await sharp(gradient).composite([{ input: noise, blend: 'overlay' }]).removeAlpha().raw().toBuffer({ resolveWithObject: true })
    const raw = { raw: { width: pixels.info.width, height: pixels.info.height, channels: pixels.info.channels } }
    const display = await sharp(pixels.data, raw).jpeg({ quality: 82, progressive: true, mozjpeg: true }).toBuffer()
    const thumbnail = await sharp(pixels.data, raw).resize(320, 320, { fit: 'inside' }).jpeg({ quality: 82, progressive: true, mozjpeg: true }).toBuffer()
    out.push({ display, thumbnail })
  }
  return out
}

/** The organisation, its administrator, a project and the two reports, their items, responses and photos (rows and blobs). */
async function seed(db: Database, store: BlobStore): Promise<Seeded> {
  const [tenant] = await db.insert(tenants).values({ name: 'Bench', slug: `bench-${randomBytes(4).toString('hex')}` }).returning({ id: tenants.id })
  const [user] = await db.insert(users).values({ email: `bench-${randomBytes(4).toString('hex')}@example.test`, displayName: 'Zoë Ørsted' }).returning({ id: users.id })
  if (!tenant || !user) throw new Error('seed: no tenant or user')
  const t = tenant.id
  const u = user.id
  const projectId = randomUUID()
  const reportId = randomUUID()
  const punchReportId = randomUUID()
  const items = await withTenant(db, t, async (tx) => {
    await tx.insert(memberships).values({ tenantId: t, userId: u, roleKey: 'admin', isDefault: true })
    await tx.execute(sql`insert into projects (tenant_id, id, title, created_by, revision) values (${t}, ${projectId}, 'Harbour Tower', ${u}, 1)`)
    await tx.execute(sql`insert into reports (tenant_id, id, project_id, title, created_by, revision) values (${t}, ${reportId}, ${projectId}, 'Weekly walk', ${u}, 2), (${t}, ${punchReportId}, ${projectId}, 'Snagging, level 1–40', ${u}, 3)`)
    const rows: Array<{ id: string }> = []
    for (const [report, count, offset] of [[reportId, REPORT_ITEMS, 0], [punchReportId, PUNCH_LIST_ITEMS, REPORT_ITEMS]] as const) {
      const inserted = await tx.execute(sql`
        insert into report_items (tenant_id, id, report_id, project_id, number, title, description, location, status, priority, assignee_user_id, due_date, created_by, revision, created_at, updated_at)
        select ${t}, gen_random_uuid(), ${report}, ${projectId}, ${offset} + g, 'Item ' || g || ': sealant missing at the window head, level ' || (g % 40),
               'Seen on the walk; the sealant is missing along the whole head of the window and water has come in.', 'Level ' || (g % 40) || ', grid C' || (g % 9),
               case when g % 3 = 0 then 'close_requested' else 'open' end, 'medium', ${u}, date '2025-03-20', ${u}, 10 + ${offset} + g,
               timestamptz '2025-03-01' + g * interval '1 minute', timestamptz '2025-03-01' + g * interval '1 minute'
        from generate_series(1, ${count}) g
        returning id`)
      rows.push(...rowsOf<{ id: string }>(inserted))
    }
    await tx.execute(sql`
      insert into item_responses (tenant_id, item_id, author_user_id, kind, body, request_close)
      select ${t}, id, ${u}, 'response', 'Fixed, see the photos.', true from report_items where report_id = ${reportId}`)
    return rows.map((r) => r.id)
  })
  let display = 0
  let thumbnail = 0
  let n = 0
  const photoRows: Array<Record<string, unknown>> = []
  for (const itemId of items) {
    for (let k = 0; k < PHOTOS_PER_ITEM; k++) {
      const picture = pictures[n % pictures.length] as { display: Buffer; thumbnail: Buffer }
      const id = randomUUID()
      const displayKey = `${t}/photos/${id}/display.jpg`
      const thumbnailKey = `${t}/photos/${id}/thumbnail.jpg`
      await store.put(displayKey, picture.display)
      await store.put(thumbnailKey, picture.thumbnail)
      display += picture.display.length
      thumbnail += picture.thumbnail.length
      photoRows.push({ id, itemId, name: `IMG_${n}.jpg`, displayKey, thumbnailKey, size: picture.display.length, order: k })
      n++
    }
  }
  await withTenant(db, t, async (tx) => {
    for (let start = 0; start < photoRows.length; start += 500) {
      const values = photoRows.slice(start, start + 500).map(
        (p) => sql`(${t}, ${p.id}, ${p.itemId}, ${u}, ${p.name}, ${p.name}, 'image/jpeg', ${p.size}, 2048, 1536, ${'0'.repeat(64)}, ${p.order}, ${p.displayKey}, ${p.displayKey}, ${p.thumbnailKey})`,
      )
      await tx.execute(sql`
        insert into photos (tenant_id, id, item_id, uploaded_by, file_name, display_name, content_type, size_bytes, width, height, sha256, sort_order, original_key, display_key, thumbnail_key)
        values ${sql.join(values, sql`, `)}`)
    }
  })
  return { tenantId: t, userId: u, projectId, reportId, punchReportId, photoBytes: { display: display / n, thumbnail: thumbnail / n } }
}

function mib(bytes: number): string {
  return `${(bytes / MB).toFixed(0)} MB`
}
