/// <reference lib="webworker" />
import { openDB } from 'idb'
import { openLocalCopy, type LocalCopy, type Owner } from '~/islands/sync/local-copy'
import { withOutbox, type OutboxEntry, type OutboxPhoto } from '~/islands/sync/outbox'
import { flushOutbox } from '~/islands/sync/outbox-sender'
import type { FieldMessage, WorkerMessage } from '~/islands/sync/field-messages'
import { createUploadApi } from '~/islands/upload/upload-api'
import { MAX_PHOTO_BYTES } from '~/islands/upload/upload-chunks'
import { createApiClient } from '~/lib/api/client'
import { detectClientOs } from '~/lib/client-os'
import { HEADERS } from '~/lib/constants'
import { RESPONSE_BODY_MAX } from '~/lib/reporting/limits'
import { assignedPage, itemPage, missingPage, projectsPage, reportPage, type OfflineFrame } from './offline-pages'

/**
 * Field mode's service worker (issue 10, decision 009), registered only while mobile sync is on.
 * - Keeps the app's hashed assets (precached at install, the list injected by scripts/build-sw.mjs).
 * - Page loads go to the network; when none answers, the page is written from the offline copy
 *   (offline-pages.ts): the user's assigned items, their reports and projects.
 * - A response posted with no connection goes to the outbox and the item page says "Waiting to send".
 * - The outbox is sent when the connection is back: after any page load that reached the server, on
 *   Background Sync, and when a page asks (it does on load and on `online`).
 * Never touched: /api, /auth, /hub, /telemetry, /invite, and anything not a page or an asset.
 */

declare const self: ServiceWorkerGlobalScope
/** Injected by scripts/build-sw.mjs: the build's hashed assets and an id for this build. */
declare const __SW_ASSETS__: string[]
declare const __SW_BUILD__: string

const ASSET_CACHE = `site-portal-assets-${__SW_BUILD__}`
const PASS_THROUGH = ['/api/', '/auth/', '/hub/', '/telemetry/', '/invite/']
const ITEM_PATH = /^\/items\/([0-9a-f-]{36})\/?$/i
const REPORT_PATH = /^\/reports\/([0-9a-f-]{36})\/?$/i

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(ASSET_CACHE)
      await cache.addAll(__SW_ASSETS__)
      await self.skipWaiting()
    })(),
  )
})

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name.startsWith('site-portal-assets-') && name !== ASSET_CACHE) await caches.delete(name)
      await self.clients.claim()
    })(),
  )
})

self.addEventListener('fetch', (event) => {
  const request = event.request
  const url = new URL(request.url)
  if (url.origin !== self.location.origin) return
  if (request.method === 'GET' && url.pathname.startsWith('/assets/')) {
    event.respondWith(cachedAsset(request))
    return
  }
  if (request.mode !== 'navigate' || PASS_THROUGH.some((prefix) => url.pathname.startsWith(prefix))) return
  if (request.method === 'GET') event.respondWith(pageOrOffline(event, url))
  else if (request.method === 'POST' && ITEM_PATH.test(url.pathname)) event.respondWith(postOrQueue(event, url))
})

self.addEventListener('message', (event) => {
  const message = event.data as FieldMessage
  if (message?.type === 'owner') event.waitUntil(saveOwner({ owner: message.owner, clientId: message.clientId }).then(() => flush()))
  else if (message?.type === 'flush') event.waitUntil(flush())
  else if (message?.type === 'forget') event.waitUntil(saveOwner(null))
})

// Background Sync (Chromium): the browser wakes the worker when the connection is back, even with no tab open.
self.addEventListener('sync', (event: Event & { tag?: string; waitUntil?: (p: Promise<unknown>) => void }) => {
  if (event.tag === OUTBOX_SYNC_TAG) event.waitUntil?.(flush())
})
const OUTBOX_SYNC_TAG = 'site-portal-outbox'

async function cachedAsset(request: Request): Promise<Response> {
  const cache = await caches.open(ASSET_CACHE)
  const hit = await cache.match(request)
  if (hit) return hit
  const response = await fetch(request)
  if (response.ok) await cache.put(request, response.clone())
  return response
}

async function pageOrOffline(event: FetchEvent, url: URL): Promise<Response> {
  try {
    const response = await fetch(event.request)
    // The server answered: whatever waits in the outbox can go now.
    event.waitUntil(flush())
    return response
  } catch {
    return offlinePage(url)
  }
}

