// The realtime hub under load (docs/performance.md "Realtime hub"), self-contained: servers and
// load generators run as child processes (bench/hub-server.ts, bench/hub-clients.ts) with a raised
// file-descriptor limit, the clients being the official @microsoft/signalr client over WebSockets.
// 1. Fan-out: --connections clients in one group, a publisher sending --rate messages/s for
//    --seconds; delivery latency p50/p99 and delivered/expected. The same against socket.io 4.8.
// 2. Two hub instances through Redis (127.0.0.1:6379 or BENCH_REDIS_URL): half the clients on each,
//    the publisher on the first.
// 3. Idle: up to --idle connections opened in batches; server RSS and heap before and after.
// Flags: --connections 2000 --rate 1000 --seconds 10 --idle 20000 --client-processes 2.
// Run: npm run bench -- hub [--connections 200 --rate 200 --seconds 5 --idle 2000]
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import os from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    connections: { type: 'string', default: '2000' },
    rate: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '10' },
    idle: { type: 'string', default: '20000' },
    'client-processes': { type: 'string', default: '2' },
  },
})
const CONNECTIONS = Number(values.connections)
const RATE = Number(values.rate)
const SECONDS = Number(values.seconds)
const IDLE = Number(values.idle)
const CLIENT_PROCESSES = Number(values['client-processes'])
/** Idle connections per load-generating process. */
const IDLE_PER_PROCESS = 5_000
/** After the publisher stops, how long late deliveries may still arrive before counting. */
const DRAIN_MS = 3_000
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379'
const MB = 1024 * 1024
const benchDir = path.dirname(fileURLToPath(import.meta.url))
const rootDir = path.join(benchDir, '..')

type Kind = 'signalr' | 'socketio'
type Child = { process: ChildProcess; next: <T>(has: string) => Promise<T>; send: (line: string) => void; stop: () => Promise<void> }
type Fanout = { p50: number; p99: number; delivered: number; expected: number; receivers: number; sent: number; seconds: number }
type Stats = { rss: number; heapUsed: number; connections: number }

const children = new Set<Child>()
process.on('exit', () => {
  for (const child of children) child.process.kill('SIGKILL')
})

/** A child node process running a TypeScript file with tsx, its descriptor limit raised (never in the app). */
function start(file: string, env: Record<string, string>): Child {
  // As high as the hard limit allows when it is below 65,536 (a container may forbid raising it).
  const child = spawn(
    'sh',
    [
      '-c',
      '{ ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"; } && exec node --expose-gc --max-old-space-size=4096 --import tsx "$0"',
      path.join(benchDir, file),
    ],
    {
      cwd: rootDir,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  )
  const waiting: { has: string; resolve: (value: never) => void; reject: (error: Error) => void }[] = []
  const lines: Record<string, unknown>[] = []
  let exited: string | undefined
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let message: Record<string, unknown>
    try {
      message = JSON.parse(line)
    } catch {
      return console.log(`  [${file}] ${line}`)
    }
    const index = waiting.findIndex((waiter) => waiter.has in message)
    if (index === -1) return void lines.push(message)
    waiting.splice(index, 1)[0]!.resolve(message as never)
  })
  child.on('exit', (code, signal) => {
    exited = `${file} exited (${signal ?? code})`
    for (const waiter of waiting.splice(0)) waiter.reject(new Error(exited))
  })
  const handle: Child = {
    process: child,
    next: <T>(has: string) => {
      const index = lines.findIndex((line) => has in line)
      if (index !== -1) return Promise.resolve(lines.splice(index, 1)[0] as T)
      if (exited) return Promise.reject(new Error(exited))
      return new Promise<T>((resolve, reject) => waiting.push({ has, resolve: resolve as (value: never) => void, reject }))
    },
    send: (line) => void child.stdin?.write(`${line}\n`),
    stop: async () => {
      children.delete(handle)
      if (exited) return
      const gone = new Promise((resolve) => child.once('exit', resolve))
      handle.send('exit')
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      if (file === 'hub-server.ts') child.kill('SIGTERM')
      await gone
      clearTimeout(timer)
    },
  }
  children.add(handle)
  return handle
}

