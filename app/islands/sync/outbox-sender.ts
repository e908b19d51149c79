import type { ApiClient, ApiError } from '~/lib/api/types'
import { UploadCallError, type UploadApi } from '~/islands/upload/upload-api'
import { isTransientUploadError, sendResumable } from '~/islands/upload/upload-send'
import type { Outbox, OutboxEntry } from './outbox'

/**
 * Sends the outbox, oldest first: each photo through the resumable upload (its session and photo
 * id are written back as they come), then the response with the entry's id as Idempotency-Key, and
 * the entry goes. No answer, a busy server or a lost session stops the pass: the entry waits for the
 * next one, where it resumes. A refusal (the item was closed meanwhile, the user lost the right)
 * keeps the entry with its reason, for the user to read their text and discard it. A sent entry
 * stays marked as sent for a while (SENT_MARK_MS), so an item page that loaded before it arrived
 * knows to reload.
 */

export type FlushResult = { sent: OutboxEntry[]; refused: OutboxEntry[]; stopped: boolean }

export const ITEM_CLOSED_REFUSAL = 'The item was closed before your response could be sent. Your text is kept here.'

/** A sent entry is kept this long for an item page to notice it (OutboxPanel), then removed. */
export const SENT_MARK_MS = 10 * 60_000

export async function flushOutbox(outbox: Outbox, api: ApiClient, uploads: UploadApi, now = Date.now()): Promise<FlushResult> {
  const result: FlushResult = { sent: [], refused: [], stopped: false }
  for (const entry of await outbox.list()) {
    if (entry.state === 'sent' && now - Date.parse(entry.sentAtUtc ?? '') > SENT_MARK_MS) await outbox.remove(entry.id)
    if (entry.state !== 'waiting') continue
    const outcome = await sendEntry(outbox, api, uploads, entry)
    if (outcome === 'stopped') {
      result.stopped = true
      break
    }
    result[outcome].push(entry)
  }
  return result
}

async function sendEntry(outbox: Outbox, api: ApiClient, uploads: UploadApi, entry: OutboxEntry): Promise<'sent' | 'refused' | 'stopped'> {
  for (const photo of entry.photos) {
    if (photo.photoId) continue
    try {
      const file = new File([photo.blob], photo.name, { type: photo.type })
      photo.photoId = await sendResumable(uploads, entry.itemId, file, photo.sessionId, {
        onSession: async (sessionId) => {
          if (photo.sessionId === sessionId) return
          photo.sessionId = sessionId
          await outbox.put(entry)
        },
        onProgress: () => undefined,
        active: () => true,
        chunkSignal: () => new AbortController().signal,
      })
      await outbox.put(entry)
    } catch (error) {
      if (isTransientUploadError(error) || isSignedOut(error)) return 'stopped'
      const detail = error instanceof UploadCallError ? error.problem?.detail : undefined
      return refuse(outbox, entry, `The photo ${photo.name} could not be sent${detail ? `: ${detail}` : '.'}`)
    }
  }
  const photoIds = [...entry.storedPhotoIds, ...entry.photos.flatMap((p) => (p.photoId ? [p.photoId] : []))]
  const answer = await api.POST('/api/items/{id}/responses', { path: { id: entry.itemId }, body: { body: entry.body, requestClose: entry.requestClose, photoIds }, idempotencyKey: entry.id })
  if (answer.ok) {
    entry.state = 'sent'
    entry.sentAtUtc = new Date().toISOString()
    await outbox.put(entry)
    return 'sent'
  }
  if (isTransientCall(answer.error)) return 'stopped'
  if (answer.error.problem?.code === 'KR_ITEM_CLOSED') return refuse(outbox, entry, ITEM_CLOSED_REFUSAL)
  return refuse(outbox, entry, answer.error.problem?.detail ?? answer.error.message)
}

async function refuse(outbox: Outbox, entry: OutboxEntry, reason: string): Promise<'refused'> {
  entry.state = 'refused'
  entry.refusal = reason
  await outbox.put(entry)
  return 'refused'
}

/** No answer, a busy or failing server, or no session (sign in again, then it goes). */
function isTransientCall(error: ApiError): boolean {
  if (error.kind === 'FETCH_ERROR' || error.kind === 'TIMEOUT_ERROR') return true
  const status = error.status ?? 0
  return status === 401 || status === 408 || status === 429 || status >= 500
}

function isSignedOut(error: unknown): boolean {
  return error instanceof UploadCallError && error.status === 401
}
