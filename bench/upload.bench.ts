// Photo uploads over loopback (docs/performance.md "Photo uploads"): one file of the largest allowed
// size in chunks (chunk phase and complete phase timed apart), then 20 concurrent 5 MB uploads.
// Starts the built server (`npm run build` first) on a temporary data folder, signs in as the
// seeded demo user over HTTP, and samples the server's resident memory from /proc every 50 ms.
// BENCH_SERVER=/path/build/node/index.js runs another server bundle (its root two folders up).
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import sharp from 'sharp'
import { signInDemo, waitForHealth } from './demo-client'
import { MAX_FILE_BYTES } from '#server/domain/photos/photos'

const MB = 1024 * 1024
const WANTED_BIG = 100 * MB
const SMALL = 5 * MB
const CONCURRENT = 20
const BURST = 50
/** Which cases run: all by default; BENCH_UPLOAD_CASES=burst runs the warm-up and the 50-completes burst only. */
const CASES = new Set((process.env.BENCH_UPLOAD_CASES ?? 'big,concurrent,burst').split(','))
const rootDir = fileURLToPath(new URL('..', import.meta.url))
const serverFile = process.env.BENCH_SERVER ?? path.join(rootDir, 'build/node/index.js')

if (!existsSync(serverFile)) {
  console.log(`skipped: no ${path.relative(rootDir, serverFile)} (run \`npm run build\` first)`)
  process.exit(0)
}
if (!readFileSync(serverFile, 'utf8').includes('/api/uploads/:sessionId/chunk')) {
  console.log(`skipped: ${path.relative(rootDir, serverFile)} predates the upload routes (run \`npm run build\` again)`)
  process.exit(0)
}

const bigSize = Math.min(WANTED_BIG, MAX_FILE_BYTES)
if (bigSize < WANTED_BIG) console.log(`note: the server refuses files over MAX_FILE_BYTES = ${MAX_FILE_BYTES / MB} MB (server/domain/photos/photos.ts); the "100 MB" upload is ${bigSize / MB} MB instead`)

console.log('generating JPEGs …')
// A 48-megapixel noise JPEG (libvips must really decode it on complete), padded with COM segments.
const bigBase = await noiseJpeg(8000, 6000, 80)
const big = padJpeg(bigBase, bigSize)
// A 12-megapixel phone photo; each of the 20 copies gets different padding, so different bytes.
const smallBase = await noiseJpeg(4032, 3024, 70)
const smalls = Array.from({ length: CONCURRENT }, () => padJpeg(smallBase, SMALL))

const port = 3900 + Math.floor(Math.random() * 90)
const base = `http://127.0.0.1:${port}`
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-bench-upload-'))
const server = spawn('node', [serverFile], { env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, stdio: 'inherit' })
const pid = server.pid ?? 0

