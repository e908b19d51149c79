// The faults of bench/load.ts (docs/performance.md "Load and faults (issue 18)"), each with figures:
// PostgreSQL cut mid-load, Redis cut and back under two instances, an instance SIGKILLed in the
// middle of an upload. Cuts go through the TCP proxy of tests/helpers/tcp-proxy.ts.
import { createHash } from 'node:crypto'
import path from 'node:path'
import { HubConnectionBuilder, LogLevel, type HubConnection } from '@microsoft/signalr'
import sharp from 'sharp'
import type { RoomMessage, EntityChanged } from '~/lib/realtime/events'
import { startRoundRobinProxy, type ProxiedRequest } from '#tests/helpers/round-robin-proxy'
import { startS3, type TestS3 } from '#tests/helpers/s3'
import { targetOf, tcpProxy, throughProxy } from '#tests/helpers/tcp-proxy'
import { load, newTally, report, responseBody, writtenOf, writtenRows, type LoadOptions, type Tally } from './load-mix'
import { api, launch, postgresData, REDIS_URL, removeFolder, scratchFolder, sleep, uploadPhotos, type Instance, type Session } from './load-setup'

/** How long the database stays cut (the issue: "~5 s"). */
const CUT_MS = 5_000

/**
 * PostgreSQL cut for ~5 s in the middle of the mix (one instance): what answered while it was gone,
 * how long the longest request took, how soon calls succeeded again once it was back, and whether
 * any response was written twice when the writes that failed were sent again with their keys.
 */
export async function databaseCut(options: LoadOptions): Promise<void> {
  const seconds = Math.max(options.seconds, 10)
  const cutAfterMs = Math.round(seconds * 300)
  const cutForMs = Math.min(CUT_MS, Math.round(seconds * 300))
  const dataDir = await scratchFolder()
  const data = await postgresData(path.join(dataDir, 'bench'))
  const proxy = await tcpProxy(targetOf(data.url, 5432))
  const server = await launch({ DATA_DIR: dataDir, DATABASE_URL: throughProxy(data.url, proxy) })
  try {
    await uploadPhotos(server.base, data.tenants)
    const session = data.tenants[0]?.sessions[0]
    if (!session) throw new Error('no session')
    const tally = newTally()
    const probe = startProbe(server.base, session)
    const run = load(server.base, data.tenants, tally, { ...options, seconds })
    await sleep(cutAfterMs)
    const cutAt = performance.now()
    await proxy.cut()
    await sleep(cutForMs)
    const restoredAt = performance.now()
    await proxy.restore()
    const result = await run
    const calls = await probe.stop()

    const firstRefusal = calls.find((call) => call.startedAt >= cutAt && call.status === 503)
    const afterRestore = calls.filter((call) => call.startedAt >= restoredAt)
    const firstSuccess = afterRestore.find((call) => call.status === 200)
    const lastFailure = afterRestore.filter((call) => call.status !== 200).at(-1)
    const retried = await retryUnacknowledged(server.base, tally)
    const { rows, duplicated } = await writtenRows(data.handle.db)
    const stuckWritten = await writtenOf(data.handle.db, retried.stuck)

    report(`PostgreSQL cut for ${(cutForMs / 1000).toFixed(0)} s after ${(cutAfterMs / 1000).toFixed(0)} s of ${seconds} s (one instance)`, result, [server], tally, rows)
    const ms = (value: number | undefined) => (value === undefined ? 'never' : `${Math.round(value)} ms`)
    console.log(
      `     probe (GET /api/projects every 100 ms): first 503 ${ms(firstRefusal && firstRefusal.endedAt - cutAt)} after the cut; ` +
        `first 200 ${ms(firstSuccess && firstSuccess.endedAt - restoredAt)} after the database returned; ` +
        `last failure ${lastFailure ? `${ms(lastFailure.endedAt - restoredAt)} after it` : 'none after it'}; slowest probe ${ms(Math.max(...calls.map((c) => c.endedAt - c.startedAt)))}`,
    )
    console.log(
      `     writes not acknowledged during the run: ${retried.total}, sent again with their keys after it: ${retried.applied} applied now, ` +
        `${retried.replayed} replayed (had been written), ${retried.stuck.length} still "in progress" (409 KR_IDEMPOTENCY_IN_PROGRESS: ` +
        `${stuckWritten} of them written, ${retried.stuck.length - stuckWritten} not), ${retried.other} other`,
    )
    console.log(`     rows ${rows} = acknowledged ${tally.acknowledged.size} + applied on retry ${retried.applied} + written without an answer ${rows - tally.acknowledged.size - retried.applied}; written twice: ${duplicated}`)
  } finally {
    await server.stop()
    await proxy.cut()
    await data.drop()
    await removeFolder(dataDir)
  }
}

