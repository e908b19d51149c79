// First paint on a slow phone link (docs/performance.md "First paint"): for eleven screens (issue 37's eight most used among them), first
// contentful paint with JavaScript on and off (Playwright + CDP throttling, Lighthouse's mobile
// "Slow 4G" and 4× CPU slowdown, cold cache; median of PAINT_RUNS runs, default 5), compressed JS
// bytes, script requests and layout shift; then Lighthouse 12 (mobile defaults) for performance and
// accessibility. Starts the built server (`npm run build` first; it builds nothing) on a free port
// with a temporary data folder, signs in as the seeded demo user over HTTP and passes the session
// cookie on. Prints a table and writes it into docs/performance.md.
// BENCH_SERVER=/path/build/node/index.js runs another server bundle. PAINT_ONLY=/dashboard,/items
// measures the screens whose path starts so, without Lighthouse unless PAINT_LIGHTHOUSE=1, and leaves
// the docs alone. LIGHTHOUSE_RUNS=n (default 1) runs Lighthouse n times a screen and keeps the run
// with the median performance score, as Lighthouse's own advice on variability has it.
// LIGHTHOUSE_SAVE=<dir> writes each run's report (JSON) there.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { launch as launchChrome } from 'chrome-launcher'
import lighthouse from 'lighthouse'
import { chromium, type Browser, type CDPSession } from 'playwright-core'
import { signInDemo, signInDemoAdmin, waitForHealth } from './demo-client'
import { bootstrapScripts } from './page-scripts'

const CHROMIUM = '/usr/bin/chromium'
const RUNS = Number(process.env.PAINT_RUNS ?? 5)
const ONLY = process.env.PAINT_ONLY?.split(',').filter(Boolean)
const WITH_LIGHTHOUSE = !ONLY || process.env.PAINT_LIGHTHOUSE === '1'
const LIGHTHOUSE_RUNS = Math.max(1, Number(process.env.LIGHTHOUSE_RUNS) || 1)
const LIGHTHOUSE_SAVE = process.env.LIGHTHOUSE_SAVE
// Lighthouse's mobile "Slow 4G" (150 ms RTT, 1.6 Mbps down, 750 Kbps up) as it applies it with
// DevTools throttling: request latency × 3.75 and throughput × 0.9; CPU 4× slower.
const SLOW_4G = { latency: 150 * 3.75, downloadBps: (1.6 * 1024 * 1024 * 0.9) / 8, uploadBps: (750 * 1024 * 0.9) / 8 }
const CPU_SLOWDOWN = 4
const ISLAND_WAIT_MS = 3500
const PHONE = { viewport: { width: 412, height: 823 }, deviceScaleFactor: 1.75, isMobile: true, hasTouch: true }

const rootDir = fileURLToPath(new URL('..', import.meta.url))
const serverFile = process.env.BENCH_SERVER ?? path.join(rootDir, 'build/node/index.js')
const docFile = path.join(rootDir, 'docs/performance.md')
const SECTION = '## First paint (`bench/paint.bench.ts`)'

if (!existsSync(serverFile)) {
  console.log(`skipped: no ${path.relative(rootDir, serverFile)} (run \`npm run build\` first)`)
  process.exit(0)
}

type Screen = { name: string; path: string; signedIn: boolean; admin?: boolean }
type Load = { fcpMs: number; hydratedMs: number; jsBytes: number; scripts: number; deferredBytes: number; deferredScripts: number; cls: number }
type Row = Screen & { on: Load[]; off: Load[]; performance: number; accessibility: number; lhFcpMs: number; lhTbtMs: number }

const port = await freePort()
const base = `http://127.0.0.1:${port}`
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-bench-paint-'))
const server = spawn('node', [serverFile], {
  cwd: path.resolve(path.dirname(serverFile), '../..'),
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'production', SEED: 'true' },
  stdio: 'inherit',
})

