// The exports' memory and time (docs/exports.md, docs/decisions/0xx-exports-libraries-exports.md):
// a punch list PDF of 1,000 items (pdfkit, streamed), and spreadsheets of 1,000 and 50,000 items
// (CSV through csv-stringify; XLSX through exceljs's streaming writer and, for comparison, its
// in-memory workbook). Synthetic items, no database: it measures the writers, not the queries.
// Each run writes to a sink that only counts bytes, and samples the process's resident memory
// every 10 ms; the figure is the peak above the level before the run.
// Run only when named: `npm run bench -- exports` (or `npx tsx bench/exports.bench.ts [items]`).
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { Readable } from 'node:stream'
import ExcelJS from 'exceljs'
import { itemColumns } from '#server/domain/exports/items'
import { createPdf } from '#server/domain/formats/pdf'
import { writePunchList } from '#server/domain/exports/punch-list'
import { csvChunks } from '#server/domain/formats/table'
import { xlsxStream } from '#server/domain/formats/xlsx'
import type { Item } from '~/lib/reporting/types'

const PUNCH_LIST_ITEMS = Number(process.argv[2] ?? 1000)
const SHEET_ROWS = [1000, 50_000]
const BATCH = 200

function itemOf(n: number): Item {
  const who = { id: `u${n % 7}`, displayName: ['Zoë Ørsted', 'Łukasz Wróbel', '山田 太郎', 'Ana Silva'][n % 4] as string }
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    number: n,
    reportId: 'r',
    reportTitle: `Weekly walk ${n % 12}`,
    projectId: 'p',
    projectTitle: 'Harbour Tower',
    title: `Item ${n}: sealant missing at the window head, level ${n % 40}`,
    description: 'Seen on the walk.',
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

async function* batches(count: number): AsyncGenerator<Item[]> {
  for (let start = 1; start <= count; start += BATCH) yield Array.from({ length: Math.min(BATCH, count - start + 1) }, (_, i) => itemOf(start + i))
}

function sink(): { stream: Writable; bytes: () => number } {
  let bytes = 0
  return { stream: new Writable({ write: (chunk: Buffer, _e, done) => ((bytes += chunk.length), setImmediate(done)) }), bytes: () => bytes }
}

async function measure(label: string, work: () => Promise<number>): Promise<void> {
  global.gc?.()
  const before = process.memoryUsage().rss
  let peak = before
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10)
  const started = performance.now()
  const bytes = await work()
  const seconds = (performance.now() - started) / 1000
  clearInterval(timer)
  peak = Math.max(peak, process.memoryUsage().rss)
  console.log(`${label.padEnd(44)} ${(seconds).toFixed(2).padStart(6)} s  +${((peak - before) / 2 ** 20).toFixed(0).padStart(4)} MiB peak RSS  ${(bytes / 2 ** 20).toFixed(1)} MiB out`)
}

const clock = { now: new Date(), locale: 'en-GB', timeZone: 'Europe/London' }
const columns = itemColumns(new Map([['glazing', 'Glazing']]), 'http://portal.bench')

await measure(`punch list PDF, ${PUNCH_LIST_ITEMS} items (pdfkit)`, async () => {
  const out = sink()
  const doc = await createPdf({ title: 'Punch list', author: 'bench', footer: 'Bench · Punch list', now: clock.now })
  const done = pipeline(doc, out.stream)
  const meta = { organisation: 'Bench', title: 'Punch list', filters: [], madeBy: 'bench', groupBy: 'package' as const, packageName: (k: string) => k, publicUrl: 'http://portal.bench', clock }
  // Without photos: bench/exports-photos.bench.ts measures them.
  await writePunchList(doc, { ...meta, logoKey: null, images: async () => null, thumbnails: async () => new Map() }, batches(PUNCH_LIST_ITEMS))
  doc.end()
  await done
  return out.bytes()
})
for (const rows of SHEET_ROWS) {
  await measure(`CSV, ${rows} items (csv-stringify)`, async () => {
    const out = sink()
    await pipeline(Readable.from(csvChunks(columns, batches(rows))), out.stream)
    return out.bytes()
  })
  await measure(`XLSX, ${rows} items (exceljs streaming writer)`, async () => {
    const out = sink()
    await pipeline(xlsxStream('Items', columns, batches(rows)), out.stream)
    return out.bytes()
  })
  await measure(`XLSX, ${rows} items (exceljs in-memory workbook)`, async () => {
    const out = sink()
    const workbook = new ExcelJS.Workbook()
    const sheet = workbook.addWorksheet('Items')
    sheet.columns = columns.map((c, i) => ({ header: c.header, key: String(i), width: c.width }))
    for await (const batch of batches(rows)) for (const item of batch) sheet.addRow(columns.map((c) => c.value(item)))
    await workbook.xlsx.write(out.stream)
    return out.bytes()
  })
}
