// Documents at 100,000 per tenant (docs/performance.md "Documents"): p50/p95 over HTTP against the
// built server of search by a word, by a partial number and by discipline + status, each as the
// administrator and as a member with permission entries (so the permission rule is in the query);
// the tree and the list of a folder holding 500 entries; the detail of a document with 50
// revisions. The workload is bench/documents-workload.ts. Before the server starts, each search is
// explained (EXPLAIN ANALYZE as the application role under row-level security): the index scans
// and the execution time print; BENCH_EXPLAIN=1 prints the whole plans. PGlite always; PostgreSQL
// too when BENCH_DATABASE_URL is set (a scratch database is created there and dropped after).
// BENCH_SERVER=/path/build/node/index.js runs another server bundle.
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import { openDatabase, type Database } from '#server/db/client'
import { rowsOf, withTenant } from '#server/db/tenancy'
import type { RoleKey } from '#server/domain/tenancy/roles'
import { searchQueries, type SearchQuery } from '#server/domain/documents/search'
import type { SearchPage } from '~/lib/documents/types'
import { configFor, serverFile, start } from './built-server'
import { DOCUMENTS, FOLDERS, seedDocuments, type DocumentsSeeded } from './documents-workload'
import { adminQuery, databaseOf, signIn, timeIt, type Caller } from './items-workload'

const rootDir = fileURLToPath(new URL('..', import.meta.url))
const migrationsFolder = path.join(rootDir, 'server/db/migrations')

/** The searches of docs/performance.md: a word of 1 title in 40, a number piece, a filter. */
const SEARCHES: Array<{ label: string; query: Omit<SearchQuery, 'page' | 'pageSize'> }> = [
  { label: 'a word (q=sprinkler)', query: { q: 'sprinkler' } },
  { label: 'a partial number (q=0012)', query: { q: '0012' } },
  { label: 'discipline=S&status=S2', query: { discipline: 'S', status: 'S2' } },
]

if (!existsSync(serverFile)) {
  console.log(`skipped: no ${path.relative(rootDir, serverFile)} (run \`npm run build\` first)`)
  process.exit(0)
}

await run('PGlite', undefined)
const serverUrl = process.env.BENCH_DATABASE_URL
if (serverUrl) await run('PostgreSQL', serverUrl)
else console.log('\n(PostgreSQL skipped: set BENCH_DATABASE_URL=postgres://… to run it too)')

async function run(label: string, server: string | undefined): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-bench-documents-'))
  const scratch = server ? `sp_bench_${randomBytes(4).toString('hex')}` : undefined
  try {
    if (server && scratch) await adminQuery(server, `create database "${scratch}"`)
    const env: Record<string, string> = { DATA_DIR: dataDir, ...(server && scratch && { DATABASE_URL: databaseOf(server, scratch) }) }
    console.log(`\n-- ${label}: seeding ${DOCUMENTS.toLocaleString('en')} documents in ${FOLDERS.toLocaleString('en')} folders …`)
    // A first start migrates; the PGlite folder is locked while a server runs, so seed it stopped.
    await (await start(env)).stop()
    const handle = await openDatabase({ dataDir, databaseUrl: env.DATABASE_URL, migrationsFolder })
    let seeded: DocumentsSeeded
    let admin: Record<string, string>
    let member: Record<string, string>
    try {
      const started = performance.now()
      seeded = await seedDocuments(handle.db)
      console.log(`   seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`)
      const session = (userId: string) => signIn(handle.db, configFor(env), { tenantId: seeded.tenantId, userId, projectId: seeded.projectIds[0] ?? '', outstanding: 0 })
      admin = await session(seeded.adminId)
      member = await session(seeded.memberId)
      for (const search of SEARCHES) {
        await explain(handle.db, seeded, 'admin', search.label, search.query)
        await explain(handle.db, seeded, 'read-write', search.label, search.query)
      }
      await explain(handle.db, seeded, 'read-write', 'the big folder’s list', { folderId: seeded.bigFolderId })
    } finally {
      await handle.close()
    }

    const running = await start(env)
    try {
      const as = (headers: Record<string, string>): Caller => (p, accept = 'application/json') => fetch(`${running.base}${p}`, { headers: { ...headers, accept } })
      for (const [who, headers] of [['admin', admin], ['member', member]] as const) {
        for (const search of SEARCHES) {
          const url = `/api/documents/search?${new URLSearchParams(search.query as Record<string, string>).toString()}`
          await timeIt(`search, ${search.label}, ${who} (${await totalOf(as(headers), url)})`, as(headers), url)
        }
      }
      const [projectId] = seeded.projectIds
      for (const [who, headers] of [['admin', admin], ['member', member]] as const) {
        await timeIt(`tree of the 500-entry folder, ${who}`, as(headers), `/api/projects/${projectId}/documents/tree?folderId=${seeded.bigFolderId}`)
        await timeIt(`list of the 500-entry folder, ${who}`, as(headers), `/api/documents/search?folderId=${seeded.bigFolderId}`)
        await timeIt(`detail with 50 revisions, ${who}`, as(headers), `/api/documents/${seeded.detailDocumentId}`)
      }
    } finally {
      await running.stop()
    }
  } finally {
    if (server && scratch) await adminQuery(server, `drop database if exists "${scratch}" with (force)`)
    await rm(dataDir, { recursive: true, force: true })
  }
}

async function totalOf(api: Caller, url: string): Promise<string> {
  const response = await api(url)
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`)
  return `${((await response.json()) as SearchPage).total.toLocaleString('en')} found`
}

/**
 * The search's page query exactly as the domain builds it, explained as the application role
 * inside the tenant's transaction: which indexes it reads and how long the database takes.
 */
async function explain(db: Database, seeded: DocumentsSeeded, roleKey: RoleKey, label: string, query: Omit<SearchQuery, 'page' | 'pageSize'>): Promise<void> {
  const userId = roleKey === 'admin' ? seeded.adminId : seeded.memberId
  const plan = await withTenant(db, seeded.tenantId, async (tx) => {
    const { page } = await searchQueries({ tx, actor: { tenantId: seeded.tenantId, userId, roleKey }, now: new Date() }, { ...query, page: 1, pageSize: 25 })
    return rowsOf<{ 'QUERY PLAN': string }>(await tx.execute(sql`explain (analyze, buffers, costs off) ${page}`)).map((row) => row['QUERY PLAN'])
  })
  const who = roleKey === 'admin' ? 'admin' : 'member'
  if (process.env.BENCH_EXPLAIN) {
    console.log(`   plan (${label}, ${who}):`)
    for (const line of plan) console.log(`     ${line}`)
    return
  }
  const scans = [...new Set(plan.flatMap((line) => /(?:Bitmap Index|Index Only|Index|Seq) Scan (?:using |on )(\w+)/.exec(line)?.slice(0, 1) ?? []))]
  const ms = plan.find((line) => line.startsWith('Execution Time'))?.replace('Execution Time: ', '') ?? '?'
  console.log(`   plan (${label}, ${who}): ${scans.join(', ')}; execution ${ms}`)
}
