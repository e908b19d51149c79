// The sync island applying a whole tenant in Chromium (docs/performance.md "Mobile sync", issue 10):
// the built server on PGlite with mobile sync on and the items workload seeded (100,000 items, or
// BENCH_SYNC_ITEMS), a signed-in page on /dashboard, and the island's first pull into IndexedDB:
// time from its first feed request to "Synced", the page's JS heap at its peak (CDP, sampled every
// 100 ms), what IndexedDB holds after, and the storage the browser reports.
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import { openDatabase } from '#server/db/client'
import { configFor, memory, serverFile, start } from './built-server'
import { seed, signIn } from './items-workload'

const CHROMIUM = '/usr/bin/chromium'
const MB = 1024 * 1024
const ITEMS = Number(process.env.BENCH_SYNC_ITEMS ?? 100_000)
const rootDir = fileURLToPath(new URL('..', import.meta.url))

if (!existsSync(serverFile) || !existsSync(CHROMIUM)) {
  console.log(`skipped: needs ${path.relative(rootDir, serverFile)} (npm run build) and ${CHROMIUM} (node scripts/ensure-chromium.mjs)`)
  process.exit(0)
}

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-bench-island-'))
const env = { DATA_DIR: dataDir, FEATURE_FLAGS: '{"mobileSync":true}' }
try {
  await (await start(env)).stop()
  const handle = await openDatabase({ dataDir, migrationsFolder: path.join(rootDir, 'server/db/migrations') })
  let headers: Record<string, string>
  try {
    headers = await signIn(handle.db, configFor(env), await seed(handle.db, ITEMS))
  } finally {
    await handle.close()
  }
  const running = await start(env)
  const browser = await chromium.launch({ executablePath: CHROMIUM })
  try {
    const context = await browser.newContext({ baseURL: running.base })
    await context.addCookies(
      (headers.cookie ?? '').split('; ').map((pair) => {
        const at = pair.indexOf('=')
        return { name: pair.slice(0, at), value: pair.slice(at + 1), url: running.base }
      }),
    )
    const page = await context.newPage()
    const cdp = await context.newCDPSession(page)
    await cdp.send('Performance.enable')
    let peakHeap = 0
    const sampler = setInterval(() => {
      void cdp
        .send('Performance.getMetrics')
        .then(({ metrics }) => {
          const heap = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0
          peakHeap = Math.max(peakHeap, heap)
        })
        .catch(() => undefined)
    }, 100)
    let firstFeedAt = 0
    let feedCalls = 0
    page.on('request', (request) => {
      if (!request.url().includes('/api/sync/changes-mobile')) return
      feedCalls++
      firstFeedAt ||= performance.now()
    })
    const opened = performance.now()
    await page.goto('/dashboard')
    await page.locator('[data-sync-status="succeeded"]').waitFor({ state: 'attached', timeout: 600_000 })
    const done = performance.now()
    clearInterval(sampler)
    // A string, not a function: tsx keeps function names with a helper (__name) the page lacks.
    const held = (await page.evaluate(`(async () => {
      const found = (await indexedDB.databases()).find((d) => d.name && d.name.startsWith('site-portal-sync:'))
      const db = await new Promise((resolve, reject) => {
        const request = indexedDB.open(found ? found.name : '')
        request.onsuccess = () => resolve(request.result)
        request.onerror = () => reject(request.error)
      })
      const counts = {}
      for (const store of ['projects', 'reports', 'reportItems']) {
        counts[store] = await new Promise((resolve) => {
          const request = db.transaction(store).objectStore(store).count()
          request.onsuccess = () => resolve(request.result)
        })
      }
      db.close()
      return { counts, usage: (await navigator.storage.estimate()).usage || 0 }
    })()`)) as { counts: { projects: number; reports: number; reportItems: number }; usage: number }
    const entities = held.counts.projects + held.counts.reports + held.counts.reportItems
    console.log(`\n-- PGlite, ${ITEMS.toLocaleString('en')} items in the tenant; the phone's scope: ${entities.toLocaleString('en')} entities (${JSON.stringify(held.counts)})`)
    console.log(`   first pull into IndexedDB: ${((done - firstFeedAt) / 1000).toFixed(1)} s from the first feed request (${feedCalls} requests), ${((done - opened) / 1000).toFixed(1)} s from opening the page`)
    console.log(`   page JS heap at its peak: ${(peakHeap / MB).toFixed(1)} MB; browser storage used after: ${(held.usage / MB).toFixed(1)} MB`)
    console.log(`   server VmHWM after: ${(memory(running).hwm / MB).toFixed(0)} MB`)
  } finally {
    await browser.close()
    await running.stop()
  }
} finally {
  await rm(dataDir, { recursive: true, force: true })
}
