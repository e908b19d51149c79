import { deleteDB, openDB, type DBSchema, type IDBPDatabase } from 'idb'
import type { Owner } from './local-copy'

/**
 * Field mode's outbox (issue 10): responses written with no connection, waiting in the browser to
 * be sent. One IndexedDB database per user and organisation, beside the offline copy. An entry's id
 * is also the Idempotency-Key of its response call, and each photo keeps its upload session and
 * photo id as they come, so however often sending is cut off and retried, the response and each
 * photo arrive once. The service worker writes entries (a form posted offline) and sends them.
 */

export type OutboxPhoto = {
  name: string
  type: string
  blob: Blob
  /** The resumable upload it goes through, once started; the photo's id once stored. */
  sessionId: string | null
  photoId: string | null
}

export type OutboxEntry = {
  /** Also the response call's Idempotency-Key. */
  id: string
  itemId: string
  body: string
  requestClose: boolean
  /** Photos the upload island had stored before the form went to the outbox. */
  storedPhotoIds: string[]
  photos: OutboxPhoto[]
  createdAtUtc: string
  /**
   * waiting: to be sent; refused: the server said no, kept with its reason until the user discards
   * it; sent: arrived, kept a little while so an item page that loaded before it arrived reloads.
   */
  state: 'waiting' | 'refused' | 'sent'
  refusal: string | null
  sentAtUtc?: string | null
}

interface OutboxDb extends DBSchema {
  responses: { key: string; value: OutboxEntry; indexes: { item: string } }
}

export function outboxName(owner: Owner): string {
  return `site-portal-outbox:${owner.tenantId}:${owner.userId}`
}

export type Outbox = {
  /** Oldest first; only one item's when `itemId` is given. */
  list(itemId?: string): Promise<OutboxEntry[]>
  put(entry: OutboxEntry): Promise<void>
  remove(id: string): Promise<void>
  /** Entries not sent (waiting or refused). */
  unsent(): Promise<number>
  close(): void
}

export async function openOutbox(owner: Owner): Promise<Outbox> {
  const db: IDBPDatabase<OutboxDb> = await openDB<OutboxDb>(outboxName(owner), 1, {
    upgrade(database) {
      database.createObjectStore('responses', { keyPath: 'id' }).createIndex('item', 'itemId')
    },
    // Sign-out deletes the outbox from another tab or the worker: let it.
    blocking(_current, _blocked, event) {
      ;(event.target as IDBDatabase).close()
    },
  })
  return {
    async list(itemId) {
      const entries = itemId ? await db.getAllFromIndex('responses', 'item', itemId) : await db.getAll('responses')
      return entries.sort((a, b) => a.createdAtUtc.localeCompare(b.createdAtUtc))
    },
    put: async (entry) => {
      await db.put('responses', entry)
    },
    remove: (id) => db.delete('responses', id),
    unsent: async () => (await db.getAll('responses')).filter((entry) => entry.state !== 'sent').length,
    close: () => db.close(),
  }
}

/** Deletes this owner's outbox (sign-out from this device, after the user agreed). */
export async function clearOutbox(owner: Owner): Promise<void> {
  await deleteDB(outboxName(owner))
}

/** Runs `work` with the owner's outbox open, and closes it after. */
export async function withOutbox<T>(owner: Owner, work: (outbox: Outbox) => Promise<T>): Promise<T> {
  const outbox = await openOutbox(owner)
  try {
    return await work(outbox)
  } finally {
    outbox.close()
  }
}
