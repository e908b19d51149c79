import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { AxeResults } from 'axe-core'
import { simpleParser } from 'mailparser'
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core'
import { inject, onTestFailed, onTestFinished } from 'vitest'
import { PASSWORD_HASH_COST } from '#server/domain/auth/passwords'

/**
 * Debian's headless build of Chromium when it is installed (scripts/ensure-chromium.mjs installs
 * it as root), else Debian's Chromium itself: the same browser engine, without a browser window to
 * draw, so a journey costs the machine about half the browser's CPU time
 * (docs/decisions/018-e2e-on-the-headless-shell.md).
 */
export const CHROMIUM_PATH = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((binary) => existsSync(binary)) ?? '/usr/bin/chromium'
const rootDir = fileURLToPath(new URL('../..', import.meta.url))
const serverEntry = path.join(rootDir, 'build/node/index.js')
/**
 * How many browser files share the machine (vitest.config.ts runs E2E_WORKERS at once and sets it
 * for the workers: two on two cores): on two cores each runs up to that many times slower than alone.
 */
export const FILES_AT_ONCE = Number(process.env.E2E_WORKERS) || 1

/**
 * A bound for a machine that is stuck, not an expectation (nothing asserts on how long things
 * take), scaled by how many files share the machine.
 */
export function bound(ms: number): number {
  return ms * FILES_AT_ONCE
}

const START_LIMIT_MS = bound(60_000)
const STOP_LIMIT_MS = 20_000

// ---- The portal: the built server as its users run it ----

export type Portal = {
  baseUrl: string
  /** Its DATA_DIR. */
  dataDir: string
  /** The newest mail to this address, as the server delivered it (MAIL_FILE_DIR); waits for it. */
  mailTo(address: string, options?: { after?: number }): Promise<{ subject: string; text: string; deliveredAt: number }>
  /** What the server printed (LOG_LEVEL=warn), for failure messages. */
  output(): string
  /**
   * SIGTERM, wait for a clean exit, then start again on the same port and data folder, as a deploy
   * does; resolves once /api/health answers. Sessions and data survive it.
   */
  restart(): Promise<void>
  /** SIGTERM, wait for a clean exit, remove the data folder. Throws if the shutdown was not clean. */
  stop(): Promise<void>
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** A seeded data folder the first portal of the run made (global-setup.ts); '' when there is none. */
    e2eDataTemplate: string
    /** The run's folder for portals' data folders and pid files (global-setup.ts); '' when there is none. */
    e2ePortalsDir: string
    /** A folder shared by the run's files where checkAccessibility marks the screen states it checked (global-setup.ts); '' when there is none. */
    e2eAxeDir: string
  }
}

export type StartOptions = {
  env?: Record<string, string>
  /**
   * Initialise an empty data folder (initdb, migrations, seed: ~10 s) instead of copying the run's
   * seeded one (~1 s). The copy is what the first start made, so only a test of the first start
   * itself needs this.
   */
  fresh?: boolean
  /** Leave the data folder behind on stop (global-setup.ts keeps it as the run's template). */
  keepData?: boolean
}

/**
 * Starts `node build/node/index.js` (built by `npm run test:e2e`) on a free port with its own data
 * folder holding the demo seed, and resolves once /api/health answers.
 */
export async function startPortal(options: StartOptions = {}): Promise<Portal> {
  if (!existsSync(serverEntry)) throw new Error(`${serverEntry} is missing: run \`npm run build\` first (npm run test:e2e does).`)
  const runDir = portalsDir()
  const plain = !options.env && !options.fresh && !options.keepData && runDir !== ''
  if (!plain) return launchPortal(options)
  const taken = spare
  spare = undefined
  const portal = (taken && (await taken.catch(() => undefined))) || (await launchPortal(options))
  // The next file's portal starts now, while this file's journeys run: a start is mostly one core
  // of work, and a journey leaves the second core idle about a third of the time. The worker's
  // files share this module (isolate: false), so the next file takes it; the run's teardown stops
  // the one no file took (global-setup.ts, by the pid file in the run's folder).
  spare = launchPortal({})
  // A spare that fails to start is started again by the file that wanted it (above).
  spare.catch(() => undefined)
  return portal
}

/**
 * A copy of the seeded data folder (about 1,500 files, 45 MB) by the system's `cp`: fs.cp checks
 * each file in JavaScript first and cost about 2.9 CPU-s a copy against 1.75 for `cp -a`
 * (2026-11-30, four of each in turn; the rest is the kernel's work either way), once per portal.
 */
async function copyDataFolder(from: string, to: string): Promise<void> {
  await promisify(execFile)('cp', ['-a', `${from}/.`, to])
}

