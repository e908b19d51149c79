// Mobile sync over HTTP against the built server (docs/performance.md "Sync"): a phone's full pull of
// a tenant with 20,000 and 100,000 items (every snapshot page, as the island pulls them), the bytes
// on the wire with the compression the front door negotiates, the server's peak resident memory
// (VmHWM) before and after; an incremental pull of 100 changes (p50/p95) and an unchanged poll
// (p50, with and without If-None-Match). PGlite always; PostgreSQL too when BENCH_DATABASE_URL is set.
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { request } from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { openDatabase } from '#server/db/client'
import { configFor, memory, serverFile, start, type Running } from './built-server'
import { adminQuery, databaseOf, seed, signIn } from './items-workload'

const MB = 1024 * 1024
/** BENCH_SYNC_ITEMS=100000 runs one size only. */
const SIZES = process.env.BENCH_SYNC_ITEMS ? [Number(process.env.BENCH_SYNC_ITEMS)] : [20_000, 100_000]
const RUNS = 50
const rootDir = fileURLToPath(new URL('..', import.meta.url))
const migrationsFolder = path.join(rootDir, 'server/db/migrations')
const PATH = process.env.BENCH_SYNC_PATH ?? '/api/sync/changes'

if (!existsSync(serverFile)) {
  console.log(`skipped: no ${path.relative(rootDir, serverFile)} (run \`npm run build\` first)`)
  process.exit(0)
}

let lastEncoding = 'identity'

type Answer = { status: number; wireBytes: number; bodyBytes: number; body: string; etag: string | undefined; ms: number }

for (const items of SIZES) await run('PGlite', items, undefined)
const serverUrl = process.env.BENCH_DATABASE_URL
if (serverUrl) for (const items of SIZES) await run('PostgreSQL', items, serverUrl)
else console.log('\n(PostgreSQL skipped: set BENCH_DATABASE_URL=postgres://… to run it too)')

async function run(label: string, items: number, server: string | undefined): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-bench-sync-'))
  const scratch = server ? `sp_bench_${randomBytes(4).toString('hex')}` : undefined
  try {
    if (server && scratch) await adminQuery(server, `create database "${scratch}"`)
    const env: Record<string, string> = { DATA_DIR: dataDir, ...(server && scratch && { DATABASE_URL: databaseOf(server, scratch) }) }
    console.log(`\n-- ${label}, ${items.toLocaleString('en')} items (${PATH})`)
    // A first start migrates; the folder is locked while a server runs, so seed it stopped.
    await (await start(env)).stop()
    const handle = await openDatabase({ dataDir, databaseUrl: env.DATABASE_URL, migrationsFolder })
    let headers: Record<string, string>
    try {
      headers = await signIn(handle.db, configFor(env), await seed(handle.db, items))
    } finally {
      await handle.close()
    }
    const running = await start(env)
    try {
      await measure(running, headers)
    } finally {
      await running.stop()
    }
  } finally {
    if (server && scratch) await adminQuery(server, `drop database if exists "${scratch}" with (force)`)
    await rm(dataDir, { recursive: true, force: true })
  }
}