type ProbeCall = { startedAt: number; endedAt: number; status: number | 'failed' }

/** GET /api/projects every 100 ms, one at a time, each bounded by 30 s, until stopped. */
function startProbe(base: string, session: Session): { stop(): Promise<ProbeCall[]> } {
  const calls: ProbeCall[] = []
  let running = true
  const loop = (async () => {
    while (running) {
      const startedAt = performance.now()
      const status = await fetch(`${base}/api/projects`, { headers: { ...session.headers, accept: 'application/json' }, signal: AbortSignal.timeout(30_000) }).then(
        async (response) => {
          await response.body?.cancel()
          return response.status
        },
        () => 'failed' as const,
      )
      calls.push({ startedAt, endedAt: performance.now(), status })
      await sleep(100)
    }
  })()
  return {
    async stop() {
      running = false
      await loop
      return calls
    },
  }
}

/** Sends every write that got no 201 again, with the same key and body, as a client retrying after Retry-After would. */
async function retryUnacknowledged(base: string, tally: Tally) {
  const outcome = { total: tally.unacknowledged.size, applied: 0, replayed: 0, stuck: [] as string[], other: 0 }
  for (const [key, attempt] of tally.unacknowledged) {
    const response = await fetch(`${base}/api/items/${attempt.itemId}/responses`, {
      method: 'POST',
      headers: { ...attempt.session.headers, accept: 'application/json', 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ body: responseBody(key) }),
    })
    const text = await response.text()
    if (response.status === 201 && response.headers.get('idempotent-replayed') === 'true') outcome.replayed++
    else if (response.status === 201) outcome.applied++
    else if (response.status === 409 && text.includes('KR_IDEMPOTENCY_IN_PROGRESS')) outcome.stuck.push(key)
    else outcome.other++
  }
  return outcome
}

/**
 * Two instances on PostgreSQL with Redis behind a cuttable proxy; two hub clients on instance one,
 * one on instance two, in one room. While Redis is away, room messages and EntityChanged still reach
 * the client on the same instance and not the other; once it is back, how soon they cross again.
 */
export async function redisCut(): Promise<void> {
  const dataDir = await scratchFolder()
  const data = await postgresData(path.join(dataDir, 'bench'))
  const redis = await tcpProxy(targetOf(REDIS_URL, 6379))
  const env = { DATA_DIR: dataDir, DATABASE_URL: data.url, REDIS_URL: `redis://127.0.0.1:${redis.port()}` }
  const one = await launch(env)
  const two = await launch(env)
  const hubs: HubConnection[] = []
  try {
    const tenant = data.tenants[0]
    const [s1, s2, s3] = tenant?.sessions ?? []
    const itemId = tenant?.itemIds[0]
    if (!tenant || !s1 || !s2 || !s3 || !itemId) throw new Error('no tenant data')
    const room = `item:${itemId}`
    const sender = await hubClient(one, s1, hubs)
    const local = await hubClient(one, s2, hubs)
    const remote = await hubClient(two, s3, hubs)
    const seen = { local: watch(local), remote: watch(remote) }
    for (const connection of [sender, local, remote]) await connection.invoke('JoinRoom', room)
    const first = await sender.invoke<RoomMessage>('SendMessage', room, 'before the cut')
    await until(() => seen.remote.messages.has(first.id), 10_000)

    await redis.cut()
    await sleep(1_000)
    // The hub allows a burst of five messages per connection, then one a second.
    const during: string[] = []
    for (let n = 0; n < 5; n++) during.push((await sender.invoke<RoomMessage>('SendMessage', room, `during the cut ${n}`)).id)
    await api(one.base, s1, 'POST', `/api/items/${itemId}/responses`, { json: { body: 'written during the Redis cut' } })
    await sleep(1_000)
    const localMessages = during.filter((id) => seen.local.messages.has(id)).length
    const remoteMessages = during.filter((id) => seen.remote.messages.has(id)).length
    const localChanges = seen.local.changes
    const remoteChanges = seen.remote.changes

    const restoredAt = performance.now()
    await redis.restore()
    // A write every 200 ms on instance one until the client on instance two hears of one.
    const before = seen.remote.changes
    let writesSent = 0
    while (seen.remote.changes === before && performance.now() - restoredAt < 60_000) {
      await api(one.base, s1, 'POST', `/api/items/${itemId}/responses`, { json: { body: `after the Redis cut ${writesSent++}` } })
      await sleep(200)
    }
    const crossedAfter = performance.now() - restoredAt
    const after = await sender.invoke<RoomMessage>('SendMessage', room, 'after the cut')
    await until(() => seen.remote.messages.has(after.id), 10_000)

    console.log('   Redis cut with two instances (hub clients: two on instance one, one on instance two, one room)')
    console.log(`     during the cut: room messages ${localMessages}/5 on the same instance, ${remoteMessages}/5 on the other; EntityChanged ${localChanges > 0 ? 'delivered' : 'not delivered'} on the same instance, ${remoteChanges > 0 ? 'delivered' : 'not delivered'} on the other`)
    console.log(`     Redis back: EntityChanged crossed instances again ${Math.round(crossedAfter)} ms after it returned (a write every 200 ms); a room message crossed after that too`)
  } finally {
    await Promise.all(hubs.map((hub) => hub.stop().catch(() => undefined)))
    await one.stop()
    await two.stop()
    await redis.cut()
    await data.drop()
    await removeFolder(dataDir)
  }
}

