// The PDF exports with their photos (docs/exports.md, docs/performance.md "Exports with photos"):
//   punch-list: 1,000 items with 2,000 photos (two per item; the punch list prints the first one's
//               thumbnail rendition, 320 px, on each row);
//   report:     300 items with 600 photos (two per item, display renditions of 2048 × 1536 px,
//               printed two per row), one response per item, and a logo on the cover.
// The writers and images are the server's own (punch-list.ts, report-pdf.ts, pictures.ts: every
// image read from a file blob store and re-encoded by sharp through the photos' work queue); the
// items are synthetic and come without a database, so the figures are the writers' and the
// images', not the queries'. 40 distinct photos are stored and each is used by many items (every
// use is read and decoded again: nothing is cached). Each run is its own process, because resident
// memory does not shrink after a run; the figure is the peak RSS above the level before the run,
// sampled every 10 ms, with the output written to a sink that only counts bytes.
// Run: `nice -n 10 node --expose-gc --import tsx bench/exports-photos.bench.ts punch-list|report`
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import sharp from 'sharp'
import { createPdf } from '#server/domain/formats/pdf'
import type { PhotoRef } from '#server/domain/exports/pictures'
import { storeImages } from '#server/domain/exports/pictures'
import { writePunchList } from '#server/domain/exports/punch-list'
import { type ItemWithResponses, writeReportPdf } from '#server/domain/exports/report-pdf'
import { FileBlobStore } from '#server/storage/blob-store'
import type { Item, Report } from '~/lib/reporting/types'

const which = process.argv[2] === 'report' ? 'report' : 'punch-list'
// A smaller run (`… report 60`) for a profile (`node --cpu-prof`).
const ITEMS = Number(process.argv[3]) || (which === 'report' ? 300 : 1000)
const PHOTOS_PER_ITEM = 2
const DISTINCT = 40
const BATCH = which === 'report' ? 50 : 200

function itemOf(n: number): Item {
  const who = { id: `u${n % 7}`, displayName: ['Zoë Ørsted', 'Łukasz Wróbel', '山田 太郎', 'Ana Silva'][n % 4] as string }
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    number: n,
    reportId: 'r',
    reportTitle: 'Weekly walk',
    projectId: 'p',
    projectTitle: 'Harbour Tower',
    title: `Item ${n}: sealant missing at the window head, level ${n % 40}`,
    description: 'Seen on the walk; the sealant is missing along the whole head of the window and water has come in.',
    status: n % 3 === 0 ? 'close_requested' : 'open',
    priority: 'medium',
    assignee: who,
    packageKey: n % 2 === 0 ? 'glazing' : null,
    location: `Level ${n % 40}, grid C${n % 9}`,
    dueDate: '2025-03-20',
    overdue: false,
    createdBy: who,
    closedAtUtc: null,
    closedBy: null,
    createdAtUtc: '2025-03-01T08:00:00.000Z',
    updatedAtUtc: '2025-03-01T08:00:00.000Z',
    revision: n,
    nextAction: { by: 'assignee', user: who, label: `Waiting on ${who.displayName}` },
  }
}

/** Photo-like JPEGs (noise over a colour, so they compress like photos, not like flat colour). */
async function storePhotos(store: FileBlobStore, size: number, name: string): Promise<string[]> {
  const keys: string[] = []
  for (let i = 0; i < DISTINCT; i++) {
    const width = size
    const height = Math.round((size * 3) / 4)
    const noise = await sharp({ create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 120 + i, sigma: 40 } } })
      .jpeg({ quality: 82 })
      .toBuffer()
    const key = `bench/photos/${i}/${name}-jpeg.${String(i).padStart(64, '0')}`
    await store.put(key, noise)
    keys.push(key)
  }
  return keys
}

function photosOf(n: number, keys: string[]): PhotoRef[] {
  return Array.from({ length: PHOTOS_PER_ITEM }, (_, k) => ({ photoId: `p${n}-${k}`, key: keys[(n * PHOTOS_PER_ITEM + k) % keys.length] as string, caption: `IMG_${n}_${k}.jpg` }))
}