try {
  await waitForHealth(base)
  const cookies = [...(await signInDemo(base)).cookies].map(([name, value]) => ({ name, value }))
  // The Administration area's screens take the demo administrator's session (admin sign-in and its second factor).
  const adminCookies = [...(await signInDemoAdmin(base)).cookies].map(([name, value]) => ({ name, value }))
  const cookiesOf = (screen: Screen) => (screen.admin ? adminCookies : cookies)
  const itemId = await firstItemId(cookies)
  const allScreens: Screen[] = [
    { name: 'Sign-in', path: '/auth/login', signedIn: false },
    { name: 'Dashboard', path: '/dashboard', signedIn: true },
    { name: 'Projects', path: '/projects', signedIn: true },
    { name: 'Reports', path: '/reports', signedIn: true },
    { name: 'Items', path: '/items', signedIn: true },
    { name: 'Item', path: `/items/${itemId}`, signedIn: true },
    { name: 'Documents', path: await firstDocumentsPath(cookies), signedIn: true },
    { name: 'Review inbox', path: '/doc-control/inbox', signedIn: true },
    { name: 'Doc-control dashboard', path: (await firstDocumentsPath(cookies)).replace('/documents?', '/doc-control/dashboard?'), signedIn: true },
    { name: 'Admin control panel', path: '/admin/control-panel', signedIn: true, admin: true },
    { name: 'Admin users', path: '/admin/users', signedIn: true, admin: true },
  ]
  const screens = ONLY ? allScreens.filter((s) => ONLY.some((prefix) => s.path.startsWith(prefix))) : allScreens

  const browser = await chromium.launch({ executablePath: CHROMIUM })
  const rows: Row[] = []
  try {
    for (const screen of screens) {
      // A warm-up load so the server's first render of a route is not in the figures.
      await loadOnce(browser, screen, cookiesOf(screen), true)
      const on: Load[] = []
      const off: Load[] = []
      for (let i = 0; i < RUNS; i++) {
        on.push(await loadOnce(browser, screen, cookiesOf(screen), true))
        off.push(await loadOnce(browser, screen, cookiesOf(screen), false))
      }
      rows.push({ ...screen, on, off, performance: Number.NaN, accessibility: Number.NaN, lhFcpMs: Number.NaN, lhTbtMs: Number.NaN })
      const each = (loads: Load[]) => loads.map((l) => Math.round(l.fcpMs)).join(', ')
      console.log(`${screen.name}: FCP JS on ${ms(median(on.map((l) => l.fcpMs)))} (${each(on)} ms), off ${ms(median(off.map((l) => l.fcpMs)))} (${each(off)} ms); hydrated ${ms(median(on.map((l) => l.hydratedMs)))}`)
    }
  } finally {
    await browser.close()
  }

  if (WITH_LIGHTHOUSE) for (const row of rows) Object.assign(row, await medianLighthouse(row, cookiesOf(row)))

  const table = renderTable(rows)
  console.log(`\n${table}`)
  if (!ONLY) writeSection(table)
} finally {
  server.kill('SIGTERM')
  const exited = new Promise((resolve) => server.once('exit', resolve))
  const timeout = setTimeout(() => server.kill('SIGKILL'), 10_000)
  await exited
  clearTimeout(timeout)
  rmSync(dataDir, { recursive: true, force: true })
}

