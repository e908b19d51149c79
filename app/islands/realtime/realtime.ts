import { useEffect, useSyncExternalStore } from 'react'
import { REALTIME_HUB_PATH } from '~/lib/realtime/events'
import { RealtimeClient } from './realtime-client'
import { initialRealtimeState, type RealtimeState } from './status'

/** A given-up connection tries again this often (besides on `online` and on becoming visible). */
const RETRY_EVERY_MS = 30_000

/**
 * The tab's one connection. Created at import but idle: nothing runs until the signed-in shell
 * starts it (RealtimeStarter), and the SignalR library is only fetched then.
 */
export const realtime = new RealtimeClient({
  url: REALTIME_HUB_PATH,
  // Its own chunk: never in the first paint's scripts (vite.config.ts groups only app code).
  loadSignalR: () => import('@microsoft/signalr'),
  retryEveryMs: RETRY_EVERY_MS,
  hasWebSocket: typeof window !== 'undefined' && typeof window.WebSocket === 'function',
  ...(typeof window !== 'undefined' && { window, document }),
})

const serverSnapshot = () => initialRealtimeState

/** The connection's status; `idle` on the server and during hydration. */
export function useRealtimeState(): RealtimeState {
  return useSyncExternalStore(realtime.subscribe, realtime.getSnapshot, serverSnapshot)
}

/**
 * Starts the connection once the page is idle after hydration (so the first paint and hydration
 * never wait for the library), and stops it when the signed-in shell goes (sign-out).
 */
export function useRealtimeConnection(): void {
  useEffect(() => {
    const start = () => realtime.start()
    const idle = typeof window.requestIdleCallback === 'function' ? window.requestIdleCallback(start, { timeout: START_TIMEOUT_MS }) : undefined
    const timer = idle === undefined ? window.setTimeout(start, START_TIMEOUT_MS) : undefined
    return () => {
      if (idle !== undefined) window.cancelIdleCallback(idle)
      if (timer !== undefined) window.clearTimeout(timer)
      void realtime.stop()
    }
  }, [])
}

/** However busy the page, the connection starts by then. */
const START_TIMEOUT_MS = 3000
