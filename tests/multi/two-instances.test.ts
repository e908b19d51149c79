import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { HubConnectionBuilder, LogLevel, type HubConnection } from '@microsoft/signalr'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type DatabaseHandle } from '#server/db/client'
import { csrfBinding, mintCsrfToken } from '#server/http/csrf'
import { createMember, createSessionFor, type TestMember } from '#tests/helpers/auth'
import type { TestBackend } from '#tests/helpers/backend'
import { COOKIES, HEADERS } from '~/lib/constants'
import type { EntityChanged, JoinedRoom, PresenceChanged, RoomMessage } from '~/lib/realtime/events'

/**
 * Two server processes (the built app, `build/node/index.js`) on one PostgreSQL database and this
 * machine's Redis, with official SignalR clients on both: a message, presence and EntityChanged
 * produced on one instance reach clients on the other, exactly once; another tenant never sees
 * them. Run by `.ci/run` (TEST_DATABASE_URL and TEST_REDIS_URL); `npm run test:multi` by hand.
 */
const rootDir = fileURLToPath(new URL('../..', import.meta.url))
const serverEntry = path.join(rootDir, 'build/node/index.js')
const migrationsFolder = path.join(rootDir, 'server/db/migrations')
const serverUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const secret = randomBytes(32).toString('base64url')

type Instance = { baseUrl: string; child: ChildProcess; output: () => string; stop(): Promise<void> }

let databaseName: string
let databaseUrl: string
let handle: DatabaseHandle
let dataDir: string
const instances: Instance[] = []
const open: HubConnection[] = []

beforeAll(async () => {
  if (!existsSync(serverEntry)) throw new Error(`${serverEntry} is missing: run \`npm run build\` first.`)
  databaseName = `sp_multi_${randomBytes(6).toString('hex')}`
  await adminQuery(`create database "${databaseName}"`)
  const url = new URL(serverUrl)
  url.pathname = `/${databaseName}`
  databaseUrl = url.toString()
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-multi-'))
  // One at a time: the first runs the migrations, the second finds them done.
  instances.push(await startInstance('one'))
  instances.push(await startInstance('two'))
  handle = await openDatabase({ dataDir: path.join(dataDir, 'test'), databaseUrl, migrationsFolder })
}, 120_000)

afterAll(async () => {
  await Promise.all(open.map((connection) => connection.stop().catch(() => undefined)))
  for (const instance of instances) await instance.stop()
  await handle?.close()
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
  if (databaseName) await adminQuery(`drop database if exists "${databaseName}" with (force)`)
}, 60_000)

async function startInstance(name: string): Promise<Instance> {
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  const child = spawn(process.execPath, [serverEntry], {
    cwd: rootDir,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: path.join(dataDir, name),
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      SESSION_SECRET: secret,
      PUBLIC_URL: baseUrl,
      SEED: 'false',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-32_000)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`instance ${name} exited during start:\n${output}`)
    const healthy = await fetch(`${baseUrl}/api/health`).then((r) => r.ok).catch(() => false)
    if (healthy) break
    if (Date.now() > deadline) throw new Error(`instance ${name} did not answer in 60 s:\n${output}`)
    await sleep(200)
  }
  return {
    baseUrl,
    child,
    output: () => output,
    async stop() {
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
      const code = await exited
      clearTimeout(timer)
      process.off('exit', killOnExit)
      if (code !== 0) throw new Error(`instance ${name} did not stop cleanly (${code}):\n${output}`)
    },
  }
}

/** The test helpers want a TestBackend; they only use its database and clock. */
const data = () => ({ db: handle.db, now: () => new Date() }) as unknown as TestBackend

type Person = TestMember & { token: string; sessionId: string }

async function person(roleKey: 'admin' | 'read-write' | 'read-only', tenant?: TestMember['tenant']): Promise<Person> {
  const member = await createMember(handle.db, { roleKey, ...(tenant && { tenant }) })
  const session = await createSessionFor(data(), member)
  return { ...member, token: session.token, sessionId: session.id }
}

/** A signed-in JSON call to one instance, with the session cookie and its CSRF token. */
async function call<T>(instance: Instance, who: Person, method: string, pathname: string, json?: unknown): Promise<T> {
  const csrf = mintCsrfToken(secret, csrfBinding(who.sessionId))
  const response = await fetch(`${instance.baseUrl}${pathname}`, {
    method,
    headers: {
      accept: 'application/json',
      'content-type': 'application/json',
      cookie: `sp_session=${who.token}; ${COOKIES.csrf}=${csrf}`,
      [HEADERS.csrf]: csrf,
      origin: instance.baseUrl,
    },
    ...(json !== undefined && { body: JSON.stringify(json) }),
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${pathname} → ${response.status}: ${text}`)
  return JSON.parse(text) as T
}

async function connect(instance: Instance, who: Person): Promise<HubConnection> {
  const connection = new HubConnectionBuilder()
    .withUrl(`${instance.baseUrl}/hub/realtime`, { accessTokenFactory: () => who.token })
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

describe('two instances through Redis', () => {
  it('delivers messages, presence and EntityChanged across instances, exactly once, to the tenant only', async () => {
    const [one, two] = instances as [Instance, Instance]
    const writer = await person('read-write')
    const reader = await person('read-only', writer.tenant)
    const stranger = await person('admin')

    const project = await call<{ id: string }>(one, writer, 'POST', '/api/projects', { title: `Tower ${randomUUID().slice(0, 6)}` })
    const report = await call<{ id: string }>(one, writer, 'POST', '/api/reports', { projectId: project.id, title: 'Walkround' })
    const item = await call<{ id: string }>(one, writer, 'POST', `/api/reports/${report.id}/items`, { title: 'Loose handrail' })
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
    await call(one, writer, 'POST', `/api/items/${item.id}/responses`, { body: 'Fixed with new brackets' })
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
})

async function adminQuery(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

function freePort(): Promise<number> {
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