async function server(kind: Kind, redis?: { prefix: string }) {
  const child = start('hub-server.ts', {
    BENCH_KIND: kind,
    ...(redis ? { BENCH_REDIS_URL: REDIS_URL, BENCH_CHANNEL_PREFIX: redis.prefix } : {}),
  })
  const { ready } = await child.next<{ ready: number }>('ready')
  const url = `http://127.0.0.1:${ready}`
  return { child, url, stats: async (): Promise<Stats> => (await fetch(`${url}/stats`)).json() as Promise<Stats> }
}

function clients(kind: Kind, urls: string[], count: number, mode: 'receive' | 'publish' | 'idle', tag: string) {
  return start('hub-clients.ts', {
    BENCH_KIND: kind,
    BENCH_URLS: urls.join(','),
    BENCH_COUNT: String(count),
    BENCH_MODE: mode,
    BENCH_RATE: String(RATE),
    BENCH_SECONDS: String(SECONDS),
    BENCH_TAG: tag,
  })
}

type Connected = { connected: number; failed: number; firstError?: string }

/** Receivers spread over the servers and the client processes, then one publisher on the first server. */
async function fanout(kind: Kind, urls: string[]): Promise<Fanout> {
  const share = Math.ceil(CONNECTIONS / CLIENT_PROCESSES)
  const receivers = Array.from({ length: CLIENT_PROCESSES }, (_, index) =>
    clients(kind, urls, Math.min(share, CONNECTIONS - share * index), 'receive', `r${index}`),
  )
  try {
    const opened = await Promise.all(receivers.map((child) => child.next<Connected>('connected')))
    const connected = opened.reduce((sum, result) => sum + result.connected, 0)
    const failure = opened.find((result) => result.firstError)?.firstError
    if (failure) console.log(`  ${opened.reduce((sum, result) => sum + result.failed, 0)} receivers failed to connect: ${failure}`)
    const publisher = clients(kind, [urls[0]!], 1, 'publish', 'publisher')
    const published = await publisher.next<Connected>('connected')
    if (published.connected !== 1) throw new Error(`the publisher could not connect: ${published.firstError}`)
    const { sent, seconds } = await publisher.next<{ sent: number; seconds: number }>('sent')
    await new Promise((resolve) => setTimeout(resolve, DRAIN_MS))
    for (const child of receivers) child.send('report')
    const reports = await Promise.all(receivers.map((child) => child.next<{ received: number; buckets: [number, number][]; bucketMs: number }>('received')))
    await publisher.stop()
    const merged = new Map<number, number>()
    for (const report of reports) for (const [bucket, value] of report.buckets) merged.set(bucket, (merged.get(bucket) ?? 0) + value)
    const delivered = reports.reduce((sum, report) => sum + report.received, 0)
    const bucketMs = reports[0]?.bucketMs ?? 0.1
    return {
      p50: percentile(merged, delivered, 0.5) * bucketMs,
      p99: percentile(merged, delivered, 0.99) * bucketMs,
      delivered,
      expected: sent * connected,
      receivers: connected,
      sent,
      seconds,
    }
  } finally {
    await Promise.all(receivers.map((child) => child.stop()))
  }
}

function percentile(histogram: Map<number, number>, total: number, fraction: number) {
  const rank = Math.ceil(total * fraction)
  let seen = 0
  for (const bucket of [...histogram.keys()].sort((a, b) => a - b)) {
    seen += histogram.get(bucket)!
    if (seen >= rank) return bucket
  }
  return Number.NaN
}

async function idle() {
  const hub = await server('signalr')
  try {
    const before = await hub.stats()
    const processes = Math.ceil(IDLE / IDLE_PER_PROCESS)
    const holders = Array.from({ length: processes }, (_, index) =>
      clients('signalr', [hub.url], Math.min(IDLE_PER_PROCESS, IDLE - IDLE_PER_PROCESS * index), 'idle', `idle${index}`),
    )
    const started = Date.now()
    // One process at a time, so a failure shows where the machine ran out rather than a thundering herd.
    const opened: Connected[] = []
    for (const holder of holders) opened.push(await holder.next<Connected>('connected'))
    const openSeconds = (Date.now() - started) / 1000
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    const after = await hub.stats()
    await Promise.all(holders.map((holder) => holder.stop()))
    const failure = opened.find((result) => result.firstError)?.firstError
    return { asked: IDLE, connected: after.connections, before, after, openSeconds, failure }
  } finally {
    await hub.child.stop()
  }
}

