// The outstanding-items list at 100,000 items in one tenant (docs/performance.md): p50/p95 of
// GET /api/items/outstanding (first page, ~100 pages deep, with a project filter) and of the
// server-rendered /items page when the build has it. PGlite always; PostgreSQL too when
// BENCH_DATABASE_URL is set (a scratch database is created on that server and dropped after).
// The backend runs in-process (createBackend + fetch) with a real session cookie and CSRF token.
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { randomBytes } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { createRequestHandler, type ServerBuild } from 'react-router'
import { createBackend, type Backend } from '#server/api/app'
import { loadConfig, type Config } from '#server/config'
import { openDatabase, type Database, type DatabaseHandle } from '#server/db/client'
import { rowsOf, withTenant } from '#server/db/tenancy'
import { createLogger } from '#server/http/logger'
import { createFrontDoor } from '#server/web/front-door'
import { adminQuery, databaseOf, DEEP_PAGES, ITEMS, outstandingRequests, seed, signIn, syncSnapshot, timeIt, type Caller, type Seeded } from './items-workload'

const ORIGIN = 'http://portal.bench'
const rootDir = fileURLToPath(new URL('..', import.meta.url))
const migrationsFolder = path.join(rootDir, 'server/db/migrations')

await run('PGlite', undefined)
const serverUrl = process.env.BENCH_DATABASE_URL
if (serverUrl) await run('PostgreSQL', serverUrl)
else console.log('\n(PostgreSQL skipped: set BENCH_DATABASE_URL=postgres://… to run it too)')

async function run(label: string, server: string | undefined) {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-bench-items-'))
  const scratch = server ? `sp_bench_${randomBytes(4).toString('hex')}` : undefined
  let handle: DatabaseHandle | undefined
  try {
    if (server && scratch) await adminQuery(server, `create database "${scratch}"`)
    const databaseUrl = server && scratch ? databaseOf(server, scratch) : undefined
    handle = await openDatabase({ dataDir, databaseUrl, migrationsFolder })
    const config = loadConfig({ NODE_ENV: 'test', SESSION_SECRET: 'bench-session-secret-0123456789abcdefghijkl', DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', PUBLIC_URL: ORIGIN, SEED: 'false' })
    const backend = createBackend({ config, db: handle.db, logger: createLogger('silent'), now: () => new Date() })

    console.log(`\n-- ${label}: seeding ${ITEMS.toLocaleString('en')} items …`)
    const started = performance.now()
    const seeded = await seed(handle.db)
    console.log(`   seeded in ${((performance.now() - started) / 1000).toFixed(1)} s (${seeded.outstanding.toLocaleString('en')} outstanding)`)

    const headers = await signIn(handle.db, config, seeded)
    const api: Caller = (p, accept = 'application/json') => backend.fetch(new Request(new URL(p, ORIGIN), { headers: { ...headers, accept } }), { remoteAddress: '127.0.0.1' })

    const { deep, deepProject } = await outstandingRequests(api, seeded)
    await syncSnapshot(api)
    await itemsPage(config, backend, headers)
    await explain(handle.db, seeded, 'first page', undefined)
    await explain(handle.db, seeded, `page ${DEEP_PAGES + 1}`, deep)
    await explain(handle.db, seeded, 'projectId, page 21', deepProject, seeded.projectId)
  } finally {
    await handle?.close()
    if (server && scratch) await adminQuery(server, `drop database if exists "${scratch}" with (force)`)
    await rm(dataDir, { recursive: true, force: true })
  }
}

/** The server-rendered /items page, through the front door, when the build has that route. */
async function itemsPage(config: Config, backend: Backend, headers: Record<string, string>): Promise<void> {
  const buildFile = path.join(rootDir, 'build/server/index.js')
  if (!existsSync(buildFile)) {
    console.log('   /items page: skipped (no build/server/index.js; run `npm run build` first)')
    return
  }
  const build = (await import(pathToFileURL(buildFile).href)) as ServerBuild
  const route = Object.values(build.routes).find((r) => r?.path === 'items')
  // Before the items screen existed, `items` was the "coming later" placeholder with the id `items`.
  if (!route || route.id === 'items') {
    console.log('   /items page: skipped (the build has no items screen yet; rebuild with `npm run build` once it exists)')
    return
  }
  const handler = createRequestHandler(build, 'production')
  const front = createFrontDoor({ config, logger: createLogger('silent'), backend, web: (request, context) => handler(request, context), clientDir: undefined })
  const page: Caller = (p, accept = 'text/html') => Promise.resolve(front.fetch(new Request(new URL(p, ORIGIN), { headers: { ...headers, accept } })))
  await timeIt('/items page (server-rendered HTML)', page, '/items')
}

/**
 * The plan for the first page or a deep one, as the application role under row-level security:
 * it should be an index scan on the partial index that stops after limit + 1 rows.
 */
async function explain(db: Database, seeded: Seeded, label: string, cursor: string | undefined, projectId?: string): Promise<void> {
  const before = cursor ? (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { t: string; id: string }) : undefined
  const keyset = before ? sql`and (created_at, id) < (${before.t}::timestamptz, ${before.id}::uuid)` : sql``
  const project = projectId ? sql`and project_id = ${projectId}` : sql``
  const rows = await withTenant(db, seeded.tenantId, async (tx) =>
    rowsOf<{ 'QUERY PLAN': string }>(
      await tx.execute(sql`explain (analyze, buffers, costs off, timing off, summary off)
        select * from report_items
        where tenant_id = ${seeded.tenantId} and status <> 'closed' and deleted_at is null ${project} ${keyset}
        order by created_at desc nulls last, id desc nulls last limit 26`),
    ),
  )
  console.log(`   plan (${label}):`)
  for (const row of rows) console.log(`     ${row['QUERY PLAN']}`)
}