async function hubClient(instance: Instance, session: Session, hubs: HubConnection[]): Promise<HubConnection> {
  const connection = new HubConnectionBuilder()
    .withUrl(`${instance.base}/hub/realtime`, { accessTokenFactory: () => session.token })
    .configureLogging(LogLevel.None)
    .build()
  hubs.push(connection)
  await connection.start()
  return connection
}

function watch(connection: HubConnection) {
  const seen = { messages: new Set<string>(), changes: 0 }
  connection.on('ReceiveMessage', (message: RoomMessage) => seen.messages.add(message.id))
  connection.on('EntityChanged', (change: EntityChanged) => {
    if (change.entityType === 'ReportItem') seen.changes++
  })
  return seen
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`not within ${timeoutMs} ms`)
    await sleep(25)
  }
}

/**
 * Two instances behind the round-robin proxy sharing their files (S3, or one data folder with
 * `--blobs file`), a 20 MB photo uploaded in 8 MB chunks: the instance taking the second chunk is
 * SIGKILLed half-way through it and leaves the balancer. The client asks where to resume and goes
 * on with the other instance; the photo is whole. The killed instance, started again, serves it too.
 */
export async function killMidUpload(blobs: 'file' | 's3'): Promise<void> {
  const dataDir = await scratchFolder()
  const data = await postgresData(path.join(dataDir, 'bench'))
  let s3: TestS3 | undefined
  if (blobs === 's3') s3 = await startS3()
  const env = { DATA_DIR: dataDir, DATABASE_URL: data.url, REDIS_URL, TRUST_PROXY: 'true', ...s3?.env }
  const instances = [await launch(env), await launch(env)]
  const healthChecks: ProxiedRequest[] = []
  const balancer = await startRoundRobinProxy(
    instances.map((instance) => instance.base),
    { onProxied: (request) => request.url === '/api/health' && healthChecks.push(request) },
  )
  try {
    const tenant = data.tenants[0]
    const session = tenant?.sessions[0]
    const itemId = tenant?.itemIds[1]
    if (!session || !itemId) throw new Error('no tenant data')
    const bytes = await sharp({ create: { width: 2600, height: 2600, channels: 3, background: { r: 128, g: 128, b: 128 }, noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
      .png({ compressionLevel: 0 })
      .toBuffer()
    const upload = await api<{ id: string; chunkSize: number }>(balancer.url, session, 'POST', `/api/items/${itemId}/uploads`, { json: { fileName: 'kill.png', size: bytes.length, contentType: 'image/png' } })
    await api(balancer.url, session, 'PUT', `/api/uploads/${upload.id}/chunk?offset=0`, { bytes: bytes.subarray(0, upload.chunkSize) })

    // Round robin: the call after this one goes to the other upstream (told once its answer has ended).
    await fetch(`${balancer.url}/api/health`).then((response) => response.text())
    await until(() => healthChecks.length > 0, 5_000)
    const victim = instances.find((instance) => instance.base !== healthChecks[0]?.upstream)
    if (!victim) throw new Error('no instance to kill')
    const streamed = Math.floor(upload.chunkSize / 2)
    const chunk = slowBody(bytes.subarray(upload.chunkSize, upload.chunkSize * 2), streamed)
    const cut = fetch(`${balancer.url}/api/uploads/${upload.id}/chunk?offset=${upload.chunkSize}`, {
      method: 'PUT',
      headers: { ...session.headers, accept: 'application/json', 'content-type': 'application/octet-stream' },
      body: chunk.stream,
      duplex: 'half',
    } as RequestInit).then(
      (response) => response.status,
      () => 'failed',
    )
    await chunk.sent
    await sleep(500)
    victim.kill()
    balancer.remove(victim.base)
    chunk.end()
    const answer = await cut
    const killedAt = performance.now()

    const resumed = await resume(balancer.url, session, upload.id, bytes, upload.chunkSize)
    const photo = await api<{ id: string; originalUrl: string }>(balancer.url, session, 'POST', `/api/uploads/${upload.id}/complete`, { json: {} })
    const whole = sha256(await download(balancer.url, session, photo.originalUrl)) === sha256(bytes)
    const restarted = await launch(env)
    instances.push(restarted)
    const wholeOnRestarted = sha256(await download(restarted.base, session, photo.originalUrl)) === sha256(bytes)

    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`
    console.log(`   An instance SIGKILLed mid-upload (two instances behind the round-robin proxy, ${s3 ? 'S3 (s3rver)' : 'one shared data folder'} for files)`)
    console.log(`     ${mb(bytes.length)} photo in ${mb(upload.chunkSize)} chunks; killed after ${mb(upload.chunkSize + streamed)} had been sent; the cut chunk answered ${answer}`)
    console.log(
      `     resumed on the other instance at ${mb(resumed.offset)} (${mb(upload.chunkSize + streamed - resumed.offset)} sent again), ` +
        `${(resumed.waitedMs / 1000).toFixed(1)} s after the kill; meanwhile ${resumed.busy} refusals (409 KR_UPLOAD_BUSY while the killed writer's lease ran out)`,
    )
    console.log(`     completed; original sha256 equal: ${whole ? 'yes' : 'NO'} (read through the balancer), ${wholeOnRestarted ? 'yes' : 'NO'} (from the killed instance, started again); ${((performance.now() - killedAt) / 1000).toFixed(1)} s from kill to whole`)
  } finally {
    await balancer.close()
    for (const instance of instances) await instance.stop()
    await s3?.stop()
    await data.drop()
    await removeFolder(dataDir)
  }
}

/** A request body that sends its first `first` bytes, then holds until `end()`: a client still uploading. */
function slowBody(bytes: Uint8Array, first: number): { stream: ReadableStream<Uint8Array>; sent: Promise<void>; end(): void } {
  let end = () => {}
  let sent = () => {}
  const sentPromise = new Promise<void>((resolve) => (sent = resolve))
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes.subarray(0, first))
      end = () => {
        try {
          controller.error(new Error('the upload was cut'))
        } catch {
          // already closed
        }
      }
    },
    pull() {
      sent()
      return new Promise(() => {})
    },
  })
  return { stream, sent: sentPromise, end }
}

