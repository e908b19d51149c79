import type { Database, Tx } from './client'

/**
 * Changes of synced entities, announced only once their transaction has committed (realtime's
 * EntityChanged). `recordChange` queues each change on its transaction; `withTenant` hands the
 * queue to the listeners of the database after COMMIT returns, and drops it when the transaction
 * rolls back, so a rolled-back change is never announced.
 */
export type CommittedChange = {
  tenantId: string
  entity: string
  entityId: string
  changeType: 'Created' | 'Updated' | 'Deleted'
  revision: number
  changedAt: Date
  actorUserId: string | null
  /**
   * Set when the change concerns one person only (their in-app notifications, their export job):
   * the hub tells that person's own connections and never the tenant's group.
   */
  audienceUserId?: string
}

export type CommittedChangeListener = (changes: readonly CommittedChange[]) => void

const queues = new WeakMap<Tx, CommittedChange[]>()
const listeners = new WeakMap<Database, Set<CommittedChangeListener>>()

/** Listens to the changes committed through `db`; returns the function that stops listening. */
export function onCommittedChanges(db: Database, listener: CommittedChangeListener): () => void {
  let set = listeners.get(db)
  if (!set) listeners.set(db, (set = new Set()))
  set.add(listener)
  return () => set.delete(listener)
}

/** Queues a change on its transaction (called by recordChange). Outside `withTenant` nobody listens. */
export function queueCommittedChange(tx: Tx, change: CommittedChange): void {
  queues.get(tx)?.push(change)
}

/** Runs one transaction and, once it has committed, announces what it queued. */
export async function transactionAnnouncingChanges<T>(db: Database, work: (tx: Tx) => Promise<T>): Promise<T> {
  const queued: CommittedChange[] = []
  const result = await db.transaction(async (tx) => {
    queues.set(tx, queued)
    return work(tx)
  })
  if (queued.length > 0) {
    for (const listener of listeners.get(db) ?? []) {
      try {
        listener(queued)
      } catch {
        // A listener's failure must not turn a committed call into an error; listeners log their own.
      }
    }
  }
  return result
}
