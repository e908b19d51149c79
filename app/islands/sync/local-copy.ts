import { deleteDB, openDB, type DBSchema, type IDBPDatabase } from 'idb'
import type { Item, Project, Report } from '~/lib/reporting/types'
import type { Collections, EntityKind, SyncCursor } from './state'

/**
 * The browser's copy of the mobile feed (issue 10): one IndexedDB database per user and
 * organisation, through `idb`. Stores projects, reports and reportItems keyed by id (items also by
 * assignee), and the cursor with the time of the last successful pull. Each pull page is written in
 * one transaction together with the cursor it ends at, so a copy is never ahead of or behind its cursor.
 */

export type Owner = { userId: string; tenantId: string }
type Meta = { cursor: SyncCursor | null; lastSyncedAt: string | null }

interface SyncDb extends DBSchema {
  projects: { key: string; value: Project }
  reports: { key: string; value: Report }
  reportItems: { key: string; value: Item; indexes: { assignee: string } }
  meta: { key: 'state'; value: Meta }
}

const KINDS: EntityKind[] = ['projects', 'reports', 'reportItems']

export function databaseName(owner: Owner): string {
  return `site-portal-sync:${owner.tenantId}:${owner.userId}`
}

export type LocalCopy = {
  getItem(id: string): Promise<Item | undefined>
  getReport(id: string): Promise<Report | undefined>
  getProject(id: string): Promise<Project | undefined>
  /** Items assigned to this user, most recently updated first. */
  assignedItems(): Promise<Item[]>
  count(kind: EntityKind): Promise<number>
  /** When the last successful pull finished (ISO), or null. */
  lastSyncedAt(): Promise<string | null>
  cursor(): Promise<SyncCursor | null>
  /**
   * Applies one page in one transaction: `work` writes through the Collections it is given (clear,
   * upsert, remove); `meta` is stored with it when given.
   */
  write(work: (collections: Collections) => void, meta?: Meta): Promise<void>
  close(): void
}

export async function openLocalCopy(owner: Owner): Promise<LocalCopy> {
  const db: IDBPDatabase<SyncDb> = await openDB<SyncDb>(databaseName(owner), 1, {
    upgrade(database) {
      database.createObjectStore('projects', { keyPath: 'id' })
      database.createObjectStore('reports', { keyPath: 'id' })
      database.createObjectStore('reportItems', { keyPath: 'id' }).createIndex('assignee', 'assignee.id')
      database.createObjectStore('meta')
    },
    // Another tab deletes the copy (sign-out): let it, rather than block it.
    blocking(_current, _blocked, event) {
      ;(event.target as IDBDatabase).close()
    },
  })
  const meta = async () => (await db.get('meta', 'state')) ?? { cursor: null, lastSyncedAt: null }
  return {
    getItem: (id) => db.get('reportItems', id),
    getReport: (id) => db.get('reports', id),
    getProject: (id) => db.get('projects', id),
    async assignedItems() {
      const items = await db.getAllFromIndex('reportItems', 'assignee', owner.userId)
      return items.sort((a, b) => b.updatedAtUtc.localeCompare(a.updatedAtUtc))
    },
    count: (kind) => db.count(kind),
    lastSyncedAt: async () => (await meta()).lastSyncedAt,
    cursor: async () => (await meta()).cursor,
    async write(work, next) {
      const tx = db.transaction(['projects', 'reports', 'reportItems', 'meta'], 'readwrite')
      // Requests are queued on the transaction in order; only its completion is awaited.
      const pending: Promise<unknown>[] = []
      work({
        upsert: (kind, value) => void pending.push(tx.objectStore(kind).put(value as never)),
        remove: (kind, id) => void pending.push(tx.objectStore(kind).delete(id)),
        clear: () => {
          for (const kind of KINDS) pending.push(tx.objectStore(kind).clear())
        },
      })
      if (next) pending.push(tx.objectStore('meta').put(next, 'state'))
      await Promise.all([...pending, tx.done])
    },
    close: () => db.close(),
  }
}

/** Deletes this owner's copy (sign-out from this device, a revoked device). */
export async function clearLocalCopy(owner: Owner): Promise<void> {
  await deleteDB(databaseName(owner))
}
