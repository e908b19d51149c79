import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { PASSWORD_HASH_COST } from '#server/domain/auth/passwords'
import { csrfBinding, mintCsrfToken } from '#server/http/csrf'
import { createCookieJar, type CookieJar } from '#tests/helpers/cookies'
import { COOKIES, HEADERS } from '~/lib/constants'

/**
 * Built server processes (`build/node/index.js`, so `npm run build` first) for the multi project:
 * each on a PostgreSQL database of its own making, and the HTTP calls a browser makes to them.
 * Run by `.ci/run` with TEST_DATABASE_URL and TEST_REDIS_URL; `npm run test:multi` by hand.
 */
export const rootDir = fileURLToPath(new URL('../..', import.meta.url))
export const serverEntry = path.join(rootDir, 'build/node/index.js')
export const migrationsFolder = path.join(rootDir, 'server/db/migrations')
export const serverUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
export const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

export function requireBuild(): void {
  if (!existsSync(serverEntry)) throw new Error(`${serverEntry} is missing: run \`npm run build\` first.`)
}

export type TestDatabase = { url: string; drop(): Promise<void> }

/** A new, empty database on the test server; the first instance started on it runs the migrations. */
export async function createTestDatabase(prefix = 'sp_multi_'): Promise<TestDatabase> {
  const name = `${prefix}${randomBytes(6).toString('hex')}`
  await adminQuery(`create database "${name}"`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => adminQuery(`drop database if exists "${name}" with (force)`) }
}

async function adminQuery(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

export type Instance = {
  name: string
  baseUrl: string
  child: ChildProcess
  /** The last 32 kB the process wrote (stdout and stderr), for failure messages. */
  output(): string
  /** Resolves with the exit code (or signal) once the process has exited. */
  exited: Promise<number | string | null>
  /** SIGTERM, then the exit code; SIGKILL if it has not exited in 40 s (a stop is bounded by SHUTDOWN_DEADLINE_SECONDS). */
  stop(): Promise<number | string | null>
}

/**
 * Starts the built server with exactly `env` (plus PATH, NODE_ENV=production, HOST and PORT) and
 * waits until GET /api/health answers 200. `port` may be chosen beforehand (freePort), e.g. to put a
 * proxy in front whose address is the instances' PUBLIC_URL.
 */
export async function startInstance(name: string, env: Record<string, string>, port?: number): Promise<Instance> {
  const listenOn = port ?? (await freePort())
  const baseUrl = `http://127.0.0.1:${listenOn}`
  const child = spawn(process.execPath, [serverEntry], {
    cwd: rootDir,
    // The lowest password hash cost, as in every suite (server/domain/auth/passwords.ts).
    env: { PATH: process.env.PATH, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(listenOn), LOG_LEVEL: 'warn', PASSWORD_HASH_COST: String(PASSWORD_HASH_COST.min), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-32_000)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)))
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)
  void exited.then(() => process.off('exit', killOnExit))
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`instance ${name} exited during start:\n${output}`)
    const healthy = await fetch(`${baseUrl}/api/health`).then((r) => r.ok).catch(() => false)
    if (healthy) break
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`instance ${name} did not answer in 60 s:\n${output}`)
    }
    await sleep(200)
  }
  return {
    name,
    baseUrl,
    child,
    output: () => output,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 40_000)
      const code = await exited
      clearTimeout(timer)
      return code
    },
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      const port = typeof address === 'object' && address ? address.port : 0
      probe.close(() => resolve(port))
    })
  })
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * A browser talking to one origin (an instance, or the proxy in front of several): keeps cookies,
 * sends Origin, and on unsafe methods echoes the CSRF cookie in X-CSRF-Token as app/lib/api does,
 * fetching one first (GET /auth/session) when the jar has none.
 */
export type WebClient = {
  jar: CookieJar
  request(pathname: string, init?: RequestInit & { json?: unknown }): Promise<Response>
  /** A JSON call that must succeed (2xx); answers the parsed body. */
  call<T>(method: string, pathname: string, json?: unknown): Promise<T>
}

export function webClient(origin: string, options: { secret?: string; session?: { token: string; id: string } } = {}): WebClient {
  const jar = createCookieJar()
  if (options.session && options.secret) {
    jar.set('sp_session', options.session.token)
    jar.set(COOKIES.csrf, mintCsrfToken(options.secret, csrfBinding(options.session.id)))
  }
  const self: WebClient = {
    jar,
    async request(pathname, { json, ...init } = {}) {
      const method = (init.method ?? (json === undefined ? 'GET' : 'POST')).toUpperCase()
      const unsafe = !['GET', 'HEAD', 'OPTIONS'].includes(method)
      if (unsafe && !jar.get(COOKIES.csrf)) jar.collect(await fetch(`${origin}/auth/session`, { headers: jar.apply({ accept: 'application/json' }) }))
      const headers = jar.apply(init.headers)
      if (!headers.has('accept')) headers.set('accept', 'application/json')
      headers.set('origin', origin)
      if (json !== undefined) headers.set('content-type', 'application/json')
      const csrf = jar.get(COOKIES.csrf)
      if (unsafe && csrf) headers.set(HEADERS.csrf, csrf)
      const response = await fetch(`${origin}${pathname}`, { ...init, method, headers, ...(json !== undefined && { body: JSON.stringify(json) }) })
      return jar.collect(response)
    },
    async call<T>(method: string, pathname: string, json?: unknown): Promise<T> {
      const response = await self.request(pathname, { method, ...(json !== undefined && { json }) })
      const text = await response.text()
      if (!response.ok) throw new Error(`${method} ${pathname} → ${response.status}: ${text}`)
      return (text ? JSON.parse(text) : undefined) as T
    },
  }
  return self
}
