import type { RealtimeStatus } from '~/lib/realtime/events'

/**
 * The connection's status (spec §4 "Realtime status") as a pure reducer, so the rules can be tested
 * without a server. `hadConnection` lets the indicator tell a first connect (quiet) from a connect
 * after a drop ("Reconnecting…").
 */
export type RealtimeState = { status: RealtimeStatus; hadConnection: boolean }

/** Why a connection ended or did not start, as far as the status cares. */
export type EndReason =
  /** The network or the server went away: worth trying again (online, visible, every 30 s). */
  | 'dropped'
  /** 401: the session has ended; only a new page (or sign-in) helps. */
  | 'signed-out'
  /** The server refused for good (Close without allowReconnect, a 4xx other than 401). */
  | 'refused'

export type RealtimeEvent =
  | { type: 'unsupported' }
  | { type: 'connecting' }
  | { type: 'connected' }
  | { type: 'reconnecting' }
  | { type: 'ended'; reason: EndReason }
  | { type: 'stopped' }

export const initialRealtimeState: RealtimeState = { status: 'idle', hadConnection: false }

export function realtimeReducer(state: RealtimeState, event: RealtimeEvent): RealtimeState {
  switch (event.type) {
    case 'unsupported':
      return { ...state, status: 'disabled' }
    case 'connecting':
      return { ...state, status: 'connecting' }
    case 'connected':
      return { status: 'connected', hadConnection: true }
    case 'reconnecting':
      // Only a connection that was up reconnects (the client's automatic reconnect).
      return state.status === 'connected' ? { ...state, status: 'reconnecting' } : state
    case 'ended':
      if (state.status === 'idle') return state
      return { ...state, status: statusAfterEnd(event.reason) }
    case 'stopped':
      return initialRealtimeState
  }
}

function statusAfterEnd(reason: EndReason): RealtimeStatus {
  switch (reason) {
    case 'dropped':
      return 'disconnected'
    case 'signed-out':
      return 'disabled'
    case 'refused':
      return 'error'
  }
}

/** Whether a given-up connection should try again by itself (online, visible, every 30 s). */
export function retriesOnItsOwn(state: RealtimeState): boolean {
  return state.status === 'disconnected'
}

/** Whether the user's return (online, tab visible) is worth another try. */
export function retriesOnReturn(state: RealtimeState): boolean {
  return state.status === 'disconnected' || state.status === 'error' || (state.status === 'disabled' && state.hadConnection)
}

/** What the shell's indicator says, or null for nothing (spec §4 values mapped to three words). */
export function indicatorText(state: RealtimeState): 'Live' | 'Reconnecting…' | 'Offline' | null {
  switch (state.status) {
    case 'connected':
      return 'Live'
    case 'reconnecting':
      return 'Reconnecting…'
    case 'connecting':
      return state.hadConnection ? 'Reconnecting…' : null
    case 'disconnected':
    case 'error':
      return 'Offline'
    case 'idle':
    case 'disabled':
      return null
  }
}