/** The plain portal started for the next file, while this one runs. */
let spare: Promise<Portal> | undefined

/** The run's folder for the portals' data folders and pid files (global-setup.ts); '' outside a run. */
function portalsDir(): string {
  try {
    return inject('e2ePortalsDir')
  } catch {
    return ''
  }
}

async function launchPortal(options: StartOptions): Promise<Portal> {
  const started = performance.now()
  const dataDir = await mkdtemp(path.join(portalsDir() || os.tmpdir(), 'sp-e2e-'))
  const template = options.fresh ? '' : dataTemplate()
  if (template) await copyDataFolder(template, dataDir)
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  // Only what the server needs: nothing of the test runner's environment (NODE_ENV=test,
  // DATABASE_URL, …) leaks in.
  const env = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    MAIL_FILE_DIR: path.join(dataDir, 'mail'),
    PUBLIC_URL: baseUrl,
    SEED: 'true',
    LOG_LEVEL: 'warn',
    // The lowest password hash cost: the journeys sign in hundreds of times (server/domain/auth/passwords.ts).
    PASSWORD_HASH_COST: String(PASSWORD_HASH_COST.min),
    // A stop finishes well inside the harness's own limit (STOP_LIMIT_MS) before it kills the server.
    SHUTDOWN_DEADLINE_SECONDS: '10',
    ...options.env,
  }
  let output = ''
  let server = spawnServer(env, (chunk) => {
    output = (output + chunk).slice(-64_000)
  })
  await writePidFile(dataDir, server.child)

  let stopped: Promise<void> | undefined
  const stopServer = async () => {
    const code = await terminate(server.child, server.exited)
    if (code !== 0) throw new Error(`The portal did not shut down cleanly (exit code ${code}). Its output:\n${output}`)
  }
  const portal: Portal = {
    baseUrl,
    dataDir,
    mailTo: (address, options) => waitForMail(path.join(dataDir, 'mail'), address, options?.after ?? 0),
    output: () => output,
    async restart() {
      if (stopped) throw new Error('The portal is stopped')
      await stopServer()
      server.release()
      server = spawnServer(env, (chunk) => {
        output = (output + chunk).slice(-64_000)
      })
      await writePidFile(dataDir, server.child)
      await waitForHealth(baseUrl, server.child, () => output)
    },
    stop() {
      stopped ??= (async () => {
        try {
          await stopServer()
        } finally {
          server.release()
          await rm(`${dataDir}.pid`, { force: true })
          if (!options.keepData) await rm(dataDir, { recursive: true, force: true })
        }
      })()
      return stopped
    },
  }

  try {
    await waitForHealth(baseUrl, server.child, () => output)
  } catch (error) {
    await portal.stop().catch(() => undefined)
    throw error
  }
  console.info(`[e2e] portal started in ${Math.round(performance.now() - started)} ms at ${baseUrl}${template ? ' (seeded data folder copied)' : ''}`)
  return portal
}

/**
 * Where the run's teardown finds the server to stop if no file stopped it (a spare no file took,
 * or a worker that ended early): `<data folder>.pid`, in the run's folder.
 */
async function writePidFile(dataDir: string, child: ChildProcess): Promise<void> {
  if (portalsDir() && child.pid) await writeFile(`${dataDir}.pid`, String(child.pid))
}

/** The folder a portal's data is copied from, when this run made one; outside a test (global set-up) none. */
function dataTemplate(): string {
  try {
    return inject('e2eDataTemplate')
  } catch {
    return ''
  }
}

/**
 * V8 flags of the journeys' portals. A portal serves one file (a few journeys, a minute or two):
 * too short a life for optimised code to pay back its compiling. Without it (--no-opt: the
 * interpreter and the baseline compiler only) a file's portal used about 11 % less CPU
 * (reporting-items.test.ts, 14.4–14.8 CPU-s against 16.3–16.6, 2026-11-30), and the browser suite is
 * CPU-bound on two cores. The same holds for PGlite's WebAssembly: V8 compiles its functions with
 * Liftoff, then again with TurboFan once they are hot, and a portal's start alone made enough of
 * them hot to cost a second of CPU in the background (from a copied data folder: 1.9 CPU-s to the
 * first health answer with --liftoff-only, 2.9 without); over a whole file (reporting-items, two
 * runs each, alternately) the run used 62–66 CPU-s against 68–71. Same code, same answers: only how
 * V8 runs it. `npm start` and the other suites keep V8's defaults, which suit a server that lives.
 * E2E_PORTAL_NODE_FLAGS replaces them.
 */
const PORTAL_NODE_FLAGS = (process.env.E2E_PORTAL_NODE_FLAGS ?? '--no-opt --liftoff-only').split(' ').filter(Boolean)

