import type { PresenceEntry, PresenceMember, PresenceStore } from './types'

/** One connection in a room, as both stores keep it. */
export type StoredPresence = { userId: string; displayName: string; instance: string; expiresAt: number }

/**
 * The room's members from its live entries: one member per person however many tabs they have,
 * sorted by display name (then user id, so equal names keep a stable order). Expired entries
 * never count, whether or not a sweep has removed them yet.
 */
export function membersOf(entries: Iterable<StoredPresence>, now: number): PresenceMember[] {
  const byUser = new Map<string, PresenceMember>()
  for (const entry of entries) {
    if (entry.expiresAt <= now) continue
    const member = byUser.get(entry.userId)
    if (member) member.connections += 1
    else byUser.set(entry.userId, { userId: entry.userId, displayName: entry.displayName, connections: 1 })
  }
  return [...byUser.values()].sort((a, b) => a.displayName.localeCompare(b.displayName) || (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0))
}

/** Presence for one instance (no Redis): the same rules as the Redis store, kept in a Map. */
export function createMemoryPresence({
  ttlMs,
  now = Date.now,
  instanceId = 'local',
}: {
  ttlMs: number
  now?: () => number
  instanceId?: string
}): PresenceStore {
  const rooms = new Map<string, Map<string, StoredPresence>>()

  function put(room: string, entry: PresenceEntry) {
    let entries = rooms.get(room)
    if (!entries) rooms.set(room, (entries = new Map()))
    entries.set(entry.connectionId, { userId: entry.userId, displayName: entry.displayName, instance: instanceId, expiresAt: now() + ttlMs })
  }

  function list(room: string) {
    return membersOf(rooms.get(room)?.values() ?? [], now())
  }

  return {
    async join(room, entry) {
      put(room, entry)
      return list(room)
    },
    async leave(room, connectionId) {
      const entries = rooms.get(room)
      entries?.delete(connectionId)
      if (entries?.size === 0) rooms.delete(room)
      return list(room)
    },
    async list(room) {
      return list(room)
    },
    async refresh(entries) {
      for (const { room, entry } of entries) put(room, entry)
    },
    async sweep(names) {
      const changed: { room: string; members: PresenceMember[] }[] = []
      const at = now()
      for (const room of new Set(names)) {
        const entries = rooms.get(room)
        if (!entries) continue
        let removed = false
        for (const [connectionId, entry] of entries) {
          if (entry.expiresAt > at) continue
          entries.delete(connectionId)
          removed = true
        }
        if (entries.size === 0) rooms.delete(room)
        if (removed) changed.push({ room, members: list(room) })
      }
      return changed
    },
    async close() {
      rooms.clear()
    },
  }
}
