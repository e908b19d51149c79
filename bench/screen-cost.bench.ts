// What one answer costs the server (docs/performance.md "What a screen costs the server", issue
// 37): CPU ms of the built server's process per answer, measured from the outside
// (/proc/<pid>/stat) under `--connections` callers for `--seconds` per answer, beside a bare
// node:http server answering 15 KB of HTML in the same run (so the figure travels between
// machines), on PGlite and on PostgreSQL (BENCH_DATABASE_URL, default this machine's; its backends'
// CPU is counted apart, "+ postgres"). Then the SQL statements each answer sends, from GET
// /metrics' db_statements_total around a few answers one after another.
// `npm run bench -- screen-cost [--seconds 5] [--connections 20] [--only pglite,postgres]`; with
// `--log`, no CPU figures: each answer's statements are printed, one answer after a warm-up
// (DB_STATEMENT_LOG; a background job's statement may fall between them). `--answer <text>` keeps
// the answers whose path contains it (`--answer =<path or label>`: the one answer of that path or
// label, e.g. `=/items` or `=/items/{id}`); `--cpu-prof <dir>` has the server write a CPU profile there
// when it stops (node --cpu-prof: where the remaining time goes). BENCH_NODE_FLAGS=<flags> adds node
// flags to the server's (bench/built-server.ts). `--save <dir>` writes each answer's body there
// (one answer after the warm-up) and prints its size, raw and as sent.
// Needs `npm run build` first. The figures want a quiet machine: say how quiet it was beside them.
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync, existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { openDatabase, type Database } from '#server/db/client'
import { initialiseInChildProcess } from '#server/db/first-start'
import { rowsOf, withTenant } from '#server/db/tenancy'
import { createLogger } from '#server/http/logger'
import { freePort, sleep } from '#tests/multi/instances'
import { configFor, serverFile } from './built-server'
import { adminQuery, databaseOf, seed } from './items-workload'
import { launch, migrationsFolder, POSTGRES_URL, removeFolder, rootDir, scratchFolder, sessionFor, type Instance, type Session } from './load-setup'

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '20' }, only: { type: 'string' }, items: { type: 'string', default: '2000' }, log: { type: 'boolean', default: false }, answer: { type: 'string' }, save: { type: 'string' }, 'cpu-prof': { type: 'string' } },
})
const SECONDS = Number(values.seconds)
const CONNECTIONS = Number(values.connections)
const only = new Set(values.only ? values.only.split(',') : ['pglite', 'postgres'])
const METRICS_TOKEN = 'bench-metrics-token-0123456789'
/** Answers one after another whose statements are counted. */
const COUNTED = 10
const TICK_MS = 1000 / Number(process.env.CLK_TCK ?? 100)

type Answer = { label: string; path: string; html: boolean }
type Row = { label: string; cpuMs: number; dbMs?: number | undefined; rps: number; statements?: number | undefined; failed: number }

function answers(itemId: string): Answer[] {
  const wanted = values.answer
  if (wanted?.startsWith('=')) return allAnswers(itemId).filter((answer) => answer.label === wanted.slice(1) || answer.path === wanted.slice(1))
  return allAnswers(itemId).filter((answer) => !wanted || answer.path.includes(wanted))
}

function allAnswers(itemId: string): Answer[] {
  return [
    { label: 'GET /api/health/live (liveness)', path: '/api/health/live', html: false },
    { label: 'GET /api/health', path: '/api/health', html: false },
    { label: 'GET /api/projects/?limit=20', path: '/api/projects/?limit=20', html: false },
    { label: 'GET /api/items/outstanding?limit=20', path: '/api/items/outstanding?limit=20', html: false },
    { label: '/dashboard', path: '/dashboard', html: true },
    { label: '/documents', path: '/documents', html: true },
    { label: '/items', path: '/items', html: true },
    { label: '/items/{id}', path: `/items/${itemId}`, html: true },
  ]
}

/** utime + stime of a process, in ms. */
function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS
  } catch {
    return 0
  }
}

function headersFor(session: Session | undefined, html: boolean): Record<string, string> {
  return { ...(session && { cookie: session.headers.cookie ?? '' }), accept: html ? 'text/html' : 'application/json' }
}

