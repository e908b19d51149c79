// The built server's resident memory (docs/performance.md "Server memory"): at rest on a first start
// (empty PGlite data folder), on a restart of the same folder, and after the 100,000-item workload
// of bench/items.bench.ts run over HTTP; the same on PostgreSQL when BENCH_DATABASE_URL is set (a
// scratch database is created there and dropped after). Memory is read from /proc/<pid>/status:
// VmRSS a few seconds after /api/health answers, and VmHWM (the process's peak). Child processes
// are not in those figures; the first start's child (server/db/first-start.ts) reports its own peak.
// BENCH_SERVER=/path/build/node/index.js runs another server bundle.
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { openDatabase } from '#server/db/client'
import { configFor, memory, serverFile, start, type Memory, type Running } from './built-server'
import { adminQuery, databaseOf, ITEMS, outstandingRequests, seed, signIn, syncSnapshot, type Caller, type Seeded } from './items-workload'

const MB = 1024 * 1024
/** How long the server idles after /api/health answers before "at rest" is read. */
const SETTLE_MS = 5_000
const rootDir = fileURLToPath(new URL('..', import.meta.url))
const migrationsFolder = path.join(rootDir, 'server/db/migrations')

if (!existsSync(serverFile)) {
  console.log(`skipped: no ${path.relative(rootDir, serverFile)} (run \`npm run build\` first)`)
  process.exit(0)
}


await pglite()
const serverUrl = process.env.BENCH_DATABASE_URL
if (serverUrl) await postgres(serverUrl)
else console.log('\n(PostgreSQL skipped: set BENCH_DATABASE_URL=postgres://… to run it too)')

async function pglite(): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-bench-memory-'))
  const env = { DATA_DIR: dataDir }
  try {
    console.log('\n-- PGlite')
    const first = await start(env)
    const atRest = await rest(first)
    const child = /"childPeakRssMb":(\d+)/.exec(first.log())?.[1]
    report('first start (empty data folder)', atRest, child ? `initialising child's peak ${child} MB` : 'no initialising child seen')
    await first.stop()

    const again = await start(env)
    report('restart (same folder)', await rest(again))
    await again.stop()

    // The folder is locked while a server runs: seed it stopped, then start the server on it.
    console.log(`   seeding ${ITEMS.toLocaleString('en')} items into the stopped folder …`)
    const handle = await openDatabase({ dataDir, migrationsFolder })
    let seeded: Seeded
    let headers: Record<string, string>
    try {
      seeded = await seed(handle.db)
      headers = await signIn(handle.db, configFor(env), seeded)
    } finally {
      await handle.close()
    }
    await workload(env, seeded, headers)
  } finally {
    await rm(dataDir, { recursive: true, force: true })
  }
}

async function postgres(server: string): Promise<void> {
  const scratch = `sp_bench_${randomBytes(4).toString('hex')}`
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-bench-memory-'))
  await adminQuery(server, `create database "${scratch}"`)
  const env = { DATA_DIR: dataDir, DATABASE_URL: databaseOf(server, scratch) }
  try {
    console.log('\n-- PostgreSQL')
    const first = await start(env)
    report('first start (empty database)', await rest(first))
    await first.stop()
    const again = await start(env)
    report('restart', await rest(again))
    await again.stop()

    console.log(`   seeding ${ITEMS.toLocaleString('en')} items …`)
    const handle = await openDatabase({ dataDir, databaseUrl: env.DATABASE_URL, migrationsFolder })
    let seeded: Seeded
    let headers: Record<string, string>
    try {
      seeded = await seed(handle.db)
      headers = await signIn(handle.db, configFor(env), seeded)
    } finally {
      await handle.close()
    }
    await workload(env, seeded, headers)
  } finally {
    await adminQuery(server, `drop database if exists "${scratch}" with (force)`)
    await rm(dataDir, { recursive: true, force: true })
  }
}

/** A server started on the seeded database: at rest, then after the outstanding-items requests and the sync snapshot. */
async function workload(env: Record<string, string>, seeded: Seeded, headers: Record<string, string>): Promise<void> {
  const running = await start(env)
  try {
    report(`restart with ${ITEMS.toLocaleString('en')} items`, await rest(running))
    const api: Caller = (p, accept = 'application/json') => fetch(`${running.base}${p}`, { headers: { ...headers, accept } })
    await outstandingRequests(api, seeded)
    report('after the outstanding-items requests', memory(running))
    await syncSnapshot(api)
    report('after the sync snapshot (3 runs)', memory(running))
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
    report(`${SETTLE_MS / 1000} s later`, memory(running))
  } finally {
    await running.stop()
  }
}

async function rest(running: Running): Promise<Memory> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
  return memory(running)
}

function report(label: string, m: Memory, note?: string): void {
  const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`.padStart(7)
  console.log(`   ${label.padEnd(40)} VmRSS ${mb(m.rss)}   VmHWM ${mb(m.hwm)}${note ? `   (${note})` : ''}`)
}
