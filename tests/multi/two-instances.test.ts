import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { HubConnectionBuilder, LogLevel, type HubConnection } from '@microsoft/signalr'
import { sql } from 'drizzle-orm'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type DatabaseHandle } from '#server/db/client'
import { rowsOf } from '#server/db/tenancy'
import type { Photo } from '#server/domain/photos/photos'
import type { UploadSession } from '#server/domain/uploads/engine'
import { createMember, createSessionFor, TEST_PASSWORD, uniqueEmail, type TestMember } from '#tests/helpers/auth'
import type { TestBackend } from '#tests/helpers/backend'
import { startRoundRobinProxy, type ProxiedRequest, type RoundRobinProxy } from '#tests/helpers/round-robin-proxy'
import { startS3, type TestS3 } from '#tests/helpers/s3'
import { startSmtpServer, type TestSmtpServer } from '#tests/helpers/smtp'
import type { EntityChanged, JoinedRoom, PresenceChanged, RoomMessage } from '~/lib/realtime/events'
import {
  createTestDatabase,
  freePort,
  migrationsFolder,
  redisUrl,
  requireBuild,
  sleep,
  startInstance,
  webClient,
  type Instance,
  type TestDatabase,
  type WebClient,
} from './instances'

/**
 * Two server processes (the built app) set up as ops run them behind a load balancer (docs/
 * operations.md "Several instances"): one PostgreSQL database, this machine's Redis, a real
 * S3-compatible server (s3rver) for files, a real SMTP server for mail, and a round-robin proxy in
 * front whose address is their PUBLIC_URL. Every test shares this one set of instances; each makes
 * its own organisation and people. Through the proxy consecutive requests alternate between the
 * instances, so nothing here works unless each instance can carry on what the other began.
 */
const secret = randomBytes(32).toString('base64url')
const metricsToken = randomBytes(24).toString('base64url')

let database: TestDatabase
let handle: DatabaseHandle
let dataDir: string
let s3: TestS3
let smtp: TestSmtpServer
let proxy: RoundRobinProxy
/** Every request the proxy passed on, in the order they were answered. */
const proxied: ProxiedRequest[] = []
const instances: Instance[] = []
const open: HubConnection[] = []

beforeAll(async () => {
  requireBuild()
  database = await createTestDatabase()
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-multi-'))
  s3 = await startS3()
  smtp = await startSmtpServer({ auth: false })
  const ports = [await freePort(), await freePort()]
  proxy = await startRoundRobinProxy(
    ports.map((port) => `http://127.0.0.1:${port}`),
    { onProxied: (request) => proxied.push(request) },
  )
  const env = (name: string) => ({
    DATA_DIR: path.join(dataDir, name),
    DATABASE_URL: database.url,
    REDIS_URL: redisUrl,
    SESSION_SECRET: secret,
    PUBLIC_URL: proxy.url,
    TRUST_PROXY: 'true',
    SEED: 'false',
    SMTP_URL: `smtp://${smtp.host}:${smtp.port}`,
    MAIL_FROM: 'portal@example.test',
    METRICS_TOKEN: metricsToken,
    ...s3.env,
  })
  // One at a time: the first runs the migrations, the second finds them done.
  instances.push(await startInstance('one', env('one'), ports[0]))
  instances.push(await startInstance('two', env('two'), ports[1]))
  handle = await openDatabase({ dataDir: path.join(dataDir, 'test'), databaseUrl: database.url, migrationsFolder })
}, 120_000)

afterAll(async () => {
  await Promise.all(open.map((connection) => connection.stop().catch(() => undefined)))
  const exits = await Promise.all(instances.map(async (instance) => ({ instance, code: await instance.stop() })))
  await proxy?.close()
  await handle?.close()
  await smtp?.close()
  await s3?.stop()
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
  await database?.drop()
  for (const { instance, code } of exits) {
    if (code !== 0) throw new Error(`instance ${instance.name} did not stop cleanly (${code}):\n${instance.output()}`)
  }
}, 60_000)

/** The test helpers want a TestBackend; they only use its database and clock. */
const data = () => ({ db: handle.db, now: () => new Date() }) as unknown as TestBackend

type Person = TestMember & { session: { token: string; id: string } }

async function person(roleKey: 'admin' | 'read-write' | 'read-only', tenant?: TestMember['tenant']): Promise<Person> {
  const member = await createMember(handle.db, { roleKey, ...(tenant && { tenant }) })
  return { ...member, session: await createSessionFor(data(), member) }
}