/** One cold load in a fresh context (empty cache), throttled like Lighthouse's mobile run. */
async function loadOnce(browser: Browser, screen: Screen, cookies: Cookie[], javaScriptEnabled: boolean): Promise<Load> {
  const context = await browser.newContext({ ...PHONE, javaScriptEnabled })
  try {
    if (screen.signedIn) await context.addCookies(cookies.map((c) => ({ ...c, url: base })))
    // Injected by the browser, not by the page: counts layout shifts from the first paint on.
    await context.addInitScript(() => {
      const w = window as unknown as { __cls: number }
      w.__cls = 0
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[]) {
          if (!entry.hadRecentInput) w.__cls += entry.value
        }
      }).observe({ type: 'layout-shift', buffered: true })
    })
    const page = await context.newPage()
    const cdp = await context.newCDPSession(page)
    await throttle(cdp)
    const network = watchNetwork(cdp)
    const painted = new Promise<number>((resolve) => {
      cdp.on('Page.lifecycleEvent', (event: { name: string; timestamp: number }) => {
        if (event.name === 'firstContentfulPaint') resolve(event.timestamp)
      })
    })
    await cdp.send('Page.enable')
    await cdp.send('Page.setLifecycleEventsEnabled', { enabled: true })
    const response = await page.goto(base + screen.path, { waitUntil: javaScriptEnabled ? 'networkidle' : 'load', timeout: 120_000 })
    const landed = new URL(page.url())
    if (!response || response.status() !== 200 || landed.pathname + landed.search !== screen.path) {
      throw new Error(`${screen.path}: ${response?.status()} at ${page.url()}`)
    }
    const fcp = await Promise.race([painted, new Promise<number>((resolve) => setTimeout(() => resolve(Number.NaN), 10_000))])
    // Islands wait for the browser to be idle (at most 3 s): give them the time to arrive and settle.
    if (javaScriptEnabled) {
      await page.waitForTimeout(ISLAND_WAIT_MS)
      await page.waitForLoadState('networkidle')
    }
    const cls = javaScriptEnabled ? await page.evaluate(() => (window as unknown as { __cls: number }).__cls) : 0
    // When the page's root hydrated (app/components/ui/deferred.tsx marks it), from navigation start.
    const hydratedMs = javaScriptEnabled ? await page.evaluate(() => performance.getEntriesByName('hydrated')[0]?.startTime ?? Number.NaN) : Number.NaN
    const navigationStart = network.documentStart()
    const toStart = bootstrapScripts(await response.text())
    return {
      fcpMs: (fcp - navigationStart) * 1000,
      hydratedMs,
      jsBytes: network.scriptBytes(toStart),
      scripts: network.scriptCount(toStart),
      deferredBytes: network.deferredBytes(toStart),
      deferredScripts: network.deferredCount(toStart),
      cls,
    }
  } finally {
    await context.close()
  }
}

async function throttle(cdp: CDPSession): Promise<void> {
  await cdp.send('Network.enable')
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true })
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: SLOW_4G.latency,
    downloadThroughput: SLOW_4G.downloadBps,
    uploadThroughput: SLOW_4G.uploadBps,
  })
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN })
}

/**
 * Script requests and their compressed bytes (Content-Length of the answer, else bytes on the
 * wire), split into what the screen needs to start (`bootstrapScripts`) and what it fetches later
 * on its own. Also when the document was requested.
 */
function watchNetwork(cdp: CDPSession) {
  const scripts = new Map<string, { path: string; bytes: number }>()
  const lengths = new Map<string, number>()
  let documentStart = Number.NaN
  cdp.on('Network.requestWillBeSent', (event: { requestId: string; type?: string; timestamp: number; request: { url: string } }) => {
    if (event.type === 'Document' && Number.isNaN(documentStart)) documentStart = event.timestamp
    if (event.type === 'Script') scripts.set(event.requestId, { path: new URL(event.request.url).pathname, bytes: 0 })
  })
  cdp.on('Network.responseReceived', (event: { requestId: string; type: string; response: { url: string; headers: Record<string, string> } }) => {
    if (event.type !== 'Script') return
    if (!scripts.has(event.requestId)) scripts.set(event.requestId, { path: new URL(event.response.url).pathname, bytes: 0 })
    const length = Number(event.response.headers['content-length'] ?? event.response.headers['Content-Length'])
    if (length > 0) lengths.set(event.requestId, length)
  })
  cdp.on('Network.loadingFinished', (event: { requestId: string; encodedDataLength: number }) => {
    const script = scripts.get(event.requestId)
    if (script) script.bytes = lengths.get(event.requestId) ?? event.encodedDataLength
  })
  const part = (toStart: Set<string>, later: boolean) => [...scripts.values()].filter((s) => toStart.has(s.path) !== later)
  return {
    scriptBytes: (toStart: Set<string>) => part(toStart, false).reduce((sum, s) => sum + s.bytes, 0),
    scriptCount: (toStart: Set<string>) => part(toStart, false).length,
    deferredBytes: (toStart: Set<string>) => part(toStart, true).reduce((sum, s) => sum + s.bytes, 0),
    deferredCount: (toStart: Set<string>) => part(toStart, true).length,
    documentStart: () => documentStart,
  }
}

