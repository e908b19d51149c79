import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { HubConnectionBuilder, HubConnectionState, LogLevel, type HubConnection } from '@microsoft/signalr'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { sessions, users } from '#server/db/schema'
import { withTenant } from '#server/db/tenancy'
import { recordChange } from '#server/domain/tenancy/change-log'
import { createLogger } from '#server/http/logger'
import { createMemoryBackplane } from '#server/realtime/memory-backplane'
import { createMemoryPresence } from '#server/realtime/memory-presence'
import { createPortalHub, type PortalHub } from '#server/realtime/portal-hub'
import { attachHubUpgrades, hubRequestListener } from '#server/realtime/start'
import { createMember, createSessionFor, type TestMember } from '#tests/helpers/auth'
import { createTestBackend, TEST_ORIGIN, type TestBackend } from '#tests/helpers/backend'
import { pngImage, uploadPhoto } from '#tests/helpers/photos'
import { body, newProject, newReport, organisation, signedMember, type Signed } from '#tests/helpers/reporting-a'
import type { EntityChanged, JoinedRoom, PresenceChanged, RoomMessage } from '~/lib/realtime/events'
import type { Item } from '~/lib/reporting/types'

/**
 * The portal's hub (server/realtime/portal-hub.ts) on a real database with the official client as
 * the peer: who may connect, tenant groups, rooms and their discussion, presence, EntityChanged
 * from committed changes only, and sessions that end closing their connections.
 */
let t: TestBackend
let realtime: PortalHub
let server: Server
let base: string
const open: HubConnection[] = []

beforeAll(async () => {
  t = await createTestBackend()
  realtime = createPortalHub({
    config: t.config,
    db: t.db,
    logger: createLogger('silent'),
    now: t.now,
    backplane: createMemoryBackplane(),
    presence: createMemoryPresence({ ttlMs: 30_000 }),
    timings: { keepAliveMs: 500, clientTimeoutMs: 3_000 },
    sessionCheckMs: 200,
    presenceRefreshMs: 500,
  })
  server = createServer(
    hubRequestListener(realtime, (_req, res) => {
      res.statusCode = 404
      res.end()
    }),
  )
  attachHubUpgrades(server, realtime)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await Promise.all(open.map((connection) => connection.stop().catch(() => undefined)))
  await realtime?.drain()
  await new Promise((resolve) => server?.close(resolve))
  await t?.close()
})

/** An official client signed in with the session token as a bearer (the non-browser path). */
async function connect(token: string, options: { retry?: boolean } = {}): Promise<HubConnection> {
  let builder = new HubConnectionBuilder().withUrl(`${base}/hub/realtime`, { accessTokenFactory: () => token }).configureLogging(LogLevel.None)
  if (options.retry !== false) builder = builder.withAutomaticReconnect({ nextRetryDelayInMilliseconds: () => null })
  const connection = builder.build()
  connection.serverTimeoutInMilliseconds = 3_000
  connection.keepAliveIntervalInMilliseconds = 500
  open.push(connection)
  await connection.start()
  return connection
}

async function connectAs(member: TestMember): Promise<HubConnection> {
  const session = await createSessionFor(t, member)
  return connect(session.token)
}

