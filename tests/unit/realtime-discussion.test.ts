import { expect, test } from 'vitest'
import { discussionReducer, initialDiscussion, presenceText, sendable } from '~/islands/realtime/discussion-state'
import type { PresenceMember, RoomMessage } from '~/lib/realtime/events'

const sam = { userId: 'u-sam', displayName: 'Sam Site' }
const alex = { userId: 'u-alex', displayName: 'Alex Admin' }
const room = 'item:00000000-0000-4000-8000-000000000001'
const message = (id: string, sentAt: string, sender = sam, text = `text ${id}`): RoomMessage => ({ id, room, text, sentAt, sender })
const member = (person: typeof sam, connections = 1): PresenceMember => ({ ...person, connections })

test('the history comes in on join, and a message heard twice (ReceiveMessage and the send’s answer) is shown once', () => {
  let state = discussionReducer(initialDiscussion, {
    type: 'joined',
    joined: { room, history: [message('1', '2026-01-01T10:00:00Z'), message('2', '2026-01-01T10:01:00Z', alex)], members: [member(sam)] },
  })
  expect(state.phase).toBe('joined')
  expect(state.announced).toBeUndefined()
  const mine = message('3', '2026-01-01T10:02:00Z')
  state = discussionReducer(state, { type: 'message', message: mine, ownUserId: sam.userId })
  state = discussionReducer(state, { type: 'sent', message: mine })
  expect(state.messages.map((m) => m.id)).toEqual(['1', '2', '3'])
  // One's own message is not read out.
  expect(state.announced).toBeUndefined()
})

test("someone else's new message is announced; a rejoin after a reconnect merges the history without duplicates", () => {
  let state = discussionReducer(initialDiscussion, {
    type: 'joined',
    joined: { room, history: [message('1', '2026-01-01T10:00:00Z')], members: [member(sam)] },
  })
  const theirs = message('2', '2026-01-01T10:01:00Z', alex)
  state = discussionReducer(state, { type: 'message', message: theirs, ownUserId: sam.userId })
  expect(state.announced).toEqual(theirs)
  state = discussionReducer(state, {
    type: 'joined',
    joined: { room, history: [message('1', '2026-01-01T10:00:00Z'), theirs, message('3', '2026-01-01T10:03:00Z', alex)], members: [member(sam), member(alex)] },
  })
  expect(state.messages.map((m) => m.id)).toEqual(['1', '2', '3'])
  expect(state.members).toHaveLength(2)
})

test('a refused join keeps the hub’s sentence; presence replaces the members', () => {
  const refused = discussionReducer(initialDiscussion, { type: 'refused', reason: 'You cannot open this discussion.' })
  expect(refused).toMatchObject({ phase: 'refused', refusal: 'You cannot open this discussion.' })
  const present = discussionReducer(initialDiscussion, { type: 'presence', members: [member(sam), member(alex, 2)] })
  expect(present.members.map((m) => m.displayName)).toEqual(['Sam Site', 'Alex Admin'])
})

test('the presence line counts people, not tabs', () => {
  expect(presenceText([member(sam, 3)], sam.userId)).toBe('Only you here')
  expect(presenceText([member(alex)], sam.userId)).toBe('Only Alex Admin here')
  expect(presenceText([member(sam, 2), member(alex)], sam.userId)).toBe('2 people here')
  expect(presenceText([], sam.userId)).toBe('Nobody here yet')
})

test('a blank message is not sent (spec §5)', () => {
  expect(sendable('')).toBe(false)
  expect(sendable('  \n\t ')).toBe(false)
  expect(sendable(' ok ')).toBe(true)
})