/**
 * Asks for the stored offset and sends the rest chunk by chunk. While the session is busy (the
 * killed writer's lease), an empty chunk asks again each second: a refused 8 MB body would be
 * cut off mid-send by the early answer.
 */
async function resume(base: string, session: Session, uploadId: string, bytes: Uint8Array, chunkSize: number): Promise<{ offset: number; waitedMs: number; busy: number }> {
  const started = performance.now()
  let busy = 0
  let free = false
  let resumedAt: number | undefined
  let firstAccepted: number | undefined
  let offset = (await api<{ offset: number }>(base, session, 'GET', `/api/uploads/${uploadId}`)).offset
  while (offset < bytes.length) {
    const response = await fetch(`${base}/api/uploads/${uploadId}/chunk?offset=${offset}`, {
      method: 'PUT',
      headers: { ...session.headers, accept: 'application/json', 'content-type': 'application/octet-stream' },
      body: (free ? bytes.subarray(offset, offset + chunkSize) : new Uint8Array()) as BodyInit,
    })
    const body = (await response.json()) as { offset?: number; expectedOffset?: number; code?: string }
    if (response.ok && body.offset !== undefined) {
      if (free) {
        firstAccepted ??= offset
        resumedAt ??= performance.now()
      }
      free = true
      offset = body.offset
    } else if (response.status === 409 && body.code === 'KR_UPLOAD_BUSY') {
      busy++
      await sleep(1_000)
    } else if (response.status === 409 && body.expectedOffset !== undefined) {
      offset = body.expectedOffset
    } else throw new Error(`chunk at ${offset}: ${response.status} ${JSON.stringify(body)}`)
  }
  return { offset: firstAccepted ?? offset, waitedMs: (resumedAt ?? performance.now()) - started, busy }
}

async function download(base: string, session: Session, url: string): Promise<Uint8Array> {
  const response = await fetch(new URL(url, base), { headers: session.headers })
  if (!response.ok) throw new Error(`GET ${url} → ${response.status}`)
  return new Uint8Array(await response.arrayBuffer())
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')
