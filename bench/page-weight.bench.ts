// What a phone downloads for the sign-in page and a signed-in page: JS and CSS, raw and gzip.
// Starts the built server (`npm run build` first) on a temporary data folder.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { DEMO } from '#server/db/seed'

const port = 3900 + Math.floor(Math.random() * 90)
const base = `http://127.0.0.1:${port}`
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-bench-'))
const server = spawn('node', ['build/node/index.js'], { env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, stdio: 'inherit' })

try {
  await waitForHealth()
  const cookies = new Map<string, string>()
  const remember = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const [name, value] = (pair ?? '').split('=')
      if (name) cookies.set(name, value ?? '')
    }
  }
  const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ')

  await report('/auth/login', '')
  const session = await fetch(`${base}/auth/session`, { headers: { accept: 'application/json' } })
  remember(session)
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: cookieHeader(), 'x-csrf-token': cookies.get('sp_csrf') ?? '', origin: base },
    body: JSON.stringify({ email: DEMO.user.email, password: DEMO.user.password }),
  })
  remember(login)
  if (!login.ok) throw new Error(`sign-in failed: ${login.status}`)
  await report('/dashboard', cookieHeader())
} finally {
  server.kill('SIGTERM')
  await new Promise((resolve) => server.once('exit', resolve))
  rmSync(dataDir, { recursive: true, force: true })
}

async function report(pagePath: string, cookie: string) {
  const html = await (await fetch(`${base}${pagePath}`, { headers: { cookie } })).text()
  const assets = [...html.matchAll(/(?:href|src)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1] as string)
  let js = 0
  let jsGz = 0
  let css = 0
  let cssGz = 0
  for (const asset of new Set(assets)) {
    const body = Buffer.from(await (await fetch(`${base}${asset}`)).arrayBuffer())
    const gz = gzipSync(body).length
    if (asset.endsWith('.js')) {
      js += body.length
      jsGz += gz
    } else {
      css += body.length
      cssGz += gz
    }
  }
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`
  console.log(`${pagePath.padEnd(14)} HTML ${kb(html.length)}  JS ${kb(js)} (gzip ${kb(jsGz)})  CSS ${kb(css)} (gzip ${kb(cssGz)})  files ${new Set(assets).size}`)
}

async function waitForHealth() {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) return
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error('server did not start')
}
