// Takes the screenshots in docs/screens/ (docs/screens/README.md) from the built portal: starts it
// on a fresh data directory with the demo seed, signs in through its screens with playwright-core
// and Debian's Chromium, and writes small PNGs (one screen each, at 1× pixels).
//
//   npm run build && npx tsx scripts/screenshots.ts
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Page } from 'playwright-core'
import { DEMO } from '#server/db/demo-accounts'
import { currentTotp } from '#server/domain/auth/totp'

const root = fileURLToPath(new URL('..', import.meta.url))
const out = path.join(root, 'docs/screens')
const entry = path.join(root, 'build/node/index.js')
const chromiumPath = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((binary) => existsSync(binary))

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

async function waitUntilUp(baseUrl: string) {
  for (let tries = 0; tries < 720; tries++) {
    const ok = await fetch(`${baseUrl}/api/health/ready`).then((r) => r.ok, () => false)
    if (ok) return
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  throw new Error('the portal did not start')
}

async function signIn(page: Page, who: { email: string; password: string }, admin = false) {
  if (admin) {
    await page.getByRole('link', { name: 'Admin sign-in' }).click()
    await page.getByRole('heading', { level: 1, name: 'Admin sign-in' }).waitFor()
  }
  await page.getByLabel('E-mail address').fill(who.email)
  await page.getByLabel('Password').fill(who.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  if (admin) {
    await page.getByLabel('Authentication code').fill(await currentTotp(DEMO.adminTotpSecret, new Date()))
    await page.getByRole('button', { name: 'Continue' }).click()
  }
  await page.waitForURL((url) => !url.pathname.startsWith('/auth/'))
  await page.getByRole('heading', { level: 1 }).waitFor()
}

if (!existsSync(entry)) throw new Error('Run `npm run build` first.')
if (!chromiumPath) throw new Error('Chromium is not installed (node scripts/ensure-chromium.mjs).')
await mkdir(out, { recursive: true })
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-screens-'))
const port = await freePort()
const baseUrl = `http://127.0.0.1:${port}`
const server = spawn(process.execPath, [entry], {
  cwd: root,
  env: { PATH: process.env.PATH, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, PUBLIC_URL: baseUrl, SEED: 'true', LOG_LEVEL: 'warn' },
  stdio: 'inherit',
})
const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--disable-gpu'] })
try {
  await waitUntilUp(baseUrl)

  // The phone shell: the dashboard on a 360 × 740 phone, then with "More" open.
  const phone = await browser.newContext({ baseURL: baseUrl, viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true, deviceScaleFactor: 1 })
  const onPhone = await phone.newPage()
  await onPhone.goto('/dashboard')
  await signIn(onPhone, DEMO.user)
  await onPhone.waitForLoadState('networkidle')
  await onPhone.screenshot({ path: path.join(out, 'phone-dashboard.png') })
  await onPhone.getByRole('navigation', { name: 'Main' }).getByText('More', { exact: true }).click()
  await onPhone.getByRole('link', { name: 'Settings' }).waitFor()
  await onPhone.screenshot({ path: path.join(out, 'phone-more-menu.png') })
  await phone.close()

  // The audit log on a desktop, after the administrator changed a member's role (and back).
  const desktop = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 })
  const onDesktop = await desktop.newPage()
  await onDesktop.goto('/admin/users')
  await signIn(onDesktop, DEMO.admin, true)
  await onDesktop.goto('/admin/users')
  await onDesktop.getByRole('main').getByRole('link', { name: DEMO.user.displayName, exact: true }).first().click()
  const role = onDesktop.getByLabel('Role in this organisation')
  const before = await role.inputValue()
  for (const next of ['read-only', before]) {
    await role.selectOption(next)
    await onDesktop.getByRole('button', { name: 'Change role' }).click()
    await onDesktop.getByText(`${DEMO.user.displayName}’s role changed.`).first().waitFor()
  }
  await onDesktop.goto('/admin/audit')
  await onDesktop.getByRole('table', { name: 'Audit log, newest first' }).waitFor()
  await onDesktop.getByRole('row').filter({ hasText: 'role to Read Only' }).first().getByText('Details', { exact: true }).click()
  await onDesktop.screenshot({ path: path.join(out, 'admin-audit-log.png') })
  await desktop.close()
  console.log(`Screenshots written to ${path.relative(root, out)}/`)
} finally {
  await browser.close()
  server.kill('SIGTERM')
  await new Promise((resolve) => server.once('exit', resolve))
  await rm(dataDir, { recursive: true, force: true })
}