/** One run of the server process; `release` forgets it once it has exited. */
function spawnServer(env: Record<string, string | undefined>, keep: (chunk: string) => void) {
  const child = spawn(process.execPath, [...PORTAL_NODE_FLAGS, serverEntry], { cwd: rootDir, env, stdio: ['ignore', 'pipe', 'pipe'] })
  child.stdout?.on('data', (chunk: Buffer) => keep(chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => keep(chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  // A crashed or interrupted test run must not leave a server behind.
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)
  return { child, exited, release: () => process.off('exit', killOnExit) }
}

/** Parsed mail files by path: a file is complete once renamed into place (server/mail/transports.ts) and never changes. */
const parsedMail = new Map<string, { to: string[]; subject: string; text: string; deliveredAt: number }>()

async function readMail(full: string) {
  const known = parsedMail.get(full)
  if (known) return known
  const [raw, info] = await Promise.all([readFile(full), stat(full)])
  const parsed = await simpleParser(raw)
  const to = (Array.isArray(parsed.to) ? parsed.to : parsed.to ? [parsed.to] : []).flatMap((list) => list.value.map((a) => (a.address ?? '').toLowerCase()))
  const mail = { to, subject: parsed.subject ?? '', text: parsed.text ?? '', deliveredAt: info.mtimeMs }
  parsedMail.set(full, mail)
  return mail
}

/** The newest mail to the address in the MIME files the server wrote (MAIL_FILE_DIR), read with mailparser. */
async function waitForMail(dir: string, address: string, after: number) {
  const deadline = Date.now() + 15_000
  const wanted = address.toLowerCase()
  while (Date.now() < deadline) {
    const files = existsSync(dir) ? (await readdir(dir)).filter((f) => f.endsWith('.eml')) : []
    const mails = await Promise.all(files.map((file) => readMail(path.join(dir, file))))
    const newest = mails.filter((m) => m.to.includes(wanted) && m.deliveredAt > after).sort((a, b) => b.deliveredAt - a.deliveredAt)[0]
    if (newest) return { subject: newest.subject, text: newest.text, deliveredAt: newest.deliveredAt }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`No mail to ${address} arrived in ${dir}`)
}

async function waitForHealth(baseUrl: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + START_LIMIT_MS
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`The portal exited during start (${child.exitCode ?? child.signalCode}). Its output:\n${output()}`)
    }
    try {
      const response = await fetch(`${baseUrl}/api/health`, { signal: AbortSignal.timeout(5_000) })
      if (response.ok && ((await response.json()) as { database?: string }).database === 'reachable') return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`The portal did not answer /api/health within ${START_LIMIT_MS / 1000} s. Its output:\n${output()}`)
}

