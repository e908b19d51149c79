// A load-generating process for bench/hub.bench.ts: it opens BENCH_COUNT official clients
// (@microsoft/signalr over WebSockets, or socket.io-client) spread over the BENCH_URLS servers, in
// batches, and then, by BENCH_MODE:
// - receive: records the delivery latency of every Tick (now − the sentAt it carries) in a histogram;
// - publish: one connection sends BENCH_RATE Broadcasts a second for BENCH_SECONDS;
// - idle: just holds the connections.
// It talks to the bench on stdout (one JSON line per event) and stdin ("report", "exit").
import { createInterface } from 'node:readline'
import * as signalR from '@microsoft/signalr'
import { io, type Socket } from 'socket.io-client'

const kind = process.env.BENCH_KIND ?? 'signalr'
const urls = (process.env.BENCH_URLS ?? '').split(',')
const count = Number(process.env.BENCH_COUNT ?? 1)
const mode = process.env.BENCH_MODE ?? 'receive'
const batch = Number(process.env.BENCH_BATCH ?? 200)
const tag = process.env.BENCH_TAG ?? String(process.pid)

/** Latency histogram in 0.1 ms buckets up to 60 s; later arrivals land in the last bucket. */
const BUCKET_MS = 0.1
const histogram = new Uint32Array(600_000)
let received = 0

const now = () => performance.timeOrigin + performance.now()

function onTick(sentAt: number) {
  received += 1
  histogram[Math.min(histogram.length - 1, Math.max(0, Math.round((now() - sentAt) / BUCKET_MS)))]! += 1
}

type Client = { send: (sentAt: number) => void; stop: () => Promise<void> }

async function openSignalR(url: string, id: number): Promise<Client> {
  const connection = new signalR.HubConnectionBuilder()
    .withUrl(`${url}/hub`, { transport: signalR.HttpTransportType.WebSockets, skipNegotiation: true, accessTokenFactory: () => `user-${tag}-${id}` })
    .withServerTimeout(120_000)
    .withKeepAliveInterval(60_000)
    .configureLogging(signalR.LogLevel.None)
    .build()
  if (mode === 'receive')
    connection.on('Tick', (sentAt: number) => {
      onTick(sentAt)
    })
  await connection.start()
  return { send: (sentAt) => void connection.send('Broadcast', sentAt), stop: () => connection.stop() }
}

async function openSocketIo(url: string): Promise<Client> {
  const socket: Socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false, timeout: 60_000 })
  if (mode === 'receive') socket.on('tick', onTick)
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('connect_error', reject)
  })
  return {
    send: (sentAt) => void socket.emit('broadcast', sentAt),
    stop: async () => void socket.disconnect(),
  }
}

const clients: Client[] = []
let failed = 0
let firstError: string | undefined
for (let start = 0; start < count; start += batch) {
  const opened = await Promise.allSettled(
    Array.from({ length: Math.min(batch, count - start) }, (_, offset) => {
      const id = start + offset
      const url = urls[id % urls.length]!
      return kind === 'socketio' ? openSocketIo(url) : openSignalR(url, id)
    }),
  )
  for (const result of opened) {
    if (result.status === 'fulfilled') clients.push(result.value)
    else {
      failed += 1
      firstError ??= String(result.reason)
    }
  }
  // Past the first failures the machine is out of something (descriptors, ports, memory): stop trying.
  if (failed > batch) break
}
console.log(JSON.stringify({ connected: clients.length, failed, firstError }))

if (mode === 'publish' && clients[0]) {
  const rate = Number(process.env.BENCH_RATE ?? 1000)
  const seconds = Number(process.env.BENCH_SECONDS ?? 10)
  const publisher = clients[0]
  const started = now()
  let sent = 0
  // Catch up every millisecond tick so the average rate holds even when timers fire late.
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = now() - started
      const due = Math.min(rate * seconds, Math.floor((elapsed / 1000) * rate))
      while (sent < due) {
        publisher.send(now())
        sent += 1
      }
      if (sent >= rate * seconds) {
        clearInterval(timer)
        resolve()
      }
    }, 1)
  })
  console.log(JSON.stringify({ sent, seconds: (now() - started) / 1000 }))
}

const commands = createInterface({ input: process.stdin })
commands.on('line', async (line) => {
  if (line === 'report') {
    const buckets: [number, number][] = []
    histogram.forEach((value, index) => {
      if (value > 0) buckets.push([index, value])
    })
    console.log(JSON.stringify({ received, buckets, bucketMs: BUCKET_MS }))
  }
  if (line === 'exit') {
    await Promise.allSettled(clients.map((client) => client.stop()))
    process.exit(0)
  }
})
