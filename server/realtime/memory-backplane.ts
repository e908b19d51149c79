import type { Backplane, BackplaneControl, Frame } from './types'

/**
 * The default backplane of one instance: there is nobody else to reach, so publishing frames does
 * nothing (the hub has already delivered to its own connections), and control messages come
 * straight back to this instance's handlers.
 */
export function createMemoryBackplane(): Backplane {
  const controlHandlers: ((message: BackplaneControl) => void)[] = []
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
    async close() {},
  }
}