try {
  await waitForHealth(base, 150)
  const { headers } = await signInDemo(base)
  const items = await fetch(`${base}/api/items/outstanding?limit=1`, { headers: { ...headers, accept: 'application/json' } })
  if (!items.ok) throw new Error(`outstanding items: ${items.status} ${await items.text()}`)
  const itemId = ((await items.json()) as { items: { id: string }[] }).items[0]?.id
  if (!itemId) throw new Error('no seeded outstanding item')
  const idle = memory()
  console.log(`server pid ${pid}, idle RSS ${mib(idle.rss)}, VmHWM so far ${mib(idle.hwm)}`)

  // Warm-up: one 5 MB upload (first sharp/libvips use, JIT), and a memory reference for size.
  {
    const sampler = sampleRss()
    const t = await upload(headers, itemId, 'warm-up.jpg', smalls[0] ?? Buffer.alloc(0))
    const peak = await sampler.stop()
    console.log(`\nwarm-up 5 MB: chunks ${t.chunkMs.toFixed(0)} ms, complete ${t.completeMs.toFixed(0)} ms; peak RSS ${mib(peak)}`)
  }

  // 1. The largest allowed file, in chunks of the server's chunkSize.
  if (CASES.has('big')) {
    const sampler = sampleRss()
    const t = await upload(headers, itemId, 'big.jpg', big)
    const peak = await sampler.stop()
    const mbs = big.length / MB / (t.chunkMs / 1000)
    console.log(`\n1. one ${(big.length / MB).toFixed(0)} MB JPEG (8000×6000 pixels + COM padding), ${t.chunks} chunks of ${t.chunkSize / MB} MB`)
    console.log(`   create ${t.createMs.toFixed(0)} ms, chunk phase ${t.chunkMs.toFixed(0)} ms (${mbs.toFixed(0)} MB/s), complete ${t.completeMs.toFixed(0)} ms`)
    console.log(`   end to end ${(t.totalMs / 1000).toFixed(2)} s (${(big.length / MB / (t.totalMs / 1000)).toFixed(1)} MB/s)`)
    console.log(`   server peak RSS ${mib(peak)} (idle ${mib(idle.rss)}, +${mib(peak - idle.rss)}), VmHWM ${mib(memory().hwm)}`)
  }

  // 2. 20 uploads of 5 MB photos at once.
  if (CASES.has('concurrent')) {
    const before = memory()
    const sampler = sampleRss()
    const started = performance.now()
    const results = await Promise.all(smalls.map((bytes, i) => upload(headers, itemId, `photo-${i}.jpg`, bytes)))
    const totalMs = performance.now() - started
    const peak = await sampler.stop()
    const per = results.map((r) => r.totalMs).sort((a, b) => a - b)
    const at = (q: number) => per[Math.min(per.length - 1, Math.ceil(q * per.length) - 1)] ?? Number.NaN
    const completes = results.map((r) => r.completeMs).sort((a, b) => a - b)
    const bytes = CONCURRENT * SMALL
    console.log(`\n2. ${CONCURRENT} concurrent uploads of 5 MB JPEGs (4032×3024 pixels + COM padding)`)
    console.log(`   total ${(totalMs / 1000).toFixed(2)} s, ${(CONCURRENT / (totalMs / 1000)).toFixed(2)} photos/s, ${(bytes / MB / (totalMs / 1000)).toFixed(1)} MB/s`)
    console.log(`   per upload p50 ${(at(0.5) / 1000).toFixed(2)} s, p95 ${(at(0.95) / 1000).toFixed(2)} s, max ${((per.at(-1) ?? 0) / 1000).toFixed(2)} s; complete alone p50 ${((completes[Math.ceil(completes.length / 2) - 1] ?? 0) / 1000).toFixed(2)} s`)
    console.log(`   server peak RSS ${mib(peak)} (before ${mib(before.rss)}, +${mib(peak - before.rss)}), VmHWM ${mib(memory().hwm)}`)
  }
  // 3. 50 completes at once: every upload's bytes are in first, then all 50 completes are sent together,
  // while a light request (GET /api/health, and GET /api/items/outstanding?limit=1) is issued every 100 ms.
  if (CASES.has('burst')) {
    const idleLight = await lightLatencies(headers, 20)
    const sessions: string[] = []
    for (let i = 0; i < BURST; i++) sessions.push(await uploadChunks(headers, itemId, `burst-${i}.jpg`, smalls[i % smalls.length] ?? Buffer.alloc(0), i))
    const before = memory()
    const sampler = sampleRss()
    let bursting = true
    const light = { health: [] as number[], outstanding: [] as number[] }
    const prober = (async () => {
      while (bursting) {
        const sample = await lightOnce(headers)
        light.health.push(sample.health)
        light.outstanding.push(sample.outstanding)
        await new Promise((r) => setTimeout(r, 100))
      }
    })()
    const started = performance.now()
    const statuses = await Promise.all(sessions.map(async (id) => {
      const t0 = performance.now()
      const done = await fetch(`${base}/api/uploads/${id}/complete`, { method: 'POST', headers: { ...headers, accept: 'application/json' } })
      await done.text()
      return { status: done.status, ms: performance.now() - t0 }
    }))
    const totalMs = performance.now() - started
    bursting = false
    await prober
    const peak = await sampler.stop()
    const ok = statuses.filter((s) => s.status === 201).length
    const per = statuses.map((s) => s.ms).sort((a, b) => a - b)
    console.log(`\n3. ${BURST} completes at once (5 MB JPEGs, 4032×3024 px; bytes uploaded beforehand), rendition queue of ${process.env.BENCH_QUEUE_NOTE ?? 'the CPU count'}`)
    console.log(`   ${ok}/${BURST} answered 201 (others: ${statuses.filter((s) => s.status !== 201).map((s) => s.status).join(', ') || 'none'}); all done in ${(totalMs / 1000).toFixed(1)} s, ${(BURST / (totalMs / 1000)).toFixed(2)} photos/s`)
    console.log(`   complete latency p50 ${(quantile(per, 0.5) / 1000).toFixed(1)} s, p95 ${(quantile(per, 0.95) / 1000).toFixed(1)} s, max ${((per.at(-1) ?? 0) / 1000).toFixed(1)} s`)
    console.log(`   server peak RSS ${mib(peak)} (before ${mib(before.rss)}, +${mib(peak - before.rss)}), VmHWM ${mib(memory().hwm)}`)
    for (const name of ['health', 'outstanding'] as const) {
      const during = light[name].slice().sort((a, b) => a - b)
      const idle = idleLight[name].slice().sort((a, b) => a - b)
      console.log(`   GET ${name === 'health' ? '/api/health' : '/api/items/outstanding?limit=1'}: idle p50 ${quantile(idle, 0.5).toFixed(0)} ms / p95 ${quantile(idle, 0.95).toFixed(0)} ms; during the burst (${during.length} requests) p50 ${quantile(during, 0.5).toFixed(0)} ms, p95 ${quantile(during, 0.95).toFixed(0)} ms, max ${(during.at(-1) ?? 0).toFixed(0)} ms`)
    }
  }

  const end = memory()
  console.log(`\nserver RSS at the end ${mib(end.rss)}, VmHWM ${mib(end.hwm)}`)
} finally {
  server.kill('SIGTERM')
  const exited = new Promise((resolve) => server.once('exit', resolve))
  const timeout = setTimeout(() => server.kill('SIGKILL'), 10_000)
  await exited
  clearTimeout(timeout)
  rmSync(dataDir, { recursive: true, force: true })
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN
}