type LighthouseFigures = { performance: number; accessibility: number; lhFcpMs: number; lhTbtMs: number }

/** LIGHTHOUSE_RUNS runs of one screen: the run with the median performance score, the lowest accessibility score. */
async function medianLighthouse(screen: Screen, cookies: Cookie[]): Promise<LighthouseFigures> {
  const runs: LighthouseFigures[] = []
  for (let i = 0; i < LIGHTHOUSE_RUNS; i++) runs.push(await runLighthouse(screen, cookies))
  if (runs.length > 1) console.log(`Lighthouse ${screen.path}: performance ${runs.map((r) => r.performance).join(', ')} over ${runs.length} runs`)
  const middle = [...runs].sort((a, b) => a.performance - b.performance)[Math.floor((runs.length - 1) / 2)]
  if (!middle) throw new Error(`Lighthouse did not run for ${screen.path}`)
  return { ...middle, accessibility: Math.min(...runs.map((r) => r.accessibility)) }
}

async function runLighthouse(screen: Screen, cookies: Cookie[], attempt = 1): Promise<LighthouseFigures> {
  const chrome = await launchChrome({ chromePath: CHROMIUM, chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu'] })
  try {
    const extraHeaders = screen.signedIn ? { cookie: cookies.map((c) => `${c.name}=${c.value}`).join('; ') } : undefined
    const result = await lighthouse(base + screen.path, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance', 'accessibility'],
      ...(extraHeaders && { extraHeaders }),
    })
    const lhr = result?.lhr
    if (!lhr) throw new Error(`Lighthouse gave no result for ${screen.path}`)
    const ended = new URL(lhr.finalDisplayedUrl)
    if (ended.pathname + ended.search !== screen.path) throw new Error(`Lighthouse ended on ${lhr.finalDisplayedUrl}, not ${screen.path}`)
    // A run whose trace Lighthouse could not read scores performance null (NaN here): run it once more.
    if ((lhr.categories.performance?.score ?? null) === null && attempt === 1) {
      console.log(`Lighthouse ${screen.path}: no performance score (${lhr.runtimeError?.code ?? lhr.runWarnings.join('; ')}), once more`)
      return runLighthouse(screen, cookies, 2)
    }
    if (LIGHTHOUSE_SAVE) {
      mkdirSync(LIGHTHOUSE_SAVE, { recursive: true })
      const slug = screen.path.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '')
      writeFileSync(path.join(LIGHTHOUSE_SAVE, `${slug}-${Date.now()}.json`), JSON.stringify(lhr))
    }
    const score = (id: string) => Math.round((lhr.categories[id]?.score ?? Number.NaN) * 100)
    const fcp = lhr.audits['first-contentful-paint']?.numericValue ?? Number.NaN
    const tbt = lhr.audits['total-blocking-time']?.numericValue ?? Number.NaN
    console.log(`Lighthouse ${screen.path}: performance ${score('performance')}, accessibility ${score('accessibility')}`)
    return { performance: score('performance'), accessibility: score('accessibility'), lhFcpMs: fcp, lhTbtMs: tbt }
  } finally {
    await chrome.kill()
  }
}

