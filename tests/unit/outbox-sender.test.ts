import 'fake-indexeddb/auto'
import { expect, test } from 'vitest'
import { clearOutbox, openOutbox, type OutboxEntry } from '~/islands/sync/outbox'
import { flushOutbox, ITEM_CLOSED_REFUSAL, SENT_MARK_MS } from '~/islands/sync/outbox-sender'
import { fakeServer, photo, problem } from './upload-fake-server'

/**
 * Field mode's outbox against the fake upload server (tests/unit/upload-fake-server.ts) and
 * IndexedDB from fake-indexeddb: a response and its photos arrive once however often sending is
 * cut off, and a refusal keeps the user's text. The real server is in tests/e2e/field-mode.test.ts.
 */

let ownerSeq = 0
const newOwner = () => ({ userId: `u${++ownerSeq}`, tenantId: 't1' })

function entry(id: string, files: File[], body = 'Fire stopping done'): OutboxEntry {
  return {
    id,
    itemId: 'item-1',
    body,
    requestClose: true,
    storedPhotoIds: [],
    photos: files.map((file) => ({ name: file.name, type: file.type, blob: file, sessionId: null, photoId: null })),
    createdAtUtc: new Date().toISOString(),
    state: 'waiting',
    refusal: null,
  }
}

type Posted = { key: string | null; body: { body: string; photoIds: string[]; requestClose: boolean } }

function withResponses(server: ReturnType<typeof fakeServer>, answer: (posted: Posted) => 'drop-after' | Response | undefined) {
  const posted: Posted[] = []
  const original = server.intercept
  server.intercept = (method, path, body) => {
    if (method === 'POST' && path.endsWith('/responses')) {
      const request = { key: null, body: JSON.parse(new TextDecoder().decode(body ?? new Uint8Array())) } as Posted
      posted.push(request)
      const result = answer(request)
      // The server stored it, but the answer never came back.
      if (result === 'drop-after') return 'drop'
      return result ?? new Response(JSON.stringify({ id: `r${posted.length}` }), { status: 201, headers: { 'content-type': 'application/json' } })
    }
    return original(method, path, body)
  }
  return posted
}

test('a cut connection stops the pass; the next one resumes each photo where it stood and sends the response once', async () => {
  const owner = newOwner()
  const server = fakeServer(1024)
  const posted = withResponses(server, () => undefined)
  const outbox = await openOutbox(owner)
  await outbox.put(entry('e1', [photo('a.jpg', 3000), photo('b.jpg', 3000)]))
  // The connection goes during the second photo's second chunk, and stays away.
  let chunks = 0
  const base = server.intercept
  server.intercept = (method, path, body) => (path.includes('/chunk') && ++chunks >= 5 ? 'drop' : base(method, path, body))
  const first = await flushOutbox(outbox, server.client, server.api)
  expect(first).toMatchObject({ sent: [], refused: [], stopped: true })
  const [kept] = await outbox.list()
  expect(kept?.photos.map((p) => [p.photoId, Boolean(p.sessionId)])).toEqual([
    ['photo-of-a.jpg', true],
    [null, true],
  ])
  expect(posted).toHaveLength(0)

  server.intercept = base
  const second = await flushOutbox(outbox, server.client, server.api)
  expect(second.sent.map((e) => e.id)).toEqual(['e1'])
  expect(server.sessions.size).toBe(2)
  expect(posted).toHaveLength(1)
  expect(posted[0]?.body).toEqual({ body: 'Fire stopping done', requestClose: true, photoIds: ['photo-of-a.jpg', 'photo-of-b.jpg'] })
  expect(await outbox.unsent()).toBe(0)
  outbox.close()
  await clearOutbox(owner)
})

test('an answer lost after the server stored the response: the retry carries the same Idempotency-Key', async () => {
  const owner = newOwner()
  const server = fakeServer()
  const keys: (string | null)[] = []
  let attempts = 0
  withResponses(server, () => (++attempts === 1 ? 'drop-after' : undefined))
  const base = server.intercept
  server.intercept = (method, path, body) => base(method, path, body)
  // The key travels in a header: read it from the requests the client builds.
  const client = server.client
  const post = client.POST.bind(client) as (path: string, init?: { idempotencyKey?: string | true }) => ReturnType<typeof client.POST>
  client.POST = ((path: string, init?: { idempotencyKey?: string | true }) => {
    if (path.endsWith('/responses')) keys.push(typeof init?.idempotencyKey === 'string' ? init.idempotencyKey : null)
    return post(path, init)
  }) as typeof client.POST
  const outbox = await openOutbox(owner)
  await outbox.put(entry('e-key', []))
  // The client retries a dropped idempotent call itself; either way every attempt has the entry's key.
  await flushOutbox(outbox, client, server.api)
  await flushOutbox(outbox, client, server.api)
  expect(keys.length).toBeGreaterThan(0)
  expect(new Set(keys)).toEqual(new Set(['e-key']))
  expect(await outbox.unsent()).toBe(0)
  outbox.close()
  await clearOutbox(owner)
})

test('the item was closed meanwhile: the entry stays, refused, with the text the user wrote', async () => {
  const owner = newOwner()
  const server = fakeServer()
  withResponses(server, () => problem(409, 'KR_ITEM_CLOSED'))
  const outbox = await openOutbox(owner)
  await outbox.put(entry('e-closed', [], 'Sealed the riser penetration'))
  await outbox.put({ ...entry('e-later', [], 'Second note'), createdAtUtc: '2999-01-01T00:00:00.000Z' })
  const result = await flushOutbox(outbox, server.client, server.api)
  expect(result.refused.map((e) => e.id)).toEqual(['e-closed', 'e-later'])
  const kept = await outbox.list('item-1')
  expect(kept.map((e) => [e.state, e.body, e.refusal])).toEqual([
    ['refused', 'Sealed the riser penetration', ITEM_CLOSED_REFUSAL],
    ['refused', 'Second note', ITEM_CLOSED_REFUSAL],
  ])
  // A refused entry is not sent again; it waits for the user to read and discard it.
  const again = await flushOutbox(outbox, server.client, server.api)
  expect(again).toEqual({ sent: [], refused: [], stopped: false })
  outbox.close()
  await clearOutbox(owner)
})

test('a server that is down stops the pass and keeps everything waiting', async () => {
  const owner = newOwner()
  const server = fakeServer()
  withResponses(server, () => problem(503, 'KR_UNAVAILABLE'))
  const outbox = await openOutbox(owner)
  await outbox.put(entry('e-down', []))
  const result = await flushOutbox(outbox, server.client, server.api)
  expect(result.stopped).toBe(true)
  expect((await outbox.list()).map((e) => e.state)).toEqual(['waiting'])
  outbox.close()
  await clearOutbox(owner)
})

test('a sent entry stays marked as sent for a while, then goes', async () => {
  const owner = newOwner()
  const server = fakeServer()
  withResponses(server, () => undefined)
  const outbox = await openOutbox(owner)
  await outbox.put(entry('e-mark', []))
  await flushOutbox(outbox, server.client, server.api)
  expect((await outbox.list()).map((e) => e.state)).toEqual(['sent'])
  expect(await outbox.unsent()).toBe(0)
  await flushOutbox(outbox, server.client, server.api, Date.now() + SENT_MARK_MS + 1000)
  expect(await outbox.list()).toEqual([])
  outbox.close()
  await clearOutbox(owner)
})