function sink(): { stream: Writable; bytes: () => number } {
  let bytes = 0
  return { stream: new Writable({ write: (chunk: Buffer, _e, done) => ((bytes += chunk.length), setImmediate(done)) }), bytes: () => bytes }
}

const root = await mkdtemp(path.join(os.tmpdir(), 'sp-bench-exports-'))
const store = new FileBlobStore(root)
const clock = { now: new Date(), locale: 'en-GB', timeZone: 'Europe/London' }
const keys = await storePhotos(store, which === 'report' ? 2048 : 320, which === 'report' ? 'display' : 'thumbnail')
const logoKey = (await storePhotos(store, 400, 'logo'))[0] ?? null

global.gc?.()
const before = process.memoryUsage().rss
let peak = before
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10)
const started = performance.now()
const out = sink()
const images = storeImages(store)
if (which === 'punch-list') {
  const doc = await createPdf({ title: 'Punch list', author: 'bench', footer: 'Bench · Punch list', now: clock.now })
  const done = pipeline(doc, out.stream)
  async function* batches(): AsyncGenerator<Item[]> {
    for (let start = 1; start <= ITEMS; start += BATCH) yield Array.from({ length: Math.min(BATCH, ITEMS - start + 1) }, (_, i) => itemOf(start + i))
  }
  const thumbnails = async (ids: string[]) => new Map(ids.map((id) => [id, photosOf(Number(id.slice(-12)), keys)[0] as PhotoRef]))
  const meta = { organisation: 'Bench', title: 'Punch list', filters: [], madeBy: 'bench', groupBy: 'package' as const, packageName: (k: string) => k, publicUrl: 'http://portal.bench', clock }
  await writePunchList(doc, { ...meta, logoKey, images, thumbnails }, batches())
  doc.end()
  await done
} else {
  const report: Report = {
    id: 'r',
    projectId: 'p',
    projectTitle: 'Harbour Tower',
    title: 'Weekly walk',
    status: 'active',
    archivedAtUtc: null,
    createdBy: { id: 'u1', displayName: 'Zoë Ørsted' },
    createdAtUtc: '2025-03-01T08:00:00.000Z',
    updatedAtUtc: '2025-03-01T08:00:00.000Z',
    revision: 1,
    itemCounts: { open: ITEMS, closeRequested: 0, closed: 0 },
  }
  const doc = await createPdf({ title: 'Weekly walk', author: 'bench', footer: 'Weekly walk', now: clock.now })
  const done = pipeline(doc, out.stream)
  async function* entries(): AsyncGenerator<ItemWithResponses[]> {
    for (let start = 1; start <= ITEMS; start += BATCH) {
      yield Array.from({ length: Math.min(BATCH, ITEMS - start + 1) }, (_, i) => {
        const item = itemOf(start + i)
        const photos = photosOf(item.number, keys)
        const response = { id: `r${item.number}`, itemId: item.id, kind: 'response' as const, author: item.assignee, body: 'Fixed, see the photos.', requestClose: true, photoIds: photos.map((p) => p.photoId), createdAtUtc: '2025-03-02T08:00:00.000Z' }
        return { item, responses: [response], photos, pin: null }
      })
    }
  }
  const meta = { organisation: 'Bench', logoKey, madeBy: 'bench', packageName: (k: string) => k, publicUrl: 'http://portal.bench', clock, images }
  await writeReportPdf(doc, report, meta, entries())
  doc.end()
  await done
}
const seconds = (performance.now() - started) / 1000
clearInterval(timer)
peak = Math.max(peak, process.memoryUsage().rss)
const photos = ITEMS * PHOTOS_PER_ITEM
console.log(
  `${which === 'report' ? 'Report PDF' : 'Punch list PDF'}, ${ITEMS} items / ${photos} photos: ${seconds.toFixed(1)} s, +${((peak - before) / 2 ** 20).toFixed(0)} MiB peak RSS, ${(out.bytes() / 2 ** 20).toFixed(1)} MiB file`,
)
await rm(root, { recursive: true, force: true })