/** The person's browser on one origin (an instance directly, or the proxy). */
const browserOf = (origin: string, who: Person) => webClient(origin, { secret, session: who.session })

const upstreamOf = (instance: Instance) => instance.baseUrl

/** An item to hang photos and messages on, made through the proxy. */
async function itemOf(writer: WebClient): Promise<{ id: string }> {
  const project = await writer.call<{ id: string }>('POST', '/api/projects', { title: `Tower ${randomUUID().slice(0, 6)}` })
  const report = await writer.call<{ id: string }>('POST', '/api/reports', { projectId: project.id, title: 'Walkround' })
  return writer.call<{ id: string }>('POST', `/api/reports/${report.id}/items`, { title: 'Loose handrail' })
}

/** `job_passes_total` of one instance, by job and outcome (GET /metrics with the token). */
async function jobPasses(instance: Instance): Promise<Map<string, number>> {
  const response = await fetch(`${instance.baseUrl}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })
  const text = await response.text()
  if (!response.ok) throw new Error(`GET /metrics on ${instance.name} → ${response.status}: ${text}`)
  const passes = new Map<string, number>()
  for (const [, labels = '', value] of text.matchAll(/^job_passes_total\{([^}]*)\} (\S+)$/gm)) {
    const job = /job="([^"]*)"/.exec(labels)?.[1]
    const outcome = /outcome="([^"]*)"/.exec(labels)?.[1]
    passes.set(`${job}/${outcome}`, Number(value))
  }
  return passes
}

const passesOf = (passes: Map<string, number>, job: string, outcome: string) => passes.get(`${job}/${outcome}`) ?? 0

describe('two instances behind a round-robin proxy', () => {
  it('signs in through one instance and carries on through the other: no sticky sessions', async () => {
    const member = await createMember(handle.db, { roleKey: 'read-write' })
    const browser = webClient(proxy.url)
    const from = proxied.length
    const signedIn = await browser.call<{ userId: string }>('POST', '/auth/login', { email: member.user.email, password: TEST_PASSWORD })
    expect(signedIn.userId).toBe(member.user.id)
    const login = proxied.slice(from).find((r) => r.url === '/auth/login')
    expect(login?.status).toBe(200)

    const afterLogin = proxied.length
    const project = await browser.call<{ id: string }>('POST', '/api/projects', { title: `Signed in ${randomUUID().slice(0, 6)}` })
    expect((await browser.call<{ userId: string }>('GET', '/auth/session')).userId).toBe(member.user.id)
    await browser.call('GET', `/api/projects/${project.id}`)
    const later = proxied.slice(afterLogin)
    expect(later).toHaveLength(3)
    expect(later.every((r) => typeof r.status === 'number' && r.status < 300)).toBe(true)
    // The session signed in on one instance served requests on the other.
    expect(later.some((r) => r.upstream !== login?.upstream)).toBe(true)
  })

  it('uploads a photo in chunks alternating between the instances; each serves the same bytes, with Range', async () => {
    const writer = await person('read-write')
    const throughProxy = browserOf(proxy.url, writer)
    const item = await itemOf(throughProxy)
    // Noise does not compress: a real image of a few hundred kB.
    const image = await sharp({ create: { width: 360, height: 240, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
      .png()
      .toBuffer()
    const sha256 = createHash('sha256').update(image).digest('hex')
    const upload = await throughProxy.call<UploadSession>('POST', `/api/items/${item.id}/uploads`, { fileName: 'noise.png', size: image.length, contentType: 'image/png', checksum: sha256 })
    const from = proxied.length
    const step = Math.ceil(image.length / 4)
    for (let offset = 0; offset < image.length; offset += step) {
      const response = await throughProxy.request(`/api/uploads/${upload.id}/chunk?offset=${offset}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/octet-stream' },
        body: image.subarray(offset, offset + step),
      })
      expect(response.status, await response.clone().text()).toBe(200)
    }
    const chunks = proxied.slice(from).filter((r) => r.url.startsWith(`/api/uploads/${upload.id}/chunk`))
    expect(chunks).toHaveLength(4)
    expect(new Set(chunks.map((r) => r.upstream))).toEqual(new Set(instances.map(upstreamOf)))
    const photo = await throughProxy.call<Photo>('POST', `/api/uploads/${upload.id}/complete`)
    expect(photo.sha256).toBe(sha256)

    let thumbnail: Buffer | undefined
    for (const instance of instances) {
      const direct = browserOf(instance.baseUrl, writer)
      const original = await direct.request(`/api/photos/${photo.id}/original`)
      expect(original.status).toBe(200)
      expect(createHash('sha256').update(Buffer.from(await original.arrayBuffer())).digest('hex')).toBe(sha256)
      const range = await direct.request(`/api/photos/${photo.id}/original`, { headers: { range: 'bytes=100-1099' } })
      expect(range.status).toBe(206)
      expect(range.headers.get('content-range')).toBe(`bytes 100-1099/${image.length}`)
      expect(Buffer.from(await range.arrayBuffer()).equals(image.subarray(100, 1100))).toBe(true)
      const small = await direct.request(`/api/photos/${photo.id}/thumbnail`)
      expect(small.status).toBe(200)
      const bytes = Buffer.from(await small.arrayBuffer())
      if (thumbnail) expect(bytes.equals(thumbnail)).toBe(true)
      thumbnail = bytes
    }
  })

  it('delivers messages, presence and EntityChanged across instances through Redis, exactly once, to the tenant only', async () => {
    const [one, two] = instances as [Instance, Instance]
    const writer = await person('read-write')
    const reader = await person('read-only', writer.tenant)
    const stranger = await person('admin')
    const item = await itemOf(browserOf(one.baseUrl, writer))
    const room = `item:${item.id}`

    const onOne = await connect(one, writer)
    const onTwo = await connect(two, reader)
    const strangerOnTwo = await connect(two, stranger)
    const messagesOnTwo = collect<RoomMessage>(onTwo, 'ReceiveMessage')
    const messagesOnOne = collect<RoomMessage>(onOne, 'ReceiveMessage')
    const presenceOnOne = collect<PresenceChanged>(onOne, 'PresenceChanged')
    const changesOnTwo = collect<EntityChanged>(onTwo, 'EntityChanged')
    const strangerChanges = collect<EntityChanged>(strangerOnTwo, 'EntityChanged')
    const strangerMessages = collect<RoomMessage>(strangerOnTwo, 'ReceiveMessage')

    await onOne.invoke<JoinedRoom>('JoinRoom', room)
    const joined = await onTwo.invoke<JoinedRoom>('JoinRoom', room)
    // Presence is shared: the instance-two joiner sees the instance-one member already there.
    expect(joined.members.map((m) => m.userId).sort()).toEqual([writer.user.id, reader.user.id].sort())
    await presenceOnOne.next((p) => p.members.length === 2)
    await expect(strangerOnTwo.invoke('JoinRoom', room)).rejects.toThrow(/HubException: You cannot join this room/)

    // A message sent on instance one reaches instance two once; and back.
    const sent = await onOne.invoke<RoomMessage>('SendMessage', room, 'Handrail tagged out')
    await messagesOnTwo.next((m) => m.id === sent.id)
    const reply = await onTwo.invoke<RoomMessage>('SendMessage', room, 'Seen, thanks')
    await messagesOnOne.next((m) => m.id === reply.id)

    // A change committed through instance one's API reaches a client on instance two.
    await browserOf(one.baseUrl, writer).call('POST', `/api/items/${item.id}/responses`, { body: 'Fixed with new brackets' })
    const changed = await changesOnTwo.next((e) => e.entityId === item.id && e.changeType === 'Updated')
    expect(changed).toMatchObject({ entityType: 'ReportItem', changedBy: { userId: writer.user.id } })

    // A later marker proves everything before it has arrived: then count, no duplicates.
    const marker = await onOne.invoke<RoomMessage>('SendMessage', room, 'marker')
    await messagesOnTwo.next((m) => m.id === marker.id)
    await sleep(300)
    expect(messagesOnTwo.seen.filter((m) => m.id === sent.id)).toHaveLength(1)
    expect(messagesOnOne.seen.filter((m) => m.id === reply.id)).toHaveLength(1)
    expect(changesOnTwo.seen.filter((e) => e.revision === changed.revision)).toHaveLength(1)

    // Another tenant on the same instance saw none of it.
    expect(strangerChanges.seen).toEqual([])
    expect(strangerMessages.seen).toEqual([])

    // Dropping on instance two tells instance one.
    const beforeDrop = presenceOnOne.seen.length
    await onTwo.stop()
    await presenceOnOne.next((p) => p.members.length === 1, beforeDrop)
  })

  it('connects to the hub through the proxy: negotiate on one instance, the WebSocket on the other', async () => {
    const writer = await person('read-write')
    const reader = await person('read-only', writer.tenant)
    const item = await itemOf(browserOf(proxy.url, writer))
    const from = proxied.length
    const viaProxy = await connect(proxy.url, reader)
    const changes = collect<EntityChanged>(viaProxy, 'EntityChanged')
    const hub = proxied.slice(from).filter((r) => r.url.startsWith('/hub/realtime'))
    expect(hub.map((r) => r.status)).toEqual([200, 'upgrade'])
    expect(hub[0]?.upstream).not.toBe(hub[1]?.upstream)
    await browserOf(proxy.url, writer).call('POST', `/api/items/${item.id}/responses`, { body: 'Seen through the proxy' })
    await changes.next((e) => e.entityId === item.id)
  })

  it('sends a mail once, though both instances run the outbox worker', async () => {
    const admin = await person('admin')
    const invited = uniqueEmail('invited')
    await browserOf(proxy.url, admin).call('POST', '/api/admin/invites', { email: invited, roleKey: 'read-write' })
    await smtp.waitFor((mail) => mail.to.includes(invited), 15_000)
    // Both workers have looked at the outbox twice more since (a pass, or a pass skipped because the other held the lease).
    const worked = (passes: Map<string, number>) => passesOf(passes, 'mail delivery pass', 'ok') + passesOf(passes, 'mail delivery pass', 'skipped')
    const before = await Promise.all(instances.map(async (instance) => worked(await jobPasses(instance))))
    for (const [i, instance] of instances.entries()) {
      for (let polls = 0; worked(await jobPasses(instance)) < (before[i] ?? 0) + 2; polls++) {
        if (polls > 100) throw new Error(`instance ${instance.name}'s mail worker made no passes`)
        await sleep(100)
      }
    }
    expect(smtp.messages.filter((mail) => mail.to.includes(invited))).toHaveLength(1)
  })

  it('runs a background job once between them: the lease holder runs the pass, the other skips it', async () => {
    // The upload purge runs at start: on the first instance, and no more until its interval (10 minutes) is over.
    const passes = await Promise.all(instances.map(jobPasses))
    const total = (outcome: string) => passes.reduce((sum, p) => sum + passesOf(p, 'upload purge pass', outcome), 0)
    expect({ ok: total('ok'), skipped: total('skipped'), failed: total('failed') }).toEqual({ ok: 1, skipped: 1, failed: 0 })
    const leases = rowsOf<{ holder: string; rests: boolean }>(
      await handle.db.execute(sql`select holder, expires_at > now() as rests from job_leases where name = 'upload purge pass'`),
    )
    expect(leases).toHaveLength(1)
    const pids = instances.map((instance) => String(instance.child.pid))
    expect(pids).toContain(leases[0]?.holder.split('/')[1])
    expect(leases[0]?.rests).toBe(true)
  })

  it('shares the rate limits: failed sign-ins through both instances add up to the limit', async () => {
    const member = await createMember(handle.db, { roleKey: 'read-write' })
    const browser = webClient(proxy.url)
    const from = proxied.length
    const statuses: number[] = []
    for (let attempt = 1; attempt <= 5; attempt++) {
      const response = await browser.request('/auth/login', { method: 'POST', json: { email: member.user.email, password: `wrong-${attempt}` } })
      statuses.push(response.status)
    }
    // Five wrong passwords from one client lock the account for it (docs/decisions/005), wherever they landed.
    expect(statuses).toEqual([401, 401, 401, 401, 429])
    const logins = proxied.slice(from).filter((r) => r.url === '/auth/login')
    expect(new Set(logins.map((r) => r.upstream))).toEqual(new Set(instances.map(upstreamOf)))
    // The right password now, on whichever instance: still locked.
    expect((await browser.request('/auth/login', { method: 'POST', json: { email: member.user.email, password: TEST_PASSWORD } })).status).toBe(429)
  })
})

async function connect(target: Instance | string, who: Person): Promise<HubConnection> {
  const origin = typeof target === 'string' ? target : target.baseUrl
  const connection = new HubConnectionBuilder()
    .withUrl(`${origin}/hub/realtime`, { accessTokenFactory: () => who.session.token })
    .configureLogging(LogLevel.None)
    .build()
  open.push(connection)
  await connection.start()
  return connection
}

function collect<T>(connection: HubConnection, event: string) {
  const seen: T[] = []
  connection.on(event, (value: T) => {
    seen.push(value)
  })
  return {
    seen,
    /** The first event from index `from` on that matches (so an earlier one never answers for a later wait). */
    async next(match: (value: T) => boolean, from = 0, timeoutMs = 8_000): Promise<T> {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const found = seen.slice(from).find(match)
        if (found) return found
        if (Date.now() > deadline) throw new Error(`no ${event} matching within ${timeoutMs} ms; seen ${JSON.stringify(seen)}`)
        await sleep(25)
      }
    },
  }
}
