// Sustained mixed load and faults against the built server (docs/performance.md "Load and faults
// (issue 18)"): `npm run bench -- load [--seconds 60] [--connections 200] [--only <cases>]`.
//
// The mix, per connection and in turn: lists (projects, a project's reports, a report's items, a
// project's outstanding items), single items, a response written (POST with an Idempotency-Key)
// and a photo thumbnail served, each as one of 20 signed-in people of 4 organisations. Cases:
// `pglite` (one instance: PGlite is one process), `postgres` (one instance), `two` (two instances
// on PostgreSQL and Redis behind a round-robin proxy), then the faults of bench/load-faults.ts:
// `db-cut`, `redis-cut`, `kill-upload` (files in s3rver; `--blobs file`: one shared data folder
// instead). `--seconds 5 --connections 20` is a smoke run; the figures
// want a quiet machine. PostgreSQL: BENCH_DATABASE_URL (default this machine's), Redis:
// BENCH_REDIS_URL; BENCH_SERVER_LOG=<folder>: every instance logs each request there (where load
// waits: inside the server or before it). Needs `npm run build` first.
import { existsSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { startRoundRobinProxy } from '#tests/helpers/round-robin-proxy'
import { serverFile } from './built-server'
import { databaseCut, killMidUpload, redisCut } from './load-faults'
import { load, newTally, report, writtenRows, type LoadOptions } from './load-mix'
import { embeddedData, launch, postgresData, REDIS_URL, removeFolder, rootDir, scratchFolder, sleep, uploadPhotos, type Instance, type LoadTenant } from './load-setup'

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { seconds: { type: 'string', default: '60' }, connections: { type: 'string', default: '200' }, only: { type: 'string' }, blobs: { type: 'string', default: 's3' } },
})
const options: LoadOptions = { seconds: Number(values.seconds), connections: Number(values.connections) }
const CASES = ['pglite', 'postgres', 'two', 'db-cut', 'redis-cut', 'kill-upload'] as const
const only = new Set<string>(values.only ? values.only.split(',') : CASES)

async function embedded(): Promise<void> {
  const dataDir = await scratchFolder()
  try {
    const tenants = await embeddedData(dataDir)
    const server = await launch({ DATA_DIR: dataDir })
    try {
      await uploadPhotos(server.base, tenants)
      await warmUp(server.base, tenants)
      const tally = newTally()
      const result = await load(server.base, tenants, tally, options)
      report('PGlite, one instance', result, [server], tally)
    } finally {
      await server.stop()
    }
  } finally {
    await removeFolder(dataDir)
  }
}

async function postgres(instances: 1 | 2): Promise<void> {
  const dataDir = await scratchFolder()
  const data = await postgresData(path.join(dataDir, 'bench'))
  const running: Instance[] = []
  try {
    // Two instances share the data folder's blobs (file store) and talk through Redis.
    const env = { DATA_DIR: dataDir, DATABASE_URL: data.url, ...(instances === 2 && { REDIS_URL, TRUST_PROXY: 'true' }) }
    for (let n = 0; n < instances; n++) running.push(await launch(env))
    const proxy = instances === 2 ? await startRoundRobinProxy(running.map((r) => r.base)) : undefined
    try {
      const url = proxy?.url ?? running[0]?.base ?? ''
      await uploadPhotos(url, data.tenants)
      await warmUp(url, data.tenants)
      const before = await writtenRows(data.handle.db)
      const tally = newTally()
      const result = await load(url, data.tenants, tally, options)
      const { rows, duplicated } = await writtenRows(data.handle.db)
      report(instances === 1 ? 'PostgreSQL, one instance' : 'PostgreSQL + Redis, two instances behind a round-robin proxy', result, running, tally, rows - before.rows)
      if (duplicated > 0) console.log(`     ${duplicated} responses written twice`)
    } finally {
      await proxy?.close()
    }
  } finally {
    for (const instance of running) await instance.stop()
    await data.drop()
    await removeFolder(dataDir)
  }
}

/**
 * A few seconds of the mix first, not counted: the figures are of a server past its first calls
 * (JIT, caches, pool). Then a pause, so the warm-up's last writes are in before rows are counted.
 */
async function warmUp(url: string, tenants: LoadTenant[]): Promise<void> {
  await load(url, tenants, newTally(), { seconds: 5, connections: Math.min(options.connections, 20) })
  await sleep(2_000)
}

if (!existsSync(serverFile)) {
  console.log(`skipped: no ${path.relative(rootDir, serverFile)} (run \`npm run build\` first)`)
  process.exit(0)
}
console.log(`${options.seconds} s at ${options.connections} connections per case; cases: ${[...only].join(', ')}`)
if (only.has('pglite')) await embedded()
if (only.has('postgres')) await postgres(1)
if (only.has('two')) await postgres(2)
if (only.has('db-cut')) await databaseCut(options)
if (only.has('redis-cut')) await redisCut()
if (only.has('kill-upload')) await killMidUpload(values.blobs === 'file' ? 'file' : 's3')