async function lightOnce(headers: Record<string, string>): Promise<{ health: number; outstanding: number }> {
  const t0 = performance.now()
  const health = await fetch(`${base}/api/health`)
  await health.text()
  const t1 = performance.now()
  const outstanding = await fetch(`${base}/api/items/outstanding?limit=1`, { headers: { ...headers, accept: 'application/json' } })
  await outstanding.text()
  if (!health.ok || !outstanding.ok) throw new Error(`light request failed: ${health.status} / ${outstanding.status}`)
  return { health: t1 - t0, outstanding: performance.now() - t1 }
}

async function lightLatencies(headers: Record<string, string>, count: number): Promise<{ health: number[]; outstanding: number[] }> {
  const out = { health: [] as number[], outstanding: [] as number[] }
  for (let i = 0; i < count; i++) {
    const sample = await lightOnce(headers)
    out.health.push(sample.health)
    out.outstanding.push(sample.outstanding)
    await new Promise((r) => setTimeout(r, 50))
  }
  return out
}

/** Creates a session and sends every chunk, without completing: answers the session id. */
async function uploadChunks(headers: Record<string, string>, itemId: string, fileName: string, bytes: Buffer, salt: number): Promise<string> {
  // Different bytes per upload (a changed COM byte), so no two photos are the same file.
  const copy = Buffer.from(bytes)
  copy[10] = salt & 0xff
  const created = await fetch(`${base}/api/items/${itemId}/uploads`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ fileName, size: copy.length, contentType: 'image/jpeg' }),
  })
  if (created.status !== 201) throw new Error(`create upload: ${created.status} ${await created.text()}`)
  const session = (await created.json()) as { id: string; chunkSize: number }
  for (let offset = 0; offset < copy.length; ) {
    const part = copy.subarray(offset, Math.min(copy.length, offset + session.chunkSize))
    const res = await fetch(`${base}/api/uploads/${session.id}/chunk?offset=${offset}`, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'application/octet-stream', accept: 'application/json' },
      body: part as Uint8Array<ArrayBuffer>,
    })
    if (!res.ok) throw new Error(`chunk at ${offset}: ${res.status} ${await res.text()}`)
    offset = Number(res.headers.get('upload-offset'))
    await res.body?.cancel()
  }
  return session.id
}