/** A response posted from an item page: to the server when it answers, else into the outbox. */
async function postOrQueue(event: FetchEvent, url: URL): Promise<Response> {
  const copy = event.request.clone()
  try {
    const response = await fetch(event.request)
    event.waitUntil(flush())
    return response
  } catch {
    const itemId = ITEM_PATH.exec(url.pathname)?.[1] ?? ''
    return queueResponse(itemId, await copy.formData())
  }
}

async function queueResponse(itemId: string, form: FormData): Promise<Response> {
  const stored = await loadOwner()
  const copy = stored ? await openLocalCopy(stored.owner) : undefined
  try {
    const item = await copy?.getItem(itemId)
    if (!stored || !copy || !item) return html(missingPage(await frame(copy), Boolean(copy)), 503)
    if (form.get('intent') !== 'respond') {
      return html(
        itemPage(await frame(copy), item, await outboxOf(stored.owner, itemId), {
          body: '',
          requestClose: false,
          errors: ['Only a response can be kept to send later. Try again when you have a connection.'],
        }),
        503,
      )
    }
    const body = String(form.get('body') ?? '')
    const requestClose = form.get('requestClose') === 'on' || form.get('requestClose') === 'true'
    const files = form.getAll('photos').filter((f): f is File => f instanceof File && f.size > 0)
    const { errors, parsed } = respondErrors(body, files)
    if (!parsed) return html(itemPage(await frame(copy), item, await outboxOf(stored.owner, itemId), { body, requestClose, errors }), 400)
    const photos: OutboxPhoto[] = files.map((file) => ({ name: file.name || 'photo', type: file.type, blob: file, sessionId: null, photoId: null }))
    const entry: OutboxEntry = {
      id: crypto.randomUUID(),
      itemId,
      body: parsed.body,
      requestClose: requestClose && item.status === 'open',
      storedPhotoIds: form.getAll('photoIds').map(String).filter(Boolean),
      photos,
      createdAtUtc: new Date().toISOString(),
      state: 'waiting',
      refusal: null,
    }
    await withOutbox(stored.owner, (outbox) => outbox.put(entry))
    await askForBackgroundSync()
    await tellPages({ type: 'outbox-changed', itemIds: [itemId] })
    return Response.redirect(new URL(`/items/${itemId}`, self.location.origin).href, 303)
  } finally {
    copy?.close()
  }
}

/**
 * The respond form's length rule and the upload limits, with RespondSchema's words. The worker has
 * no zod (it would be nine tenths of it): whatever else the server refuses comes back when the entry
 * is sent, and the entry is kept, refused, with the text.
 */
function respondErrors(body: string, files: File[]): { errors: string[]; parsed: { body: string } | null } {
  const text = body.trim()
  const errors: string[] = []
  if (!text) errors.push('Write your response.')
  else if (text.length > RESPONSE_BODY_MAX) errors.push(`Use at most ${RESPONSE_BODY_MAX} characters.`)
  for (const file of files) {
    if (file.type && !file.type.startsWith('image/')) errors.push(`${file.name} is not a photo.`)
    else if (file.size > MAX_PHOTO_BYTES) errors.push(`${file.name} is larger than ${MAX_PHOTO_BYTES / 1024 / 1024} MB.`)
  }
  return { errors, parsed: errors.length ? null : { body: text } }
}

async function askForBackgroundSync(): Promise<void> {
  const registration = self.registration as ServiceWorkerRegistration & { sync?: { register(tag: string): Promise<void> } }
  await registration.sync?.register(OUTBOX_SYNC_TAG).catch(() => undefined)
}

async function offlinePage(url: URL): Promise<Response> {
  const stored = await loadOwner()
  const copy = stored ? await openLocalCopy(stored.owner).catch(() => undefined) : undefined
  try {
    const shown = await frame(copy)
    if (!stored || !copy || !shown.lastSyncedAt) return html(missingPage(shown, false), 503)
    const itemId = ITEM_PATH.exec(url.pathname)?.[1]
    if (itemId) {
      const item = await copy.getItem(itemId)
      return item ? html(itemPage(shown, item, await outboxOf(stored.owner, itemId))) : html(missingPage(shown, true), 503)
    }
    const reportId = REPORT_PATH.exec(url.pathname)?.[1]
    if (reportId) {
      const report = await copy.getReport(reportId)
      return report
        ? html(
            reportPage(
              shown,
              report,
              (await copy.assignedItems()).filter((i) => i.reportId === reportId),
            ),
          )
        : html(missingPage(shown, true), 503)
    }
    if (url.pathname === '/projects' || url.pathname === '/projects/') {
      const items = await copy.assignedItems()
      const reportIds = [...new Set(items.map((i) => i.reportId))]
      const reports = (await Promise.all(reportIds.map((id) => copy.getReport(id)))).filter((r) => r !== undefined)
      const projectIds = [...new Set(reports.map((r) => r.projectId))]
      const projects = (await Promise.all(projectIds.map((id) => copy.getProject(id)))).filter((p) => p !== undefined)
      return html(projectsPage(shown, projects, reports))
    }
    return html(assignedPage(shown, await copy.assignedItems()))
  } finally {
    copy?.close()
  }
}

