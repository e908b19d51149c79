import type { Backplane, BackplaneControl, Frame } from './types'

/** Connection ids claimed in this process, each until its token expires. */
export function createClaims(): (connectionId: string, ttlMs: number) => boolean {
  const claimed = new Map<string, number>()
  return (connectionId, ttlMs) => {
    const now = Date.now()
    for (const [id, until] of claimed) if (until <= now) claimed.delete(id)
    if (claimed.has(connectionId)) return false
    claimed.set(connectionId, now + Math.max(1, ttlMs))
    return true
  }
}

/**
 * The default backplane of one instance: there is nobody else to reach, so publishing frames does
 * nothing (the hub has already delivered to its own connections), and control messages come
 * straight back to this instance's handlers.
 */
export function createMemoryBackplane(): Backplane {
  const controlHandlers: ((message: BackplaneControl) => void)[] = []
  const claim = createClaims()
  return {
    async publish(_group: string, _frame: Frame, _exclude?: readonly string[]) {},
    async subscribe() {},
    async unsubscribe() {},
    onFrame() {},
    async broadcast(message) {
      for (const handler of controlHandlers) handler(message)
    },
    onControl(handler) {
      controlHandlers.push(handler)
    },
    async claimConnection(connectionId, ttlMs) {
      return claim(connectionId, ttlMs)
    },
    async close() {},
  }
}
