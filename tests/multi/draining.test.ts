import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { connect as connectTcp } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { HubConnectionBuilder, LogLevel } from '@microsoft/signalr'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { openDatabase, type DatabaseHandle } from '#server/db/client'
import type { UploadSession } from '#server/domain/uploads/engine'
import { createMember, createSessionFor } from '#tests/helpers/auth'
import type { TestBackend } from '#tests/helpers/backend'
import { heldStream, pngImage } from '#tests/helpers/photos'
import { createTestDatabase, freePort, migrationsFolder, requireBuild, sleep, startInstance, webClient, type Instance, type TestDatabase } from './instances'

/**
 * Graceful shutdown of the built server (docs/operations.md "Stop"): SIGTERM arrives while a chunk
 * upload is still streaming in. New connections are refused at once, hub clients are told to
 * reconnect, the upload in flight still completes, and the process exits 0.
 */
const secret = randomBytes(32).toString('base64url')

let database: TestDatabase
let handle: DatabaseHandle
let dataDir: string
let instance: Instance

beforeAll(async () => {
  requireBuild()
  database = await createTestDatabase()
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-drain-'))
  const port = await freePort()
  instance = await startInstance(
    'draining',
    { DATA_DIR: path.join(dataDir, 'instance'), DATABASE_URL: database.url, SESSION_SECRET: secret, PUBLIC_URL: `http://127.0.0.1:${port}`, SEED: 'false' },
    port,
  )
  handle = await openDatabase({ dataDir: path.join(dataDir, 'test'), databaseUrl: database.url, migrationsFolder })
}, 120_000)

afterAll(async () => {
  await instance?.stop()
  await handle?.close()
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
  await database?.drop()
}, 60_000)

/** Whether a new TCP connection to the instance is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connectTcp(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(false)
    })
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'))
  })
}

test('SIGTERM during a chunk upload: new connections are refused, the hub asks clients to reconnect, the upload completes, exit 0', async () => {
  const member = await createMember(handle.db, { roleKey: 'read-write' })
  const session = await createSessionFor({ db: handle.db, now: () => new Date() } as unknown as TestBackend, member)
  const writer = webClient(instance.baseUrl, { secret, session })
  const project = await writer.call<{ id: string }>('POST', '/api/projects', { title: `Drain ${randomUUID().slice(0, 6)}` })
  const report = await writer.call<{ id: string }>('POST', '/api/reports', { projectId: project.id, title: 'Walkround' })
  const item = await writer.call<{ id: string }>('POST', `/api/reports/${report.id}/items`, { title: 'Loose handrail' })

  const hub = new HubConnectionBuilder()
    .withUrl(`${instance.baseUrl}/hub/realtime`, { accessTokenFactory: () => session.token })
    .withAutomaticReconnect([60_000])
    .configureLogging(LogLevel.None)
    .build()
  const toldToReconnect = new Promise<void>((resolve) => hub.onreconnecting(() => resolve()))
  await hub.start()

  const image = pngImage(40, 30, 9)
  const upload = await writer.call<UploadSession>('POST', `/api/items/${item.id}/uploads`, { fileName: 'site.png', size: image.length, contentType: 'image/png' })
  const held = heldStream(image.subarray(0, 40), image.subarray(40))
  const chunk = writer.request(`/api/uploads/${upload.id}/chunk?offset=0`, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: held.stream,
    duplex: 'half',
  } as RequestInit)
  // The chunk is in flight once its first bytes are stored.
  for (let polls = 0; (await writer.call<UploadSession>('GET', `/api/uploads/${upload.id}`)).offset === 0; polls++) {
    if (polls > 200) throw new Error('the chunk never started')
    await sleep(20)
  }

  instance.child.kill('SIGTERM')
  const port = Number(new URL(instance.baseUrl).port)
  for (let polls = 0; !(await refused(port)); polls++) {
    if (polls > 200) throw new Error(`new connections were still accepted after SIGTERM:\n${instance.output()}`)
    await sleep(20)
  }
  await toldToReconnect
  expect(instance.child.exitCode).toBeNull()

  held.release()
  const response = await chunk
  expect(response.status, await response.clone().text()).toBe(200)
  expect(((await response.json()) as UploadSession).offset).toBe(image.length)
  expect(await instance.exited).toBe(0)
  await hub.stop()
})