/** `CONNECTIONS` callers, each asking again as soon as it has its answer, for `SECONDS`. */
async function hammer(base: string, answer: Answer, session: Session | undefined, seconds = SECONDS): Promise<{ count: number; failed: number; firstFailure?: string }> {
  const until = performance.now() + seconds * 1000
  let count = 0
  let failed = 0
  let firstFailure: string | undefined
  const headers = headersFor(session, answer.html)
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        const response = await fetch(base + answer.path, { headers, redirect: 'manual' })
        const body = await response.text()
        count += 1
        if (response.status !== 200) {
          failed += 1
          firstFailure ??= `${response.status} ${body.slice(0, 300)}`
        }
      }
    }),
  )
  return { count, failed, ...(firstFailure && { firstFailure }) }
}

async function statementsSent(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text()
  const line = /^db_statements_total (\d+)/m.exec(text)
  if (!line) throw new Error('GET /metrics has no db_statements_total')
  return Number(line[1])
}

/**
 * Statements of one answer: `COUNTED` answers one after another, less what the same time with no
 * answers sends (the background jobs' polling and the scrape's own statements).
 */
async function statementsPer(base: string, answer: Answer, session: Session): Promise<number> {
  const s1 = await statementsSent(base)
  const started = performance.now()
  for (let n = 0; n < COUNTED; n++) await (await fetch(base + answer.path, { headers: headersFor(session, answer.html), redirect: 'manual' })).text()
  const s2 = await statementsSent(base)
  await sleep(performance.now() - started)
  const s3 = await statementsSent(base)
  return (s2 - s1 - (s3 - s2)) / COUNTED
}

async function measure(instance: { base: string; pid: number }, answer: Answer, session: Session | undefined, dbPids: () => Promise<number[]>): Promise<Row> {
  await hammer(instance.base, answer, session, Math.min(2, SECONDS)) // warm up
  const pids = await dbPids()
  const before = cpuMs(instance.pid)
  const dbBefore = pids.reduce((sum, pid) => sum + cpuMs(pid), 0)
  const started = performance.now()
  const { count, failed, firstFailure } = await hammer(instance.base, answer, session)
  const elapsed = (performance.now() - started) / 1000
  const used = cpuMs(instance.pid) - before
  const dbUsed = pids.reduce((sum, pid) => sum + cpuMs(pid), 0) - dbBefore
  if (firstFailure) console.log(`     ${answer.label}: ${failed} answers not 200, the first: ${firstFailure}`)
  return { label: answer.label, cpuMs: used / count, dbMs: pids.length > 0 ? dbUsed / count : undefined, rps: count / elapsed, failed }
}

/** A bare node:http server answering 15 KB of HTML: what the machine does for an answer that costs nothing. */
async function bare(): Promise<Row> {
  const port = await freePort()
  const script = `const html='<!doctype html><p>'+'x'.repeat(15*1024)+'</p>';require('node:http').createServer((q,s)=>{s.writeHead(200,{'content-type':'text/html'});s.end(html)}).listen(${port},'127.0.0.1',()=>console.log('up'))`
  const child: ChildProcess = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  await new Promise((resolve) => child.stdout?.once('data', resolve))
  try {
    return await measure({ base: `http://127.0.0.1:${port}`, pid: child.pid ?? 0 }, { label: 'bare node:http, 15 KB of HTML', path: '/', html: true }, undefined, async () => [])
  } finally {
    child.kill()
  }
}

type Data = { session: Session; itemId: string }

async function seedFor(db: Database, config: ReturnType<typeof configFor>): Promise<Data> {
  const seeded = await seed(db, Number(values.items))
  const [item] = await withTenant(db, seeded.tenantId, async (tx) => rowsOf<{ id: string }>(await tx.execute(sql`select id from report_items where status = 'open' and deleted_at is null order by created_at desc limit 1`)))
  if (!item) throw new Error('no item')
  return { session: await sessionFor(db, config, seeded), itemId: item.id }
}

