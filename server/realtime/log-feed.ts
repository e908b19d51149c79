import { and, eq } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { memberships } from '#server/db/schema'
import { withTenant } from '#server/db/tenancy'
import type { LogRing } from '#server/domain/observability/log-ring'
import type { LogLine, LogLineBatch } from '~/lib/admin/logs'
import { type JoinedRoom, LOGS_ROOM } from '~/lib/realtime/events'
import { HubError, type ConnectionInfo, type Principal } from './types'

/**
 * Administration › Logs, followed live (docs/realtime.md "Logs"): an administrator's connection
 * joins the `logs` room and receives `LogLine` batches of the lines this server writes about
 * their organisation — at most one batch a second, at most `maxBatch` lines each (the newest;
 * the rest are counted as dropped). Delivered to this instance's connections only, like the tail.
 * Whether the person is still an administrator is checked again every `recheckMs` while they
 * follow; a session that ends closes the connection anyway (portal-hub.ts).
 */

export type LogFeedOptions = {
  ring: LogRing
  db: Database
  send: (connectionId: string, batch: LogLineBatch) => void
  flushMs?: number
  maxBatch?: number
  recheckMs?: number
  now?: () => number
}

export type LogFeed = {
  follow(connection: ConnectionInfo): Promise<JoinedRoom>
  unfollow(connectionId: string): void
  stop(): void
}

const REFUSED = 'You cannot join this room: it does not exist or you do not have access to it.'

export function createLogFeed(options: LogFeedOptions): LogFeed {
  const { ring, db, send } = options
  const flushMs = options.flushMs ?? 1000
  const maxBatch = options.maxBatch ?? 200
  const recheckMs = options.recheckMs ?? 10_000
  const now = options.now ?? Date.now
  const followers = new Map<string, { principal: Principal; checkedAt: number }>()
  const pending = new Map<string, { lines: LogLine[]; dropped: number }>()
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = false

  const followed = (tenantId: string) => {
    for (const follower of followers.values()) if (follower.principal.tenantId === tenantId) return true
    return false
  }

  // Called inside the logger's write: no logging here, and no waiting.
  const unsubscribe = ring.subscribe((entry) => {
    if (stopped || entry.tenantId === null || !followed(entry.tenantId)) return
    let batch = pending.get(entry.tenantId)
    if (!batch) pending.set(entry.tenantId, (batch = { lines: [], dropped: 0 }))
    batch.lines.push(entry.line)
    if (batch.lines.length > maxBatch) {
      batch.lines.shift()
      batch.dropped += 1
    }
    if (!timer) {
      timer = setTimeout(() => void flush(), flushMs)
      timer.unref()
    }
  })

  async function flush(): Promise<void> {
    timer = undefined
    const batches = [...pending]
    pending.clear()
    for (const [tenantId, batch] of batches) {
      for (const [connectionId, follower] of followers) {
        if (follower.principal.tenantId !== tenantId) continue
        if (now() - follower.checkedAt > recheckMs) {
          const still = await isAdmin(db, follower.principal).catch(() => false)
          if (!still) {
            followers.delete(connectionId)
            continue
          }
          follower.checkedAt = now()
        }
        if (followers.has(connectionId)) send(connectionId, batch)
      }
    }
  }

  return {
    async follow(connection) {
      if (!(await isAdmin(db, connection.principal))) throw new HubError(REFUSED)
      followers.set(connection.id, { principal: connection.principal, checkedAt: now() })
      return { room: LOGS_ROOM, history: [], members: [] }
    },
    unfollow(connectionId) {
      followers.delete(connectionId)
    },
    stop() {
      stopped = true
      unsubscribe()
      if (timer) clearTimeout(timer)
      followers.clear()
      pending.clear()
    },
  }
}

/** An active administrator of the connection's organisation (row-level security scopes the read). */
async function isAdmin(db: Database, principal: Principal): Promise<boolean> {
  const [member] = await withTenant(db, principal.tenantId, (tx) =>
    tx
      .select({ roleKey: memberships.roleKey, status: memberships.status })
      .from(memberships)
      .where(and(eq(memberships.tenantId, principal.tenantId), eq(memberships.userId, principal.userId)))
      .limit(1),
  )
  return member?.status === 'active' && member.roleKey === 'admin'
}