async function frame(copy: LocalCopy | undefined): Promise<OfflineFrame> {
  return { css: await stylesheet(), locale: self.navigator.language || 'en-GB', lastSyncedAt: copy ? await copy.lastSyncedAt() : null }
}

/** The app's stylesheet from the asset cache (the online pages inline the same file). */
async function stylesheet(): Promise<string> {
  const path = __SW_ASSETS__.find((asset) => asset.endsWith('.css'))
  const hit = path ? await caches.match(path) : undefined
  return hit ? hit.text() : ''
}

function html(markup: string, status = 200): Response {
  return new Response(markup, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      // The offline pages run no script at all.
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    },
  })
}

async function outboxOf(owner: Owner, itemId: string): Promise<OutboxEntry[]> {
  return (await withOutbox(owner, (outbox) => outbox.list(itemId))).filter((entry) => entry.state !== 'sent')
}

// Who is signed in on this device, as the last page told the worker (and its client id).
type StoredOwner = { owner: Owner; clientId: string }

/**
 * Version 2 only makes sure 'meta' exists: a database opened at version 1 by anything else before
 * the worker (a page, a test's probe) had no store, and version 1 never upgrades again, so the
 * worker could never learn who is signed in on that device.
 */
function fieldDb() {
  return openDB('site-portal-field', 2, {
    upgrade(database) {
      if (!database.objectStoreNames.contains('meta')) database.createObjectStore('meta')
    },
  })
}

async function loadOwner(): Promise<StoredOwner | null> {
  const db = await fieldDb()
  try {
    return ((await db.get('meta', 'owner')) as StoredOwner | undefined) ?? null
  } finally {
    db.close()
  }
}

async function saveOwner(stored: StoredOwner | null): Promise<void> {
  const db = await fieldDb()
  try {
    if (stored) await db.put('meta', stored, 'owner')
    else await db.delete('meta', 'owner')
  } finally {
    db.close()
  }
}

let flushing: Promise<void> | undefined

/** Sends the outbox, one pass at a time (a second request waits for the running pass, then runs). */
function flush(): Promise<void> {
  const run = async () => {
    const stored = await loadOwner()
    if (!stored) return
    await flushAs(stored)
  }
  flushing = (flushing ?? Promise.resolve()).then(run, run).catch((error: unknown) => console.warn('field mode: sending the outbox failed', error))
  return flushing
}

async function flushAs(stored: StoredOwner): Promise<void> {
  const waiting = await withOutbox(stored.owner, async (outbox) => (await outbox.list()).some((entry) => entry.state === 'waiting'))
  if (!waiting) return
  let csrf: string | undefined
  const api = createApiClient({
    transport: async (request) => {
      const response = await fetch(request)
      csrf = response.headers.get(HEADERS.csrf) ?? csrf
      return response
    },
    origin: self.location.origin,
    getCsrfToken: () => csrf,
    clientId: stored.clientId,
    os: detectClientOs(self.navigator.userAgent),
    defaultTimeoutMs: 30_000,
    onSignedOut: () => undefined,
    onBlocked: () => undefined,
  })
  // Only the user who wrote them may send them: the session must still be theirs.
  const session = await api.GET('/auth/session')
  if (!session.ok || session.data.userId !== stored.owner.userId || session.data.tenantId !== stored.owner.tenantId) return
  const result = await withOutbox(stored.owner, (outbox) => flushOutbox(outbox, api, createUploadApi(api)))
  const itemIds = [...new Set([...result.sent, ...result.refused].map((entry) => entry.itemId))]
  if (itemIds.length) await tellPages({ type: 'outbox-changed', itemIds })
}

async function tellPages(message: WorkerMessage): Promise<void> {
  for (const client of await self.clients.matchAll({ type: 'window' })) client.postMessage(message)
}