const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)} ms` : 'n/a')
const ratio = (result: Fanout) =>
  `${result.delivered.toLocaleString('en')}/${result.expected.toLocaleString('en')} (${((100 * result.delivered) / Math.max(1, result.expected)).toFixed(2)} %)`
const rows: string[] = []
const notes: string[] = []

async function scenario(name: string, run: () => Promise<Fanout>) {
  console.log(`\n${name}…`)
  try {
    const result = await run()
    const line = `| ${name} | ${result.receivers.toLocaleString('en')} | ${result.sent.toLocaleString('en')} in ${result.seconds.toFixed(1)} s | ${ms(result.p50)} | ${ms(result.p99)} | ${ratio(result)} |`
    console.log(line)
    rows.push(line)
    return result
  } catch (error) {
    const line = `| ${name} | failed: ${(error as Error).message} | | | | |`
    console.log(line)
    rows.push(line)
    return undefined
  }
}

const fdLimit = spawnSync('sh', ['-c', 'ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"; ulimit -n']).stdout.toString().trim()
notes.push(`File descriptors per process: ${fdLimit} (the bench raises the limit for its children; 65,536 asked).`)
console.log(
  `hub bench: ${CONNECTIONS} connections, ${RATE} msg/s for ${SECONDS} s, ${IDLE} idle; ${os.cpus().length} cores shared by servers and load generators`,
)

await scenario('SignalR hub, 1 instance', async () => {
  const hub = await server('signalr')
  try {
    return await fanout('signalr', [hub.url])
  } finally {
    await hub.child.stop()
  }
})
await scenario('socket.io 4.8, 1 instance', async () => {
  const io = await server('socketio')
  try {
    return await fanout('socketio', [io.url])
  } finally {
    await io.child.stop()
  }
})
await scenario('SignalR hub, 2 instances via Redis', async () => {
  const prefix = `bench:${randomUUID()}`
  const [one, two] = await Promise.all([server('signalr', { prefix }), server('signalr', { prefix })])
  try {
    return await fanout('signalr', [one.url, two.url])
  } finally {
    await Promise.all([one.child.stop(), two.child.stop()])
  }
})

console.log('\nidle connections…')
let idleLines: string[]
try {
  const result = await idle()
  const grown = (field: 'rss' | 'heapUsed') => (result.after[field] - result.before[field]) / Math.max(1, result.connected)
  idleLines = [
    `| Idle connections held | ${result.connected.toLocaleString('en')} of ${result.asked.toLocaleString('en')} asked (opened in ${result.openSeconds.toFixed(0)} s) |`,
    `| Server RSS before → after | ${(result.before.rss / MB).toFixed(0)} MB → ${(result.after.rss / MB).toFixed(0)} MB |`,
    `| Server heap before → after (after GC) | ${(result.before.heapUsed / MB).toFixed(0)} MB → ${(result.after.heapUsed / MB).toFixed(0)} MB |`,
    `| Per connection | ${(grown('rss') / 1024).toFixed(1)} KB RSS, ${(grown('heapUsed') / 1024).toFixed(1)} KB heap |`,
  ]
  if (result.failure) notes.push(`Idle: connecting stopped at: ${result.failure}`)
} catch (error) {
  idleLines = [`| Idle connections | failed: ${(error as Error).message} |`]
}
for (const line of idleLines) console.log(line)

const markdown = [
  '## Realtime hub (`npm run bench -- hub`)',
  '',
  `${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}. Servers and load generators share these cores, so the`,
  'figures are a floor, not the servers’ ceiling. Clients: the official `@microsoft/signalr` client over WebSockets',
  `(skipNegotiation) and socket.io-client over WebSockets, in ${CLIENT_PROCESSES} processes; latency = arrival − send timestamp, same machine.`,
  '',
  `Fan-out: ${CONNECTIONS.toLocaleString('en')} connections in one group, ${RATE.toLocaleString('en')} messages/s for ${SECONDS} s from one publisher connection.`,
  '',
  '| Server | Receivers | Sent | p50 | p99 | Delivered/expected |',
  '| --- | ---: | ---: | ---: | ---: | ---: |',
  ...rows,
  '',
  '| Idle (SignalR hub, 1 instance) | |',
  '| --- | --- |',
  ...idleLines,
  ...(notes.length > 0 ? ['', ...notes] : []),
]
console.log(`\n---- markdown for docs/performance.md ----\n${markdown.join('\n')}\n----`)
process.exit(0)