async function measure(running: Running, headers: Record<string, string>): Promise<void> {
  const get = (p: string, extra: Record<string, string> = {}) => call(running.base, 'GET', p, { ...headers, 'accept-encoding': 'br, gzip', ...extra })
  await new Promise((resolve) => setTimeout(resolve, 3000))
  const before = memory(running)

  const cold = await fullPull(get)
  const first = memory(running)
  const pull = await fullPull(get)
  const second = memory(running)
  console.log(
    `   full pull, first                ${fmtMs(cold.ms)}   again ${fmtMs(pull.ms)}   ${pull.pages} pages   ` +
      `${(pull.wireBytes / MB).toFixed(1)} MB on the wire (${(pull.bodyBytes / MB).toFixed(1)} MB of JSON, ${pull.encoding})`,
  )
  console.log(
    `   server memory                   VmRSS at rest ${fmtMb(before.rss)}   VmHWM before ${fmtMb(before.hwm)}, after one pull ${fmtMb(first.hwm)}, after two ${fmtMb(second.hwm)}`,
  )

  const cursor = pull.cursor
  const poll = await timed(RUNS, () => get(`${PATH}?cursor=${encodeURIComponent(cursor)}`))
  const etag = poll.last.etag ?? ''
  const poll304 = await timed(RUNS, () => get(`${PATH}?cursor=${encodeURIComponent(cursor)}`, { 'if-none-match': etag }))
  console.log(
    `   unchanged poll                  p50 ${fmtMs(poll.p50)}   (${poll.last.status}, ${poll.last.wireBytes} B)   with If-None-Match p50 ${fmtMs(poll304.p50)} (${poll304.last.status})`,
  )

  // 100 changes after the cursor, made through the API as people make them.
  for (const id of pull.itemIds.slice(0, 100)) {
    const answer = await call(
      running.base,
      'PATCH',
      `/api/items/${id}`,
      { ...headers, origin: running.base, 'content-type': 'application/json' },
      JSON.stringify({ location: `Bench ${id.slice(0, 4)}` }),
    )
    if (answer.status !== 200) throw new Error(`PATCH ${id}: ${answer.status} ${answer.body.slice(0, 300)}`)
  }
  const delta = await timed(RUNS, () => get(`${PATH}?cursor=${encodeURIComponent(cursor)}`))
  const changes = (JSON.parse(delta.last.body) as { changes: unknown[] }).changes.length
  console.log(
    `   incremental pull of 100 changes p50 ${fmtMs(delta.p50)}   p95 ${fmtMs(delta.p95)}   (${changes} entries, ${delta.last.wireBytes} B on the wire)`,
  )
}

type Pull = { ms: number; pages: number; wireBytes: number; bodyBytes: number; encoding: string; cursor: string; itemIds: string[] }
async function fullPull(get: (p: string) => Promise<Answer>): Promise<Pull> {
  const started = performance.now()
  let cursor = ''
  let hasMore = true
  let pages = 0
  let wireBytes = 0
  let bodyBytes = 0
  let encoding = 'identity'
  const itemIds: string[] = []
  while (hasMore) {
    const answer = await get(cursor ? `${PATH}?cursor=${encodeURIComponent(cursor)}` : PATH)
    if (answer.status !== 200) throw new Error(`sync page ${pages + 1}: ${answer.status} ${answer.body.slice(0, 300)}`)
    const page = JSON.parse(answer.body) as { cursor: { value: string }; hasMore?: boolean; snapshot?: { reportItems: { id: string; status: string }[] } }
    for (const item of page.snapshot?.reportItems ?? []) if (item.status !== 'closed' && itemIds.length < 100) itemIds.push(item.id)
    cursor = page.cursor.value
    hasMore = page.hasMore === true
    pages += 1
    wireBytes += answer.wireBytes
    bodyBytes += answer.bodyBytes
    encoding = lastEncoding
  }
  return { ms: performance.now() - started, pages, wireBytes, bodyBytes, encoding, cursor, itemIds }
}

async function timed(runs: number, work: () => Promise<Answer>): Promise<{ p50: number; p95: number; last: Answer }> {
  const times: number[] = []
  let last: Answer | undefined
  for (let i = 0; i < runs + 3; i++) {
    last = await work()
    if (last.status >= 400) throw new Error(`${last.status} ${last.body.slice(0, 300)}`)
    if (i >= 3) times.push(last.ms)
  }
  times.sort((a, b) => a - b)
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? Number.NaN
  return { p50: at(0.5), p95: at(0.95), last: last as Answer }
}

/** One request with node:http, so the compressed bytes on the wire can be counted before decoding. */
function call(base: string, method: string, p: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const req = request(new URL(p, base), { method, headers: { accept: 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('error', reject)
      res.on('end', () => {
        const wire = Buffer.concat(chunks)
        const encoding = String(res.headers['content-encoding'] ?? 'identity')
        lastEncoding = encoding
        const decoded = encoding === 'br' ? brotliDecompressSync(wire) : encoding === 'gzip' ? gunzipSync(wire) : wire
        const etag = res.headers.etag
        resolve({
          status: res.statusCode ?? 0,
          wireBytes: wire.length,
          bodyBytes: decoded.length,
          body: decoded.toString('utf8'),
          etag,
          ms: performance.now() - started,
        })
      })
    })
    req.on('error', reject)
    req.end(body)
  })
}

function fmtMs(ms: number): string {
  return `${ms.toFixed(ms < 100 ? 1 : 0)} ms`.padStart(9)
}

function fmtMb(bytes: number): string {
  return `${(bytes / MB).toFixed(0)} MB`
}
