import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, onTestFinished, test } from 'vitest'
import { DEMO } from '#server/db/demo-accounts'
import type { Item, Page } from '~/lib/reporting/types'
import { bound, startPortal } from './harness'

// The built server's first start on an empty PGlite data folder (server/db/first-start.ts): a
// child process builds the folder under the server's lock, the server then opens it, and the
// folder is an ordinary data folder afterwards. No browser: these are the server's own start-ups.

const rootDir = fileURLToPath(new URL('../..', import.meta.url))
const serverEntry = path.join(rootDir, 'build/node/index.js')
const childEntry = path.join(rootDir, 'build/node/initialise-data-folder.js')
/** Bounds for a machine that is stuck, not expectations: nothing asserts on how long things take. */
const LIMIT_MS = bound(60_000)

type Server = { baseUrl: string; pid: number; output: () => string; exited: Promise<number | null>; stop: () => Promise<number | null> }

async function emptyDataDir(): Promise<string> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-first-start-'))
  onTestFinished(() => rm(dataDir, { recursive: true, force: true }))
  return dataDir
}

function startServer(dataDir: string, port: number): Server {
  const child = spawn(process.execPath, [serverEntry], {
    cwd: rootDir,
    env: { PATH: process.env.PATH, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, SEED: 'true', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS)
    try {
      return await exited
    } finally {
      clearTimeout(timer)
    }
  }
  onTestFinished(async () => {
    await stop()
  })
  return { baseUrl: `http://127.0.0.1:${port}`, pid: child.pid ?? 0, output: () => output, exited, stop }
}

async function healthy(server: Server): Promise<void> {
  const deadline = Date.now() + LIMIT_MS
  let exited = false
  void server.exited.then(() => (exited = true))
  while (!exited && Date.now() < deadline) {
    try {
      if ((await fetch(`${server.baseUrl}/api/health`)).ok) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`The server did not answer /api/health. Its output:\n${server.output()}`)
}

/** Signs in as the seeded demo user over HTTP and answers the ids of their first outstanding items. */
async function demoItems(server: Server): Promise<string[]> {
  const jar = new Map<string, string>()
  let csrf = ''
  async function call(method: string, pathname: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') }
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (csrf) headers['X-CSRF-Token'] = csrf
    const response = await fetch(`${server.baseUrl}${pathname}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const at = pair.indexOf('=')
      jar.set(pair.slice(0, at), pair.slice(at + 1))
    }
    csrf = response.headers.get('x-csrf-token') ?? csrf
    return response
  }
  await (await call('GET', '/auth/session')).body?.cancel()
  const login = await call('POST', '/auth/login', { email: DEMO.user.email, password: DEMO.user.password })
  expect(login.status, await login.clone().text()).toBe(200)
  const items = await call('GET', '/api/items/outstanding?limit=5')
  expect(items.status).toBe(200)
  return ((await items.json()) as Page<Item>).items.map((item) => item.id)
}

test('the first start builds the data folder in a child process under its lock; a restart opens the same data', async () => {
  const dataDir = await emptyDataDir()
  // What an interrupted first start leaves behind is not a database: it is built again.
  await mkdir(path.join(dataDir, 'pglite.initialising'))
  await writeFile(path.join(dataDir, 'pglite.initialising', 'PG_VERSION'), '17\n')
  const port = await freePort()

  const first = startServer(dataDir, port)
  await healthy(first)

  expect(first.output()).toContain('data folder initialised')
  expect(first.output()).toContain('seeded the demo tenants and accounts')
  expect(existsSync(path.join(dataDir, 'pglite', 'PG_VERSION'))).toBe(true)
  expect(existsSync(path.join(dataDir, 'pglite.initialising'))).toBe(false)
  expect(readFileSync(path.join(dataDir, 'pglite.lock'), 'utf8')).toBe(String(first.pid))
  const items = await demoItems(first)
  expect(items.length).toBeGreaterThan(0)
  expect(await first.stop()).toBe(0)
  expect(existsSync(path.join(dataDir, 'pglite.lock'))).toBe(false)

  const second = startServer(dataDir, port)
  await healthy(second)

  expect(second.output()).not.toContain('initialising it in a child process')
  expect(await demoItems(second)).toEqual(items)
  expect(await second.stop()).toBe(0)
})

test('a second server on a data folder in use is refused, and the first keeps running', async () => {
  // The lock, not the first start: the first server is a journey's portal, on a copy of the run's
  // seeded data folder (a first start of its own cost about 10 CPU-s more).
  const first = await startPortal()
  onTestFinished(() => first.stop())
  const holder = readFileSync(path.join(first.dataDir, 'pglite.lock'), 'utf8')

  const second = startServer(first.dataDir, await freePort())

  expect(await second.exited).toBe(1)
  expect(second.output()).toContain(`is in use by another process (pid ${holder})`)
  expect((await fetch(`${first.baseUrl}/api/health`)).status).toBe(200)
  await first.stop()
})

test('the child entry refuses to run when its parent does not hold the data folder lock', async () => {
  const dataDir = await emptyDataDir()
  const request = { dataDir, pgliteDir: path.join(dataDir, 'pglite'), migrationsFolder: path.join(rootDir, 'server/db/migrations'), seed: true, blobs: { store: 'file' } }
  const child = spawn(process.execPath, [childEntry, JSON.stringify(request)], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))

  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)))

  expect(code).toBe(1)
  expect(stderr).toContain('is not locked by this process')
  expect(existsSync(path.join(dataDir, 'pglite'))).toBe(false)
  expect(existsSync(path.join(dataDir, 'pglite.initialising'))).toBe(false)
})

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