async function run(name: string, env: Record<string, string>, data: Data, dbPids: () => Promise<number[]>): Promise<void> {
  if (values.log) return logStatements(name, env, data)
  const profile = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(values['cpu-prof'])}`] : []
  const server: Instance = await launch({ ...env, METRICS_TOKEN }, profile)
  try {
    const rows: Row[] = [await bare()]
    for (const answer of answers(data.itemId)) {
      const session = answer.path === '/api/health' ? undefined : data.session
      const row = await measure(server, answer, session, dbPids)
      row.statements = await statementsPer(server.base, answer, data.session)
      if (values.save) await saveBody(server.base, answer, session, values.save)
      rows.push(row)
    }
    rows.push(await bare())
    print(name, rows)
  } finally {
    await server.stop()
  }
}

/** One answer's body, written to `dir`, with its size raw and as sent (compressed). */
async function saveBody(base: string, answer: Answer, session: Session | undefined, dir: string): Promise<void> {
  const response = await fetch(base + answer.path, { headers: headersFor(session, answer.html), redirect: 'manual' })
  const body = await response.text()
  await mkdir(dir, { recursive: true })
  const file = path.join(dir, `${answer.label.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '')}.${answer.html ? 'html' : 'json'}`)
  await writeFile(file, body)
  const sent = response.headers.get('content-length') ?? 'streamed'
  console.log(`     ${answer.label}: ${Buffer.byteLength(body)} bytes (${response.headers.get('content-encoding') ?? 'identity'}, ${sent}) → ${path.relative(process.cwd(), file)}`)
}

/** Each answer's statements as the server logged them, one answer after a warm-up. */
async function logStatements(name: string, env: Record<string, string>, data: Data): Promise<void> {
  const server: Instance = await launch({ ...env, METRICS_TOKEN, DB_STATEMENT_LOG: '1' })
  let lines: string[] = []
  server.child.stderr?.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter((line) => line.startsWith('[sql] '))))
  try {
    for (const answer of answers(data.itemId)) {
      const ask = async () => (await fetch(server.base + answer.path, { headers: headersFor(data.session, answer.html), redirect: 'manual' })).text()
      await ask()
      await sleep(200)
      lines = []
      await ask()
      await sleep(200)
      console.log(`\n${name} ${answer.label}: ${lines.length} statements\n${lines.map((line, n) => `${String(n + 1).padStart(3)} ${line.slice(6)}`).join('\n')}`)
    }
  } finally {
    await server.stop()
  }
}

function print(name: string, rows: Row[]): void {
  console.log(`\n${name}: ${CONNECTIONS} connections, ${SECONDS} s per answer`)
  console.log(`| answer | CPU ms per answer${rows.some((r) => r.dbMs !== undefined) ? ' (+ postgres)' : ''} | answers/s | SQL statements |`)
  console.log('|---|---|---|---|')
  for (const r of rows) {
    const cpu = r.cpuMs.toFixed(r.cpuMs < 1 ? 3 : 2) + (r.dbMs === undefined ? '' : ` (+${r.dbMs.toFixed(2)})`)
    console.log(`| ${r.label} | ${cpu} | ${r.rps.toFixed(0)} | ${r.statements === undefined ? '' : r.statements.toFixed(1)} |`)
  }
}

async function embedded(): Promise<void> {
  const dataDir = await scratchFolder()
  try {
    const handle = await openDatabase({
      dataDir,
      migrationsFolder,
      initialise: initialiseInChildProcess({ entry: path.join(rootDir, 'build/node/initialise-data-folder.js'), dataDir, migrationsFolder, seed: false, blobs: { store: 'file' }, logger: createLogger('silent') }),
    })
    let data: Data
    try {
      data = await seedFor(handle.db, configFor({ DATA_DIR: dataDir }))
    } finally {
      await handle.close()
    }
    await run('PGlite', { DATA_DIR: dataDir }, data, async () => [])
  } finally {
    await removeFolder(dataDir)
  }
}

async function postgres(): Promise<void> {
  const dataDir = await scratchFolder()
  const name = `sp_bench_cost_${randomBytes(4).toString('hex')}`
  await adminQuery(POSTGRES_URL, `create database "${name}"`)
  const url = databaseOf(POSTGRES_URL, name)
  try {
    const handle = await openDatabase({ dataDir, databaseUrl: url, migrationsFolder })
    let data: Data
    try {
      data = await seedFor(handle.db, configFor({ DATA_DIR: dataDir, DATABASE_URL: url }))
    } finally {
      await handle.close()
    }
    // The postgres backends serving this database (the server's pool), found after its warm-up.
    const dbPids = async () => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        const result = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()')
        return result.rows.map((r) => r.pid)
      } finally {
        await client.end()
      }
    }
    await run('PostgreSQL', { DATA_DIR: dataDir, DATABASE_URL: url }, data, dbPids)
  } finally {
    await sleep(500)
    await adminQuery(POSTGRES_URL, `drop database if exists "${name}" with (force)`)
    await removeFolder(dataDir)
  }
}

if (!existsSync(serverFile)) {
  console.log(`skipped: no ${path.relative(rootDir, serverFile)} (run \`npm run build\` first)`)
  process.exit(0)
}
if (only.has('pglite')) await embedded()
if (only.has('postgres')) await postgres()