function renderTable(rows: Row[]): string {
  const head = [
    '| Screen | FCP, JS on | FCP, JS off | Hydrated, JS on | JS to start (compressed, requests) | JS fetched later | CLS | Lighthouse performance | Lighthouse accessibility | Lighthouse FCP / TBT |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ]
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`
  const lines = rows.map((r) => {
    const on = median(r.on.map((l) => l.fcpMs))
    const off = median(r.off.map((l) => l.fcpMs))
    const start = `${kib(median(r.on.map((l) => l.jsBytes)))}, ${Math.max(...r.on.map((l) => l.scripts))}`
    const deferredCount = Math.max(...r.on.map((l) => l.deferredScripts))
    const later = deferredCount === 0 ? '–' : `${kib(median(r.on.map((l) => l.deferredBytes)))}, ${deferredCount}`
    const cls = Math.max(...r.on.map((l) => l.cls))
    const screen = r.path.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
    const hydrated = median(r.on.map((l) => l.hydratedMs))
    return `| \`${screen}\` | ${ms(on)} | ${ms(off)} | ${ms(hydrated)} | ${start} | ${later} | ${cls.toFixed(3)} | ${r.performance} | ${r.accessibility} | ${ms(r.lhFcpMs)} / ${Math.round(r.lhTbtMs)} ms |`
  })
  return [...head, ...lines].join('\n')
}

/** Replaces the section's figures (from its table to the next heading) or appends the section. */
function writeSection(table: string): void {
  const doc = readFileSync(docFile, 'utf8')
  const stamp = `Last run ${new Date().toISOString().slice(0, 10)}, ${RUNS} runs per screen and mode (medians; CLS and script requests the worst run), ${os.cpus().length} CPUs, load average ${os.loadavg()[0]?.toFixed(1)} at the end:`
  const figures = `<!-- paint.bench.ts figures: start -->\n${stamp}\n\n${table}\n<!-- paint.bench.ts figures: end -->`
  const start = doc.indexOf('<!-- paint.bench.ts figures: start -->')
  const end = doc.indexOf('<!-- paint.bench.ts figures: end -->')
  let next: string
  if (start >= 0 && end > start) {
    next = doc.slice(0, start) + figures + doc.slice(end + '<!-- paint.bench.ts figures: end -->'.length)
  } else if (doc.includes(SECTION)) {
    next = doc.replace(SECTION, `${SECTION}\n\n${figures}`)
  } else {
    next = `${doc.trimEnd()}\n\n${SECTION}\n\n${figures}\n`
  }
  writeFileSync(docFile, next)
  console.log(`\nwritten to ${path.relative(rootDir, docFile)}`)
}

type Cookie = { name: string; value: string }


async function firstItemId(cookies: Cookie[]): Promise<string> {
  const cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ')
  const res = await fetch(`${base}/api/items/outstanding?limit=1`, { headers: { cookie, accept: 'application/json' } })
  if (!res.ok) throw new Error(`outstanding items: ${res.status} ${await res.text()}`)
  const id = ((await res.json()) as { items: { id: string }[] }).items[0]?.id
  if (!id) throw new Error('no seeded outstanding item')
  return id
}

/** The seeded project's documents: its folders, list and upload form (issue 11). */
async function firstDocumentsPath(cookies: Cookie[]): Promise<string> {
  const cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ')
  const res = await fetch(`${base}/api/documents/search?pageSize=1`, { headers: { cookie, accept: 'application/json' } })
  if (!res.ok) throw new Error(`document search: ${res.status} ${await res.text()}`)
  const projectId = ((await res.json()) as { items: { projectId: string }[] }).items[0]?.projectId
  if (!projectId) throw new Error('no seeded document')
  return `/documents?projectId=${projectId}`
}

function median(values: number[]): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b)
  if (sorted.length === 0) return Number.NaN
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}

function ms(value: number): string {
  return Number.isNaN(value) ? 'n/a' : `${(value / 1000).toFixed(2)} s`
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      const found = typeof address === 'object' && address ? address.port : 0
      probe.close(() => resolve(found))
    })
  })
}