async function terminate(child: ChildProcess, exited: Promise<number | null>): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_LIMIT_MS)
  try {
    return await exited
  } finally {
    clearTimeout(timer)
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

// ---- The browser: Debian's Chromium through playwright-core ----

/**
 * The worker's browser: one Chromium for all the files a worker runs (they run one after another,
 * isolate: false). A file's journeys are isolated by their contexts, as before; a launch with its
 * processes (browser, GPU, network service, zygotes) cost the machine about 0.45 CPU-s, once per
 * file. Playwright stops the browser when the worker's process exits.
 */
let workerBrowser: Promise<Browser> | undefined

async function sharedBrowser(): Promise<Browser> {
  // A browser that failed to start or has gone (a crash) is launched again.
  const launched = await workerBrowser?.catch(() => undefined)
  if (launched?.isConnected()) return launched
  workerBrowser = chromium.launch({
    executablePath: CHROMIUM_PATH,
    // launch() already uses a fresh temporary profile; --user-data-dir would be refused.
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
  return workerBrowser
}

/**
 * The browser for one file: the worker's (above), whose `close()` closes what the file opened in
 * it (every context, the accessibility inspectors with them) and leaves the browser running for the
 * worker's next file. The files of a worker never overlap, so every context open at a file's end is
 * that file's.
 */
export async function launchBrowser(): Promise<Browser> {
  const browser = await sharedBrowser()
  const closeFilesContexts = async () => {
    inspectors.delete(browser)
    await Promise.all(browser.contexts().map((context) => context.close().catch(() => undefined)))
  }
  return new Proxy(browser, {
    get(target, property) {
      if (property === 'close') return closeFilesContexts
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

/** `small-phone`: 360 × 740, the narrowest phone the portal is laid out for (the screen walk uses it). */
export type Viewport = 'desktop' | 'phone' | 'small-phone'

export type JourneyOptions = {
  javaScript: boolean
  viewport?: Viewport
  /** The portal's address: lets `page.goto('/')` work and defines "same origin" for failed requests. */
  baseUrl?: string
  /** Console messages or failures a test expects (an error page on purpose, say). */
  ignore?: RegExp[]
  /** Cookies to start with: a session signed in by another context of the same test. */
  storageState?: BrowserContextOptions['storageState']
}

export type Journey = {
  context: BrowserContext
  page: Page
  /** Everything recorded so far: console errors, page errors, failed same-origin requests. */
  problems: string[]
  assertNoConsoleErrors(): void
  close(): Promise<void>
}

const viewports = {
  desktop: { viewport: { width: 1280, height: 800 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
  'small-phone': { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true },
} satisfies Record<Viewport, BrowserContextOptions>

/** Per context, what checkAccessibility needs to know about it. */
const journeys = new WeakMap<BrowserContext, { javaScript: boolean; contextOptions: BrowserContextOptions }>()

export async function newJourneyContext(browser: Browser, options: JourneyOptions): Promise<Journey> {
  const contextOptions: BrowserContextOptions = {
    ...viewports[options.viewport ?? 'desktop'],
    javaScriptEnabled: options.javaScript,
    locale: 'en-GB',
    timezoneId: 'UTC',
    ...(options.baseUrl && { baseURL: options.baseUrl }),
    ...(options.storageState && { storageState: options.storageState }),
  }
  const context = await browser.newContext(contextOptions)
  journeys.set(context, { javaScript: options.javaScript, contextOptions })
  const page = await context.newPage()
  const problems: string[] = []
  const record = (problem: string) => {
    if (!options.ignore?.some((pattern) => pattern.test(problem))) problems.push(problem)
  }
  const origin = () => originOf(options.baseUrl ?? page.url())
  const sameOrigin = (url: string) => originOf(url) === origin()

  context.on('console', (message) => {
    if (message.type() !== 'error') return
    // Chromium logs every 4xx answer as a console error. A form that fails validation answers 400,
    // a wrong password 401: the journeys assert those screens; faults are 5xx (below) or missing assets.
    if (/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) return
    const { url, lineNumber } = message.location()
    record(`console error: ${message.text()}${url ? ` (${url}:${lineNumber})` : ''}`)
  })
  context.on('weberror', (webError) => record(`page error: ${webError.error().stack ?? webError.error().message}`))
  context.on('requestfailed', (request) => {
    const failure = request.failure()?.errorText ?? 'failed'
    // A navigation cancels the requests still running on the page it leaves: that is not a fault.
    if (failure === 'net::ERR_ABORTED' || !sameOrigin(request.url())) return
    // Without JavaScript, Chromium refuses the page's script requests and reports 'csp'.
    if (!options.javaScript && request.resourceType() === 'script') return
    record(`request failed: ${request.method()} ${request.url()}: ${failure}`)
  })
  context.on('response', (response) => {
    if (response.status() >= 500 && sameOrigin(response.url())) {
      record(`server error: ${response.request().method()} ${response.url()} answered ${response.status()}`)
    }
    const type = response.request().resourceType()
    if (response.status() === 404 && sameOrigin(response.url()) && ['stylesheet', 'script', 'image', 'font'].includes(type)) {
      record(`missing ${type}: ${response.url()}`)
    }
  })

  // What the page showed when the journey ended, printed if its test fails: a journey that timed out
  // waiting for a text says only what it waited for, and a failure seen once in CI needs more.
  let lastSeen: string | undefined
  const journey: Journey = {
    context,
    page,
    problems,
    assertNoConsoleErrors() {
      if (problems.length > 0) throw new Error(`The browser reported ${problems.length} problem(s):\n${problems.join('\n')}`)
    },
    close: async () => {
      lastSeen ??= await whatThePageShows(page)
      await context.close()
    },
  }
  try {
    onTestFailed(async ({ task }) => {
      const seen = lastSeen ?? (await whatThePageShows(page))
      const variant = `${options.javaScript ? 'JS on' : 'JS off'}, ${options.viewport ?? 'desktop'}`
      const report = `A journey of this test (${variant}) ended on ${seen}\nIts problems: ${problems.join('\n') || 'none'}`
      // Into the failure's own message, which the run's summary at the end prints (the log's tail is what CI keeps).
      const [error] = task.result?.errors ?? []
      if (error) error.message = `${error.message}\n\n${report}`
      else console.error(report)
    })
  } catch {
    // Made outside a test (in beforeAll): the file's afterAll checks it.
  }
  watchForProblems(journey)
  return journey
}

/** The page's address and the start of its visible text, for a failed test's message. */
async function whatThePageShows(page: Page): Promise<string> {
  if (page.isClosed()) return '(a closed page)'
  const text = await page
    .locator('body')
    .innerText({ timeout: 2_000 })
    .catch((error: unknown) => `(its text could not be read: ${error instanceof Error ? error.message.split('\n')[0] : String(error)})`)
  // One line, lines of the page parted by " | ": the log's tail stays short.
  return `${page.url()}: ${text.split(/\n+/).map((line) => line.trim()).filter(Boolean).join(' | ').slice(0, 1_500)}`
}

/** Journeys made outside a test (in beforeAll): the file's afterAll checks them. */
const journeysOfTheFile: Journey[] = []

/**
 * Every journey fails on an unexpected console error, page error, failed same-origin request or
 * 5xx answer, whether or not the test asks: when the test that made the context finishes (unless it
 * failed already: its own error says more), or, for a context made in beforeAll, when the file
 * ends. A journey that expects a problem names it in `ignore`.
 */
function watchForProblems(journey: Journey) {
  try {
    onTestFinished(({ task }) => {
      if (task.result?.state !== 'fail') journey.assertNoConsoleErrors()
    })
  } catch {
    journeysOfTheFile.push(journey)
  }
}

/**
 * What the harness does when a test file ends (tests/e2e/file-hooks.ts registers it as every
 * file's afterAll: the files of a worker share this module, so a hook registered here at import
 * would run for the first file only): the journeys made outside a test are checked, and the file's
 * accessibility checks counted.
 */
export function fileEnded(): void {
  const journeys = journeysOfTheFile.splice(0)
  const { checks, skipped, ms } = axeTime
  Object.assign(axeTime, { checks: 0, skipped: 0, ms: 0 })
  if (checks + skipped > 0) {
    console.info(`[e2e] accessibility: ${checks} check(s) in ${(ms / 1000).toFixed(1)} s, ${skipped} screen state(s) checked before`)
  }
  for (const journey of journeys) journey.assertNoConsoleErrors()
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin
  } catch {
    return undefined
  }
}

// ---- Accessibility: axe-core ----

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

type Violation = { id: string; impact: string | null; help: string; helpUrl: string; targets: string[] }

/**
 * Runs axe-core on the page as the user sees it and throws listing every serious or critical
 * violation of what is new in it (claimNewParts, below).
 *
 * The page's DOM as it is now (page.content(): with JavaScript, as the app has drawn it; without,
 * as parsed without script) is checked in a separate JS-enabled page with the same viewport and
 * cookies (one per browser and kind of screen, kept: the inspector below), on the same portal, so
 * the same stylesheets and images load. axe stays loaded there across snapshots: loading it into
 * each new document of a journey (654 KB through the DevTools pipe, then compiled) had been about
 * half of a check. Without JavaScript, axe could not run in the page anyway (timers never fire
 * there, so axe.run never settles). The snapshot's scripts are left out, so the app cannot hydrate
 * it. Its <noscript> elements are dropped when the page has JavaScript and renamed to an inert
 * custom element when it has not, because the inspector runs script and would otherwise not show
 * what a user without JavaScript sees. The elements new to the run are marked, and axe judges
 * those with everything inside them. Limits: live form values typed in the page are not in the
 * snapshot; the app uses no top layer (showModal, popovers), which a snapshot would not keep.
 * E2E_AXE_EVERY=1 checks every state whole.
 */
export async function checkAccessibility(page: Page): Promise<void> {
  // The whole page: an element a journey waited for can show while the rest is still arriving
  // (without JavaScript a form post's answer streams in), and a snapshot of half a page is cut
  // mid-element (a <summary> whose words had not arrived yet failed "summary-name").
  await page.waitForLoadState('load')
  const journey = journeys.get(page.context())
  // The page's markup, read once: what decides whether the state is new, and the snapshot.
  const html = await page.content()
  let violations: Violation[]
  let started: number
  if (!journey) {
    // A page no journey made (no viewport to match an inspector to): checked in place, whole.
    started = performance.now()
    violations = await runAxe(page, false)
  } else {
    const scope = scopeOf(html, journey)
    const every = process.env.E2E_AXE_EVERY === '1'
    const parts = every ? undefined : await claimNewParts(html, scope)
    if (parts && parts.size === 0) {
      axeTime.skipped += 1
      return
    }
    started = performance.now()
    const marked = parts ? markNewElements(html, scope, parts) : html
    violations = await axeOnSnapshot(page, marked, journey, !every)
  }
  axeTime.checks += 1
  axeTime.ms += performance.now() - started
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  if (serious.length === 0) return
  const lines = serious.map((v) => `- [${v.impact}] ${v.id}: ${v.help} (${v.helpUrl})\n    ${v.targets.join('\n    ')}`)
  throw new Error(`axe found ${serious.length} serious or critical violation(s) on ${page.url()}:\n${lines.join('\n')}`)
}

/** What this file's accessibility checks cost, printed when the file ends (afterAll in vitest's setup is per file). */
const axeTime = { checks: 0, skipped: 0, ms: 0 }

/** The attribute that marks the elements a check judges in the inspector's snapshot. */
const NEW_MARK = 'data-e2e-axe-new'

/**
 * The root of every chain of a page's parts: the viewport, and with or without JavaScript only
 * where the page has <noscript> content (shown only without); otherwise the server's markup and
 * the hydrated page are one state.
 */
function scopeOf(html: string, journey: { javaScript: boolean; contextOptions: BrowserContextOptions }): string {
  const viewport = journey.contextOptions.viewport
  const mode = /<noscript\b/i.test(html) ? `js-${journey.javaScript}` : 'either'
  return `${mode}|${viewport ? `${viewport.width}x${viewport.height}` : 'default'}`
}

/**
 * The parts of this screen state that no check of this run has judged, now taken by this one
 * (none: the state was checked before). axe judges an element by what it is (tag, roles, classes,
 * styles, types, whether it has text and accessible-name attributes) and by what holds it (colours
 * come from ancestors, a list item needs its list, a button must not sit in a link), so an element
 * whose kind, with the whole chain of its ancestors' kinds, was part of a state checked before
 * gives axe nothing new. Journeys open the same screens again and again (every expectScreen
 * checks); a state is checked only when something in it is new: a new kind of element, or a known
 * one in a new place, and then only what is new (markNewElements). The words, values and counts
 * do not count (a list of three rows and one of thirty are the same parts). In the browser suite
 * of 2026-11-30 this checked 443 of 1,253 states, where one check per whole-page shape had
 * checked 854.
 *
 * Limit: what axe finds between elements that are not ancestor and descendant is judged on the
 * first state where each was new: two equal ids, a label whose `for` names an input elsewhere, an
 * aria reference to an element that a later state leaves out; so are the rules about the page as a
 * whole (its language, its title), judged where its root was new.
 *
 * The parts judged are files in a folder the run's files share (global-setup.ts), created
 * exclusively: two files at once never both take the same part, and a part is judged by the file
 * that saw it first.
 */
async function claimNewParts(html: string, scope: string): Promise<Set<string>> {
  const dir = axeDir()
  const taken = new Set<string>()
  for (const part of partsOf(html, scope)) {
    if (judgedParts.has(part)) continue
    judgedParts.add(part)
    if (!dir) {
      taken.add(part)
      continue
    }
    try {
      await writeFile(path.join(dir, part), '', { flag: 'wx' })
      taken.add(part)
    } catch {
      // Another file of the run took it first: its check judges it.
    }
  }
  return taken
}

/** The parts this worker knows were judged (its own and, once met, other files'). */
const judgedParts = new Set<string>()

function axeDir(): string {
  try {
    return inject('e2eAxeDir')
  } catch {
    return ''
  }
}

/**
 * Walks the page's markup as axe judges it: each element, with the chain of its ancestors, without
 * words, values or counts. A kind is the tag with the attributes axe reads (and whether text and
 * accessible-name attributes are there; a <style> is known by its whole text, a <script> by
 * nothing); an element's part is its kind with the kinds of all its ancestors, and "has text" under
 * such a chain is a part too. `visit` gets each part, one hash each, with where in `html` the
 * element it belongs to (a text's: its parent) could take one more attribute (-1: the document
 * itself). `scope` is the root of every chain, so parts of other scopes never match.
 */
function walkParts(html: string, scope: string, visit: (part: string, markAt: number) => void): void {
  const kept = new Set(['class', 'role', 'type', 'style', 'hidden', 'disabled', 'open', 'tabindex', 'lang', 'dir', 'scope', 'colspan', 'rowspan', 'multiple', 'required', 'readonly', 'inert'])
  // Each open element: its name, the hash of its chain (its kind and every ancestor's), and where
  // an attribute would go in its start tag.
  const stack: Array<{ name: string; chain: string; markAt: number }> = [{ name: '#document', chain: scope, markAt: -1 }]
  const chainOf = (parentChain: string, kind: string) => createHash('sha1').update(parentChain).update('>').update(kind).digest('hex')
  const token = /<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>|<(\/?)([a-zA-Z][\w-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>|([^<]+)/gi
  for (const match of html.matchAll(token)) {
    const parent = stack[stack.length - 1]!
    const at = match.index
    const [whole, leaf, closing, rawName = '', attributes = '', text] = match
    if (leaf) {
      const kind = leaf.toLowerCase() === 'style' ? `<style ${createHash('sha1').update(whole).digest('hex')}>` : '<script>'
      visit(chainOf(parent.chain, kind), at + 1 + leaf.length)
      continue
    }
    if (text !== undefined) {
      if (text.trim()) visit(chainOf(parent.chain, '#t'), parent.markAt)
      continue
    }
    const name = rawName.toLowerCase()
    if (closing) {
      const open = stack.findLastIndex((element) => element.name === name)
      if (open > 0) stack.length = open
      continue
    }
    const attrs: string[] = []
    for (const attribute of attributes.matchAll(/([^\s=/]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?/g)) {
      const attrName = (attribute[1] ?? '').toLowerCase()
      const value = (attribute[2] ?? '').replace(/^["']|["']$/g, '')
      if (kept.has(attrName)) attrs.push(`${attrName}=${value}`)
      else if (attrName.startsWith('aria-') || ['alt', 'title', 'for', 'id', 'href', 'name', 'value', 'placeholder', 'src', 'label'].includes(attrName)) attrs.push(`${attrName}${value.trim() ? '+' : '-'}`)
    }
    const chain = chainOf(parent.chain, `<${name} ${attrs.sort().join(' ')}>`)
    const markAt = at + 1 + rawName.length
    visit(chain, markAt)
    if (!VOID_ELEMENTS.has(name) && !attributes.trimEnd().endsWith('/')) stack.push({ name, chain, markAt })
  }
}

function partsOf(html: string, scope: string): Set<string> {
  const parts = new Set<string>()
  walkParts(html, scope, (part) => parts.add(part))
  return parts
}

/** `html` with NEW_MARK on each element that one of `parts` belongs to (a new kind, or new text in it). */
function markNewElements(html: string, scope: string, parts: Set<string>): string {
  const marks = new Set<number>()
  walkParts(html, scope, (part, markAt) => {
    if (markAt >= 0 && parts.has(part)) marks.add(markAt)
  })
  let marked = ''
  let from = 0
  for (const at of [...marks].sort((a, b) => a - b)) {
    marked += `${html.slice(from, at)} ${NEW_MARK}`
    from = at
  }
  return marked + html.slice(from)
}

const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr'])

/**
 * Runs axe in the page: evaluated through the DevTools protocol, which the page's
 * Content-Security-Policy (the portal's: no script but its own) does not govern. Once per document:
 * the inspector's page keeps it across the snapshots it is shown. `onlyMarked`: on the elements
 * marked new, with everything inside them; otherwise on the whole document.
 */
async function runAxe(page: Page, onlyMarked: boolean): Promise<Violation[]> {
  if (await page.evaluate(() => !('axe' in window))) await page.evaluate(axeSource)
  return page.evaluate(async ({ onlyMarked, mark }) => {
    // Check what the user sees once it settles: a button that just changed variant is, for its
    // 150-ms colour transition, a mix of both looks (grey on light blue), which is not a state
    // anyone reads. Finite animations only (a spinner never finishes), and 2 s at most (a paused one).
    const settling = document.getAnimations().filter((a) => a.effect?.getComputedTiming().iterations !== Infinity)
    const settled = Promise.all(settling.map((a) => a.finished.catch(() => undefined)))
    await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, 2000))])
    type Audit = { rules?: Array<{ id: string; impact?: string; any: unknown[]; all: unknown[]; none: unknown[] }>; checks?: Record<string, { impact?: string }> }
    const axe = (window as unknown as { axe: { _audit?: Audit; run(context: Document | NodeListOf<Element>, options: object): Promise<AxeResults> } }).axe
    // Only the rules that can report a serious or critical violation, the ones this check fails on:
    // a rule with its own impact reports every violation at it (axe-core's finalizeRuleResult), one
    // without reports its failed checks' highest. The others (landmarks, region, heading-order, all
    // moderate or minor) cannot change the outcome. Read from axe itself, so an upgrade that changes
    // an impact changes the set; an impact it does not know, or an _audit of another shape, keeps
    // every rule.
    const rules: Record<string, { enabled: false }> = {}
    const audit = axe._audit
    const mild = (impact: string | undefined) => impact === 'minor' || impact === 'moderate'
    if (Array.isArray(audit?.rules) && audit.checks) {
      for (const rule of audit.rules) {
        const checkImpacts = [...rule.any, ...rule.all, ...rule.none].map((check) => audit.checks?.[typeof check === 'string' ? check : String((check as { id?: unknown }).id)]?.impact)
        if (rule.impact ? mild(rule.impact) : checkImpacts.length > 0 && checkImpacts.every(mild)) rules[rule.id] = { enabled: false }
      }
    }
    // A NodeList is a context axe takes: these elements and their descendants.
    const context = onlyMarked ? document.querySelectorAll(`[${mark}]`) : document
    const results = await axe.run(context, { resultTypes: ['violations'], rules })
    return results.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? null,
      help: v.help,
      helpUrl: v.helpUrl,
      targets: v.nodes.map((n) => `${n.target.join(' ')}${n.failureSummary ? `: ${n.failureSummary.replace(/\s+/g, ' ')}` : ''}`),
    }))
  }, { onlyMarked, mark: NEW_MARK })
}

/** The inspector's own address on the portal (a path the portal has no route for). */
const INSPECTOR_PATH = '/__e2e/inspector'

/**
 * The page, per browser and kind of screen (viewport, touch, locale, time zone), where snapshots
 * of pages without JavaScript are checked: one JS-enabled context, made at the first check and
 * kept until the browser closes. It opens once at an address of the portal (so the journey's
 * cookies go with the stylesheets and images a snapshot loads), axe is evaluated in it at the first
 * check (runAxe), and each snapshot then replaces its document in place (document.open and write), which keeps the
 * window and axe with it. Loading axe for each snapshot had cost about half of a check (compiling
 * and starting 560 KB of script); a new context for each, before that, three quarters of a second.
 */
type Inspector = { page: Page; turn: Promise<unknown> }
const inspectors = new WeakMap<Browser, Map<string, Promise<Inspector>>>()

function inspectorFor(browser: Browser, contextOptions: BrowserContextOptions, origin: string): Promise<Inspector> {
  const { storageState: _state, baseURL: _base, javaScriptEnabled: _js, ...screen } = contextOptions
  const key = JSON.stringify({ screen, origin })
  let byScreen = inspectors.get(browser)
  if (!byScreen) inspectors.set(browser, (byScreen = new Map()))
  let inspector = byScreen.get(key)
  if (!inspector) {
    inspector = (async () => {
      const context = await browser.newContext({ ...screen, javaScriptEnabled: true })
      const page = await context.newPage()
      const url = `${origin}${INSPECTOR_PATH}`
      // Served by the harness, then left alone: a route would hold up every request of the context.
      // No script may run in it but what the DevTools protocol evaluates (axe): a snapshot's own
      // scripts would hydrate it into the JS-on page.
      await context.route(url, (route) =>
        route.fulfill({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "script-src 'none'" }, body: '<!doctype html><title>Inspector</title>' }),
      )
      await page.goto(url)
      await context.unroute(url)
      return { page, turn: Promise.resolve() }
    })()
    byScreen.set(key, inspector)
    // A failed start is made again by the next check.
    inspector.catch(() => byScreen.delete(key))
  }
  return inspector
}

/**
 * The page's markup (`markup`, marked where it is new) written into the inspector (above) with the
 * journey's cookies, its scripts left out and its <noscript> elements dropped (the page has
 * JavaScript: a browser with script shows none of them) or renamed to an inert custom element (it
 * has not: its user sees them). axe judges the marked elements, or, unmarked (`onlyMarked` false),
 * the whole snapshot.
 */
async function axeOnSnapshot(
  page: Page,
  markup: string,
  journey: { javaScript: boolean; contextOptions: BrowserContextOptions },
  onlyMarked: boolean,
): Promise<Violation[]> {
  const browser = page.context().browser()
  if (!browser) throw new Error('checkAccessibility: the page has no browser')
  const origin = originOf(page.url())
  if (!origin) throw new Error(`checkAccessibility: ${page.url()} has no origin to load a snapshot's stylesheets from`)
  // Its scripts out (written into the inspector they would run; the page ran them already, or never).
  const withoutScripts = markup.replace(/<script\b[\s\S]*?<\/script\s*>/gi, '')
  const html = journey.javaScript
    ? withoutScripts.replace(/<noscript\b[\s\S]*?<\/noscript\s*>/gi, '')
    : withoutScripts.replace(/<(\/?)noscript\b/gi, '<$1sp-noscript')
  // What was new was only in what the user does not see here (a script, another mode's <noscript>).
  if (onlyMarked && !html.includes(` ${NEW_MARK}`)) return []
  const cookies = await page.context().cookies()
  const inspector = await inspectorFor(browser, journey.contextOptions, origin)
  // One check at a time per inspector: its page shows one snapshot.
  const check = inspector.turn.then(async () => {
    const context = inspector.page.context()
    await context.clearCookies()
    if (cookies.length > 0) await context.addCookies(cookies)
    await inspector.page.evaluate(async (snapshot) => {
      document.open()
      document.write(snapshot)
      document.close()
      // Its stylesheets and images, as the page had them.
      if (document.readyState !== 'complete') await new Promise((resolve) => window.addEventListener('load', resolve, { once: true }))
    }, html)
    return runAxe(inspector.page, onlyMarked)
  })
  inspector.turn = check.catch(() => undefined)
  return check
}