type Timing = { createMs: number; chunkMs: number; completeMs: number; totalMs: number; chunks: number; chunkSize: number }

async function upload(headers: Record<string, string>, itemId: string, fileName: string, bytes: Buffer): Promise<Timing> {
  const t0 = performance.now()
  const created = await fetch(`${base}/api/items/${itemId}/uploads`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ fileName, size: bytes.length, contentType: 'image/jpeg' }),
  })
  if (created.status !== 201) throw new Error(`create upload: ${created.status} ${await created.text()}`)
  const session = (await created.json()) as { id: string; chunkSize: number }
  const t1 = performance.now()
  let chunks = 0
  for (let offset = 0; offset < bytes.length && chunks < 1000; chunks++) {
    const part = bytes.subarray(offset, Math.min(bytes.length, offset + session.chunkSize))
    const res = await fetch(`${base}/api/uploads/${session.id}/chunk?offset=${offset}`, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'application/octet-stream', accept: 'application/json' },
      body: part as Uint8Array<ArrayBuffer>,
    })
    if (!res.ok) throw new Error(`chunk at ${offset}: ${res.status} ${await res.text()}`)
    const next = Number(res.headers.get('upload-offset'))
    await res.body?.cancel()
    if (!(next > offset)) throw new Error(`chunk at ${offset}: the offset did not move (${next})`)
    offset = next
  }
  const t2 = performance.now()
  const done = await fetch(`${base}/api/uploads/${session.id}/complete`, { method: 'POST', headers: { ...headers, accept: 'application/json' } })
  if (done.status !== 201) throw new Error(`complete: ${done.status} ${await done.text()}`)
  await done.text()
  const t3 = performance.now()
  return { createMs: t1 - t0, chunkMs: t2 - t1, completeMs: t3 - t2, totalMs: t3 - t0, chunks, chunkSize: session.chunkSize }
}


/** Gaussian noise: incompressible enough that the pixels, not the padding, are most of a phone-sized file. */
async function noiseJpeg(width: number, height: number, quality: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 128, g: 128, b: 128 }, noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
    .jpeg({ quality })
    .toBuffer()
}

/** The JPEG grown to exactly `size` bytes with comment (COM) segments of random bytes after SOI. */
function padJpeg(jpeg: Buffer, size: number): Buffer {
  let missing = size - jpeg.length
  if (missing < 0) throw new Error(`the JPEG is already ${jpeg.length} bytes, over ${size}`)
  const segments: Buffer[] = []
  while (missing > 0) {
    if (missing < 4) throw new Error('cannot pad by fewer than 4 bytes')
    // A segment is 4 bytes of marker and length plus at most 65,533 bytes; never leave 1–3 bytes over.
    let total = Math.min(missing, 65_537)
    if (missing - total > 0 && missing - total < 4) total -= 4
    const segment = Buffer.alloc(total)
    segment[0] = 0xff
    segment[1] = 0xfe
    segment.writeUInt16BE(total - 2, 2)
    randomBytes(total - 4).copy(segment, 4)
    segments.push(segment)
    missing -= total
  }
  const out = Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)])
  if (out.length !== size) throw new Error(`padded to ${out.length}, wanted ${size}`)
  return out
}

function memory(): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') }
}

/** Polls VmRSS every 50 ms until stopped; answers the highest value seen. */
function sampleRss(): { stop: () => Promise<number> } {
  let peak = memory().rss
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, memory().rss)
    } catch {
      // the server is gone: the run fails elsewhere
    }
  }, 50)
  return {
    stop: async () => {
      clearInterval(timer)
      peak = Math.max(peak, memory().rss)
      return peak
    },
  }
}

function mib(bytes: number): string {
  return `${(bytes / MB).toFixed(0)} MB`
}

