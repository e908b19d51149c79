// What a phone downloads for the sign-in page and a signed-in page: the scripts it needs to start
// (read from the bootstrap, bench/page-scripts.ts) raw, gzip and brotli, and the stylesheet inlined
// into the HTML. Starts the built server (`npm run build` first) on a temporary data folder.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { signInDemo, signInDemoAdmin, waitForHealth } from './demo-client'
import { bootstrapScripts, inlineStylesheet } from './page-scripts'

const port = 3900 + Math.floor(Math.random() * 90)
const base = `http://127.0.0.1:${port}`
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-bench-'))
const server = spawn('node', ['build/node/index.js'], { env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, stdio: 'inherit' })

try {
  await waitForHealth(base)
  await report('/auth/login', '')
  const { headers } = await signInDemo(base)
  await report('/dashboard', headers.cookie ?? '')
  // The reporting lists (issue 37: every screen), and a report's page.
  for (const listPath of ['/projects', '/reports', '/items']) await report(listPath, headers.cookie ?? '')
  // The document screens (issue 11) on the seeded Riverside documents, and an item page (its drawing panel).
  const api = async <T>(apiPath: string): Promise<T> => (await (await fetch(`${base}${apiPath}`, { headers: { ...headers, accept: 'application/json' } })).json()) as T
  const found = await api<{ items: Array<{ id: string; projectId: string }> }>('/api/documents/search?q=DR')
  const doc = found.items[0]
  if (doc) {
    await report(`/documents?projectId=${doc.projectId}`, headers.cookie ?? '')
    await report(`/documents/${doc.id}`, headers.cookie ?? '')
    // Document control (issue 12): the dashboard with its SVG chart, the wizard's first step, the inbox.
    await report(`/doc-control/dashboard?projectId=${doc.projectId}`, headers.cookie ?? '')
    await report(`/doc-control/wizard?projectId=${doc.projectId}`, headers.cookie ?? '')
    await report('/doc-control/inbox', headers.cookie ?? '')
  }
  const item = (await api<{ items: Array<{ id: string; reportId: string }> }>('/api/items/outstanding?limit=1')).items[0]
  if (item) {
    await report(`/items/${item.id}`, headers.cookie ?? '')
    await report(`/reports/${item.reportId}`, headers.cookie ?? '')
  }
  await report('/exports', headers.cookie ?? '')
  // Settings (issue 14), as a member.
  for (const settingsPath of ['/settings/user', '/settings/site', '/settings/notifications', '/settings/appearance']) await report(settingsPath, headers.cookie ?? '')
  // The Administration area (issue 13), as the demo administrator: the control panel and the longest lists.
  const admin = (await signInDemoAdmin(base)).headers.cookie ?? ''
  for (const adminPath of ['/admin/control-panel', '/admin/users', '/admin/invites', '/admin/audit', '/admin/join-requests', '/admin/devices']) await report(adminPath, admin)
  // Issue 14: configuration, templates and the outbox.
  for (const adminPath of ['/admin/configuration', '/admin/configuration/mail', '/admin/email-templates', '/admin/email-templates/invite', '/admin/mail-outbox']) await report(adminPath, admin)
} finally {
  server.kill('SIGTERM')
  await new Promise((resolve) => server.once('exit', resolve))
  rmSync(dataDir, { recursive: true, force: true })
}

async function report(pagePath: string, cookie: string) {
  const html = await (await fetch(`${base}${pagePath}`, { headers: { cookie } })).text()
  const scripts = bootstrapScripts(html)
  // A page that links its scripts or stylesheet (development, or a bootstrap of another shape).
  for (const m of html.matchAll(/(?:href|src)="(\/assets\/[^"]+\.(?:js|css))"/g)) scripts.add(m[1] as string)
  if (scripts.size === 0) throw new Error(`${pagePath}: no scripts found in its bootstrap; has the first-paint rewrite changed shape?`)
  let js = 0
  let jsGz = 0
  /** Brotli at quality 11, as scripts/build-compress.mjs writes the .br files Chromium is sent. */
  let jsBr = 0
  const files: string[] = []
  const inline = inlineStylesheet(html)
  let css = inline.length
  let cssGz = inline ? gzipSync(inline).length : 0
  for (const asset of scripts) {
    const body = Buffer.from(await (await fetch(`${base}${asset}`)).arrayBuffer())
    const gz = gzipSync(body).length
    if (asset.endsWith('.js')) {
      const br = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length
      js += body.length
      jsGz += gz
      jsBr += br
      files.push(`${asset.replace(/^\/assets\//, '')} ${(br / 1024).toFixed(1)}`)
    } else {
      css += body.length
      cssGz += gz
    }
  }
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`
  // BENCH_FILES=1: each script and its brotli KB, to see what a screen's JavaScript is made of.
  if (process.env.BENCH_FILES === '1') console.log(`  ${files.join(', ')}`)
  console.log(`${pagePath.padEnd(14)} HTML ${kb(html.length)}  JS ${kb(js)} (gzip ${kb(jsGz)}, brotli ${kb(jsBr)})  CSS ${kb(css)} (gzip ${kb(cssGz)}, inline)  files ${scripts.size}`)
}
