import type { JoinedRoom, PresenceMember, RoomMessage } from '~/lib/realtime/events'
import { ROOM_HISTORY_LIMIT } from '~/lib/realtime/events'

/**
 * A room as the discussion panel shows it. Messages arrive from three places (JoinRoom's history,
 * ReceiveMessage, SendMessage's answer), the same message often twice: they are kept once, by id,
 * in the order they were sent.
 */
export type DiscussionState = {
  phase: 'joining' | 'joined' | 'refused'
  refusal: string | undefined
  messages: RoomMessage[]
  members: PresenceMember[]
  /** The newest message someone else sent while the panel was open, for the live region. */
  announced: RoomMessage | undefined
}

export type DiscussionEvent =
  | { type: 'joined'; joined: JoinedRoom }
  | { type: 'refused'; reason: string | undefined }
  | { type: 'message'; message: RoomMessage; ownUserId: string | null }
  | { type: 'sent'; message: RoomMessage }
  | { type: 'presence'; members: PresenceMember[] }

export const initialDiscussion: DiscussionState = { phase: 'joining', refusal: undefined, messages: [], members: [], announced: undefined }

/** Enough to scroll back through while the panel is open; the hub keeps the rest. */
const KEEP_MESSAGES = ROOM_HISTORY_LIMIT * 4

export function discussionReducer(state: DiscussionState, event: DiscussionEvent): DiscussionState {
  switch (event.type) {
    case 'joined':
      // After a reconnect the history may hold messages we already have, and miss none we had.
      return { ...state, phase: 'joined', refusal: undefined, messages: merge(state.messages, event.joined.history), members: event.joined.members }
    case 'refused':
      return { ...state, phase: 'refused', refusal: event.reason }
    case 'message': {
      if (state.messages.some((m) => m.id === event.message.id)) return state
      const fromOther = event.message.sender.userId !== event.ownUserId
      return { ...state, messages: merge(state.messages, [event.message]), announced: fromOther ? event.message : state.announced }
    }
    case 'sent':
      return state.messages.some((m) => m.id === event.message.id) ? state : { ...state, messages: merge(state.messages, [event.message]) }
    case 'presence':
      return { ...state, members: event.members }
  }
}

function merge(kept: RoomMessage[], added: RoomMessage[]): RoomMessage[] {
  const byId = new Map(kept.map((m) => [m.id, m]))
  for (const m of added) byId.set(m.id, m)
  return [...byId.values()].sort((a, b) => a.sentAt.localeCompare(b.sentAt)).slice(-KEEP_MESSAGES)
}

/** "Only you here", "Only Sam Site here", "2 people here". */
export function presenceText(members: PresenceMember[], ownUserId: string | null): string {
  if (members.length === 0) return 'Nobody here yet'
  if (members.length === 1) return members[0]?.userId === ownUserId ? 'Only you here' : `Only ${members[0]?.displayName} here`
  return `${members.length} people here`
}

/** Whether a typed message may be sent (spec §5: a blank message is not sent). */
export function sendable(text: string): boolean {
  return text.trim() !== ''
}
