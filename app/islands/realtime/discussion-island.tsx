import { type FormEvent, type KeyboardEvent, useEffect, useId, useReducer, useRef, useState } from 'react'
import { Button } from '~/components/ui/button'
import { FieldHelp, FieldLabel, controlClasses } from '~/components/ui/field-parts'
import { formatDateTime } from '~/lib/format'
import { ROOM_MESSAGE_MAX_LENGTH, type RoomMessage } from '~/lib/realtime/events'
import { discussionReducer, initialDiscussion, presenceText, sendable } from './discussion-state'
import { hubRefusal } from './hub-error'
import { realtime, useRealtimeState } from './realtime'

export type DiscussionProps = { room: string; ownUserId: string | null; locale: string }

/**
 * The discussion of one room (the item page's `item:<id>`), in its own chunk: the history, who is
 * here, and a field to write in. Joined while mounted, again after every reconnect, left on unmount.
 */
export function DiscussionIsland({ room, ownUserId, locale }: DiscussionProps) {
  const id = useId()
  const [state, dispatch] = useReducer(discussionReducer, initialDiscussion)
  const connection = useRealtimeState()
  const [text, setText] = useState('')
  const [error, setError] = useState<string | undefined>()
  const [sending, setSending] = useState(false)
  const listRef = useRef<HTMLOListElement>(null)

  useEffect(
    () =>
      realtime.joinRoom(room, {
        joined: (joined) => dispatch({ type: 'joined', joined }),
        refused: (reason) => dispatch({ type: 'refused', reason }),
        message: (message) => dispatch({ type: 'message', message, ownUserId }),
        presence: (presence) => dispatch({ type: 'presence', members: presence.members }),
      }),
    [room, ownUserId],
  )

  // Keep the newest message in view, as chats do.
  const newest = state.messages.at(-1)?.id
  useEffect(() => {
    const list = listRef.current
    if (list && newest) list.scrollTop = list.scrollHeight
  }, [newest])

  const online = connection.status === 'connected'

  async function send() {
    // Spec §5: a blank message is not sent.
    if (!sendable(text) || sending) return
    if (!online) {
      setError('You are offline. Your message is kept: send it again once the connection is back.')
      return
    }
    setSending(true)
    setError(undefined)
    try {
      const message = await realtime.sendMessage(room, text)
      dispatch({ type: 'sent', message })
      setText('')
    } catch (failure) {
      setError(hubRefusal(failure) ?? 'The message was not sent. Check your connection and try again.')
    } finally {
      setSending(false)
    }
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    void send()
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    // Enter sends; Shift+Enter is a new line; Enter that ends an IME composition is not a send.
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return
    event.preventDefault()
    void send()
  }

  const names = state.members.map((m) => m.displayName).join(', ')
  const fieldId = `${id}-text`
  const errorId = `${id}-error`
  return (
    <section aria-labelledby={`${id}-heading`} className="flex flex-col gap-4">
      <div>
        <h2 id={`${id}-heading`} className="text-lg font-semibold text-text">
          Discussion
        </h2>
        <p className="mt-1 text-sm text-muted" title={names || undefined}>
          {state.phase === 'joining' ? (online ? 'Joining…' : 'Waiting for the connection…') : presenceText(state.members, ownUserId)}
          {state.members.length > 1 ? <span className="block truncate">{names}</span> : null}
        </p>
      </div>
      {state.phase === 'refused' ? (
        <p className="text-sm text-critical">{state.refusal ?? 'The discussion could not be opened. Reload the page to try again.'}</p>
      ) : (
        <>
          {state.messages.length === 0 ? (
            <p className="text-sm text-muted">{state.phase === 'joined' ? 'No messages yet.' : null}</p>
          ) : (
            <ol
              ref={listRef}
              aria-label="Messages"
              tabIndex={0}
              className="flex max-h-96 flex-col gap-3 overflow-y-auto rounded-md border border-border bg-surface p-3"
            >
              {state.messages.map((m) => (
                <MessageItem key={m.id} message={m} own={m.sender.userId === ownUserId} locale={locale} />
              ))}
            </ol>
          )}
          {/* Polite, and only for others' new messages: history and one's own sends are not read out. */}
          <p role="status" className="sr-only">
            {state.announced ? `${state.announced.sender.displayName}: ${state.announced.text}` : ''}
          </p>
          <form onSubmit={onSubmit} className="flex flex-col gap-1.5" aria-label="Write to the discussion">
            <FieldLabel htmlFor={fieldId}>Message</FieldLabel>
            <FieldHelp id={`${id}-help`}>Enter sends; Shift+Enter starts a new line.</FieldHelp>
            <textarea
              id={fieldId}
              rows={2}
              value={text}
              maxLength={ROOM_MESSAGE_MAX_LENGTH}
              onChange={(event) => setText(event.currentTarget.value)}
              onKeyDown={onKeyDown}
              aria-describedby={error ? `${id}-help ${errorId}` : `${id}-help`}
              aria-invalid={error ? true : undefined}
              className={controlClasses(Boolean(error))}
            />
            {error ? (
              <p id={errorId} role="alert" className="text-sm font-medium text-critical">
                {error}
              </p>
            ) : null}
            <div>
              <Button type="submit" variant="secondary" disabled={sending} aria-disabled={!sendable(text) || undefined}>
                {sending ? 'Sending…' : 'Send'}
              </Button>
            </div>
          </form>
        </>
      )}
    </section>
  )
}

function MessageItem({ message, own, locale }: { message: RoomMessage; own: boolean; locale: string }) {
  return (
    <li className="flex flex-col gap-0.5 text-sm">
      <p className="text-muted">
        <span className="font-medium text-text">{own ? `${message.sender.displayName} (you)` : message.sender.displayName}</span>
        {' · '}
        <time dateTime={message.sentAt}>{formatDateTime(message.sentAt, locale)}</time>
      </p>
      <p className="break-words whitespace-pre-wrap text-text">{message.text}</p>
    </li>
  )
}
