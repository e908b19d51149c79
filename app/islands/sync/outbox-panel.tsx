import { useEffect, useRef, useState } from 'react'
import { useRevalidator } from 'react-router'
import { Banner } from '~/components/ui/banner'
import { Button } from '~/components/ui/button'
import { Section } from '~/components/ui/section'
import { formatDateTime } from '~/lib/format'
import type { WorkerMessage } from './field-messages'
import type { Owner } from './local-copy'
import { withOutbox, type OutboxEntry } from './outbox'
import { WAITING_TO_SEND } from './sync-text'

/**
 * Field mode on the item page: this device's responses to the item that were not sent yet,
 * "Waiting to send", or refused with the reason and the user's text kept until they discard it.
 * When the worker has sent one (now or before this page loaded), the list drops it and the page
 * reloads its data, so the response shows in the thread. Only with mobile sync on and JavaScript; nothing when the outbox has nothing.
 */
export function OutboxPanel({ owner, itemId, locale }: { owner: Owner; itemId: string; locale: string }) {
  const [entries, setEntries] = useState<OutboxEntry[]>([])
  const revalidator = useRevalidator()
  // The latest revalidate, without reloading the list on every render.
  const revalidate = useRef(revalidator.revalidate)
  revalidate.current = revalidator.revalidate
  const { userId, tenantId } = owner

  useEffect(() => {
    let live = true
    // Responses that arrived since (maybe before this page's data was loaded): reload the page's
    // data once, and forget them.
    const load = () =>
      withOutbox({ userId, tenantId }, async (outbox) => {
        const list = await outbox.list(itemId)
        const sent = list.filter((entry) => entry.state === 'sent')
        for (const entry of sent) await outbox.remove(entry.id)
        if (sent.length && live) void revalidate.current()
        if (live) setEntries(list.filter((entry) => entry.state !== 'sent'))
      }).catch(() => undefined)
    void load()
    const onMessage = (event: MessageEvent) => {
      const message = event.data as WorkerMessage
      if (message?.type === 'outbox-changed' && message.itemIds.includes(itemId)) void load()
    }
    navigator.serviceWorker?.addEventListener('message', onMessage)
    return () => {
      live = false
      navigator.serviceWorker?.removeEventListener('message', onMessage)
    }
  }, [userId, tenantId, itemId])

  if (!entries.length) return null
  const discard = async (id: string) => {
    await withOutbox({ userId, tenantId }, (outbox) => outbox.remove(id))
    setEntries((current) => current.filter((entry) => entry.id !== id))
  }
  return (
    <Section title="Your responses on this device" description="Written without a connection. They are sent when it is back.">
      <ul className="flex flex-col gap-3">
        {entries.map((entry) => (
          <li key={entry.id} data-outbox-entry className="rounded-md border border-border bg-surface-muted p-3">
            {entry.state === 'refused' ? (
              <Banner
                tone="critical"
                title="Not sent"
                action={
                  <Button variant="secondary" size="sm" onClick={() => void discard(entry.id)}>
                    Discard
                  </Button>
                }
              >
                {entry.refusal}
              </Banner>
            ) : (
              <p className="font-semibold text-warning">{WAITING_TO_SEND}</p>
            )}
            <p className="mt-2 whitespace-pre-wrap">{entry.body}</p>
            <p className="mt-1 text-sm text-muted">
              Written {formatDateTime(entry.createdAtUtc, locale)}
              {photoCount(entry) ? ` · ${photoCount(entry)} photo${photoCount(entry) === 1 ? '' : 's'}` : ''}
              {entry.requestClose ? ' · asks to close' : ''}
            </p>
          </li>
        ))}
      </ul>
    </Section>
  )
}

function photoCount(entry: OutboxEntry): number {
  return entry.photos.length + entry.storedPhotoIds.length
}