/** Collects one event's arguments; `next` waits for the first one matching. */
function collect<T>(connection: HubConnection, event: string) {
  const seen: T[] = []
  const waiters: { match: (value: T) => boolean; resolve: (value: T) => void }[] = []
  connection.on(event, (value: T) => {
    seen.push(value)
    for (const waiter of waiters.splice(0)) {
      if (waiter.match(value)) waiter.resolve(value)
      else waiters.push(waiter)
    }
  })
  return {
    seen,
    /** The first event from index `from` on that matches (so an earlier one never answers for a later wait). */
    next(match: (value: T) => boolean = () => true, from = 0, timeoutMs = 5_000): Promise<T> {
      const already = seen.slice(from).find(match)
      if (already) return Promise.resolve(already)
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${event} matching within ${timeoutMs} ms; seen ${JSON.stringify(seen)}`)), timeoutMs)
        waiters.push({
          match,
          resolve: (value) => {
            clearTimeout(timer)
            resolve(value)
          },
        })
      })
    },
  }
}

async function newItem(member: Signed): Promise<Item> {
  const project = await newProject(member.c)
  const report = await newReport(member.c, project.id)
  return body<Item>(await member.c.post(`/api/reports/${report.id}/items`, { title: `Item ${randomUUID().slice(0, 6)}` }), 201)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('who may connect', () => {
  it('refuses a request without a session, with an unknown token, and a session still waiting for its second factor', async () => {
    await expect(connect('', { retry: false })).rejects.toThrow(/Status code '401'/)
    await expect(connect('not-a-session-token', { retry: false })).rejects.toThrow(/Status code '401'/)
    const member = await createMember(t.db, { roleKey: 'read-write' })
    const pending = await createSessionFor(t, member, { requiresMfa: true })
    await expect(connect(pending.token, { retry: false })).rejects.toThrow(/Status code '401'/)
  })

  it('accepts the session cookie of a browser on the same origin, and refuses a WebSocket from another site', async () => {
    const member = await createMember(t.db, { roleKey: 'read-only' })
    const session = await createSessionFor(t, member)
    const cookie = `${'sp_session'}=${session.token}`
    const viaCookie = new HubConnectionBuilder()
      .withUrl(`${base}/hub/realtime`, { headers: { cookie } })
      .configureLogging(LogLevel.None)
      .build()
    open.push(viaCookie)
    await viaCookie.start()
    expect(viaCookie.state).toBe(HubConnectionState.Connected)

    // Cross-site WebSocket hijacking: a page elsewhere cannot ride the visitor's cookie in.
    const hostile = await upgradeStatus({ cookie, origin: 'https://evil.example' })
    expect(hostile).toBe(403)
    const ours = await upgradeStatus({ cookie, origin: TEST_ORIGIN })
    expect(ours).toBe(101)
  })
})

/** The HTTP status a raw WebSocket upgrade to the hub (skipNegotiation path) gets. */
function upgradeStatus(headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const { origin, ...rest } = headers
    const socket = new WebSocket(`${base.replace('http', 'ws')}/hub/realtime`, { headers: rest, ...(origin && { origin }) })
    socket.on('upgrade', (response) => {
      resolve(response.statusCode ?? 0)
      socket.terminate()
    })
    socket.on('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0)
      socket.terminate()
    })
    socket.on('error', (error) => reject(error))
  })
}

describe('rooms, discussion and presence', () => {
  it('lets members of the tenant join an item room, talk in it and see who is there; refuses another tenant', async () => {
    const org = await organisation(t)
    const other = await signedMember(t, 'admin')
    const item = await newItem(org.writer)
    const room = `item:${item.id}`

    const writer = await connectAs(org.writer)
    const reader = await connectAs(org.reader)
    const stranger = await connectAs(other)
    const writerMessages = collect<RoomMessage>(writer, 'ReceiveMessage')
    const readerMessages = collect<RoomMessage>(reader, 'ReceiveMessage')
    const strangerMessages = collect<RoomMessage>(stranger, 'ReceiveMessage')
    const writerPresence = collect<PresenceChanged>(writer, 'PresenceChanged')

    const joined = await writer.invoke<JoinedRoom>('JoinRoom', room)
    expect(joined).toMatchObject({ room, history: [], members: [{ userId: org.writer.user.id, connections: 1 }] })

    // Another tenant's room, an unknown record and a malformed name are refused alike, and join nothing.
    await expect(stranger.invoke('JoinRoom', room)).rejects.toThrow(/HubException: You cannot join this room/)
    await expect(stranger.invoke('JoinRoom', `item:${randomUUID()}`)).rejects.toThrow(/HubException: You cannot join this room/)
    await expect(stranger.invoke('JoinRoom', 'tenant:global')).rejects.toThrow(/HubException: You cannot join this room/)
    await expect(stranger.invoke('SendMessage', room, 'hello?')).rejects.toThrow(/HubException: Join the room/)

    await reader.invoke<JoinedRoom>('JoinRoom', room)
    const both = await writerPresence.next((p) => p.members.length === 2)
    expect(both.members.map((m) => m.userId).sort()).toEqual([org.writer.user.id, org.reader.user.id].sort())

    const sent = await writer.invoke<RoomMessage>('SendMessage', room, '  Scaffold tag missing on level 3  ')
    expect(sent).toMatchObject({ room, text: 'Scaffold tag missing on level 3', sender: { userId: org.writer.user.id, displayName: org.writer.user.displayName } })
    expect((await readerMessages.next()).id).toBe(sent.id)
    expect((await writerMessages.next()).id).toBe(sent.id)

    // Bad input answers a readable error and keeps the connection usable.
    await expect(writer.invoke('SendMessage', room, '   ')).rejects.toThrow(/HubException: A message cannot be blank\./)
    await expect(writer.invoke('SendMessage', room, 'x'.repeat(2001))).rejects.toThrow(/HubException: A message can be at most 2000 characters\./)
    await expect(writer.invoke('SendMessage', room)).rejects.toThrow("Failed to invoke 'SendMessage' due to an error on the server.")
    await expect(writer.invoke('Nope')).rejects.toThrow("Unknown hub method 'Nope'")

    // History: a later joiner sees what was said, oldest first.
    const late = await connectAs(org.admin)
    const history = await late.invoke<JoinedRoom>('JoinRoom', room)
    expect(history.history.map((m) => m.text)).toEqual(['Scaffold tag missing on level 3'])
    expect(history.members).toHaveLength(3)

    // Leaving and dropping both tell the others.
    const beforeLeave = writerPresence.seen.length
    await late.invoke('LeaveRoom', room)
    await writerPresence.next((p) => p.members.length === 2 && !p.members.some((m) => m.userId === org.admin.user.id), beforeLeave)
    const beforeDrop = writerPresence.seen.length
    await reader.stop()
    const alone = await writerPresence.next((p) => p.members.length === 1, beforeDrop)
    expect(alone.members[0]?.userId).toBe(org.writer.user.id)

    expect(strangerMessages.seen).toEqual([])
  })

  it('refuses a flood with a clear error, not a dropped connection', async () => {
    const org = await organisation(t)
    const item = await newItem(org.writer)
    const room = `item:${item.id}`
    const writer = await connectAs(org.writer)
    await writer.invoke('JoinRoom', room)
    const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => writer.invoke('SendMessage', room, `message ${i}`)))
    const refused = results.filter((r) => r.status === 'rejected')
    expect(refused.length).toBeGreaterThan(0)
    expect(String((refused[0] as PromiseRejectedResult).reason)).toMatch(/HubException: You are sending messages too quickly/)
    expect(writer.state).toBe(HubConnectionState.Connected)
  })
})

describe('EntityChanged', () => {
  it('announces committed changes to the tenant only, in order, with who made them', async () => {
    const org = await organisation(t)
    const other = await signedMember(t, 'admin')
    const watcher = await connectAs(org.reader)
    const stranger = await connectAs(other)
    const changes = collect<EntityChanged>(watcher, 'EntityChanged')
    const strangerChanges = collect<EntityChanged>(stranger, 'EntityChanged')

    const project = await newProject(org.writer.c)
    const created = await changes.next((e) => e.entityId === project.id)
    expect(created).toMatchObject({
      entityType: 'Project',
      changeType: 'Created',
      changedBy: { userId: org.writer.user.id, displayName: org.writer.user.displayName },
    })
    expect(created.revision).toBeGreaterThan(0)

    // The stranger's own tenant's change reaches them; the first tenant's never did.
    const theirs = await newProject(other.c)
    await strangerChanges.next((e) => e.entityId === theirs.id)
    expect(strangerChanges.seen.map((e) => e.entityId)).not.toContain(project.id)
    expect(changes.seen.map((e) => e.entityId)).not.toContain(theirs.id)
  })

  it("announces a change of an item's photos as an update of the item, at its unchanged revision", async () => {
    const org = await organisation(t)
    const item = await newItem(org.writer)
    const watcher = await connectAs(org.reader)
    const changes = collect<EntityChanged>(watcher, 'EntityChanged')
    const photo = await uploadPhoto(org.writer.c, item.id, pngImage())
    expect(await changes.next((e) => e.entityId === item.id)).toMatchObject({
      entityType: 'ReportItem',
      changeType: 'Updated',
      revision: item.revision,
      changedBy: { userId: org.writer.user.id },
    })
    expect((await body<Item>(await org.reader.c.get(`/api/items/${item.id}`), 200)).revision).toBe(item.revision)
    const seen = changes.seen.length
    expect((await org.writer.c.delete(`/api/photos/${photo.id}`)).status).toBe(204)
    await changes.next((e) => e.entityId === item.id, seen)
  })

  it('never announces a change whose transaction rolled back', async () => {
    const org = await organisation(t)
    const watcher = await connectAs(org.reader)
    const changes = collect<EntityChanged>(watcher, 'EntityChanged')
    const ghost = randomUUID()
    await expect(
      withTenant(t.db, org.tenant.id, async (tx) => {
        await recordChange({ tx, actor: { tenantId: org.tenant.id, userId: org.admin.user.id, roleKey: 'admin' }, now: t.now() }, 'Project', ghost, 'Created')
        throw new Error('rolled back on purpose')
      }),
    ).rejects.toThrow('rolled back on purpose')
    const real = await newProject(org.writer.c)
    const announced = await changes.next((e) => e.entityId === real.id)
    expect(changes.seen.map((e) => e.entityId)).not.toContain(ghost)
    // The rolled-back change gave its revision back: the real one took it.
    expect(changes.seen.filter((e) => e.revision === announced.revision)).toHaveLength(1)
  })
})

describe('sessions that end', () => {
  it('closes the connections of a session that is signed out, and of a deactivated user, within seconds', async () => {
    const member = await createMember(t.db, { roleKey: 'read-write' })
    const first = await createSessionFor(t, member)
    const second = await createSessionFor(t, member)
    const a = await connect(first.token)
    const b = await connect(second.token)
    const closedA = new Promise<void>((resolve) => a.onclose(() => resolve()))
    await t.db.update(sessions).set({ revokedAt: t.now() }).where(eq(sessions.id, first.id))
    await closedA
    expect(b.state).toBe(HubConnectionState.Connected)

    const closedB = new Promise<void>((resolve) => b.onclose(() => resolve()))
    await t.db.update(users).set({ status: 'inactive' }).where(eq(users.id, member.user.id))
    await closedB
    await sleep(50)
    expect(a.state).toBe(HubConnectionState.Disconnected)
  })
})
