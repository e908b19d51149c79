import { UploadCallError, type UploadApi } from './upload-api'
import { targetOf, type UploadTarget } from './upload-target'
import { MAX_PHOTO_BYTES, retryDelay } from './upload-chunks'
import { canShrink } from './upload-downscale'
import { failureMessage, notAPhotoMessage, tooLargeMessage } from './upload-messages'
import { isTransientUploadError, sendResumable, type UploadFile } from './upload-send'

/**
 * The queue of the upload island: one file at a time, each a resumable session at the queue's
 * target (photos of an item, a revision of a document). A dropped connection never fails a file:
 * it waits (back-off, or the browser's `online` event), asks the server where the file stands
 * (GET /api/uploads/{id}) and sends the rest from there. Only what the server refuses (type, size,
 * quota, rights, a revision code) fails a file, with a message naming it.
 */

export type EntryStatus = 'queued' | 'shrinking' | 'uploading' | 'waiting' | 'paused' | 'done' | 'failed'

export type QueueEntry = {
  key: string
  fileName: string
  /** Bytes to send: the shrunk photo's when it was shrunk. */
  size: number
  /** The photo's size before it was shrunk; null when it is sent as chosen. */
  originalSize: number | null
  /** Bytes the server has confirmed. */
  sent: number
  status: EntryStatus
  /** What the finished upload made: the photo's id, or the revision's. */
  resultId: string | null
  error: string | null
  /** Failed attempts in a row, for the back-off. */
  attempt: number
}

export type QueueEnvironment = {
  /** Calls back on the browser's `online` event; returns the unsubscribe. */
  onOnline(listener: () => void): () => void
  setTimer(callback: () => void, ms: number): unknown
  clearTimer(handle: unknown): void
}

export function browserEnvironment(): QueueEnvironment {
  return {
    onOnline: (listener) => {
      window.addEventListener('online', listener)
      return () => window.removeEventListener('online', listener)
    },
    setTimer: (callback, ms) => setTimeout(callback, ms),
    clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  }
}

export type { UploadFile }

/** Makes a smaller copy of a photo before it is sent; undefined (or a rejection) sends the original. */
export type ShrinkPhoto = (file: UploadFile) => Promise<UploadFile | undefined>

type Job = QueueEntry & { file: UploadFile; shrink: ShrinkPhoto | null; sessionId: string | null; chunkSize: number; controller: AbortController | null }

export class UploadQueue {
  private jobs: Job[] = []
  private running = false
  private snapshot: readonly QueueEntry[] = []
  private listeners = new Set<() => void>()
  private wake: (() => void) | null = null
  private nextKey = 0
  private readonly target: UploadTarget

  /** `target` is where the files go; an item id stands for that item's photos. */
  constructor(
    private readonly api: UploadApi,
    target: UploadTarget | string,
    private readonly env: QueueEnvironment,
  ) {
    this.target = targetOf(target)
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  getSnapshot = (): readonly QueueEntry[] => this.snapshot

  /** Ids of what the finished files made (photos, revisions), in the order they were chosen. */
  resultIds(): string[] {
    return this.jobs.flatMap((j) => (j.status === 'done' && j.resultId ? [j.resultId] : []))
  }

  /** The photo queue's name for resultIds. */
  photoIds(): string[] {
    return this.resultIds()
  }

  /** Files not yet stored and not failed: sending the form now would leave them out. */
  pending(): number {
    return this.jobs.filter((j) => j.status !== 'done' && j.status !== 'failed').length
  }

  /**
   * Queues files. With `shrink` (the "Shrink photos before upload" setting), each photo is shrunk
   * just before it is sent, one at a time; an over-size photo then fails only if shrinking did not
   * help. Photos are checked here (an image, not too large) before a byte goes; other files are
   * checked by the server, which reads their type from the bytes.
   */
  add(files: Iterable<UploadFile>, shrink?: ShrinkPhoto): void {
    for (const file of files) {
      const job: Job = {
        key: `u${this.nextKey++}`,
        fileName: file.name || (this.target.kind === 'photo' ? 'photo' : 'file'),
        size: file.size,
        originalSize: null,
        sent: 0,
        status: 'queued',
        resultId: null,
        error: null,
        attempt: 0,
        file,
        shrink: shrink ?? null,
        sessionId: null,
        chunkSize: 0,
        controller: null,
      }
      if (this.target.kind === 'photo') {
        if (file.type && !file.type.startsWith('image/')) this.fail(job, notAPhotoMessage(job.fileName))
        else if (file.size > MAX_PHOTO_BYTES && !(shrink && canShrink(file.type))) this.fail(job, tooLargeMessage(job.fileName, file.size))
      }
      this.jobs.push(job)
    }
    this.changed()
    void this.pump()
  }

  pause(key: string): void {
    const job = this.find(key)
    if (!job || job.status === 'done' || job.status === 'failed') return
    const waiting = job.status === 'waiting'
    job.status = 'paused'
    job.controller?.abort(new DOMException('Paused', 'AbortError'))
    if (waiting) this.retryNow()
    this.changed()
  }

  /** Resumes a paused file, or retries a failed one (from the server's offset when it has a session). */
  resume(key: string): void {
    const job = this.find(key)
    if (!job || (job.status !== 'paused' && job.status !== 'failed')) return
    job.status = 'queued'
    job.error = null
    job.attempt = 0
    this.changed()
    this.retryNow()
    void this.pump()
  }

  /** Takes a file out of the queue; its unfinished session is aborted so its bytes go. */
  remove(key: string): void {
    const job = this.find(key)
    if (!job) return
    this.jobs = this.jobs.filter((j) => j !== job)
    const waiting = job.status === 'waiting'
    job.status = 'failed'
    job.controller?.abort(new DOMException('Removed', 'AbortError'))
    if (waiting) this.retryNow()
    if (job.sessionId && !job.resultId) void this.api.abort(job.sessionId).catch(() => undefined)
    this.changed()
  }

  /** Stops waiting out a back-off (e.g. the connection is back). */
  retryNow(): void {
    const wake = this.wake
    this.wake = null
    wake?.()
  }

  private find(key: string): Job | undefined {
    return this.jobs.find((j) => j.key === key)
  }

  private fail(job: Job, message: string): void {
    job.status = 'failed'
    job.error = message
  }

  private changed(): void {
    this.snapshot = this.jobs.map(({ key, fileName, size, originalSize, sent, status, resultId, error, attempt }) => ({
      key,
      fileName,
      size,
      originalSize,
      sent,
      status,
      resultId,
      error,
      attempt,
    }))
    for (const listener of this.listeners) listener()
  }

  private async pump(): Promise<void> {
    if (this.running) return
    this.running = true
    try {
      for (;;) {
        const job = this.jobs.find((j) => j.status === 'queued' || j.status === 'waiting')
        if (!job) return
        await this.run(job)
      }
    } finally {
      this.running = false
    }
  }

  private active(job: Job): boolean {
    return this.jobs.includes(job) && (job.status === 'uploading' || job.status === 'queued' || job.status === 'waiting' || job.status === 'shrinking')
  }

  /** Shrinks the photo once, before its first byte goes; any failure keeps the original. */
  private async shrink(job: Job): Promise<void> {
    const shrink = job.shrink
    if (!shrink || job.sessionId) return
    job.shrink = null
    job.status = 'shrinking'
    this.changed()
    let smaller: UploadFile | undefined
    try {
      smaller = await shrink(job.file)
    } catch {
      smaller = undefined
    }
    if (smaller && smaller.size > 0 && smaller.size < job.file.size) {
      job.originalSize = job.file.size
      job.file = smaller
      job.size = smaller.size
      job.fileName = smaller.name || job.fileName
    }
    if (job.status === 'shrinking') job.status = 'queued'
    if (this.target.kind === 'photo' && job.size > MAX_PHOTO_BYTES && this.jobs.includes(job)) this.fail(job, tooLargeMessage(job.fileName, job.size))
    this.changed()
  }

  private async run(job: Job): Promise<void> {
    await this.shrink(job)
    while (this.active(job)) {
      job.status = 'uploading'
      this.changed()
      try {
        await this.send(job)
        return
      } catch (error) {
        if (!this.active(job)) return
        if (isTransientUploadError(error)) {
          job.status = 'waiting'
          job.error = null
          const attempt = job.attempt++
          this.changed()
          await this.waitToRetry(attempt)
          continue
        }
        const call = error instanceof UploadCallError ? error : undefined
        // A refused file's session is gone (type, checksum) or useless: a retry starts afresh.
        job.sessionId = null
        job.sent = 0
        this.fail(job, failureMessage(job.fileName, call?.status, call?.problem, this.target.kind))
        this.changed()
        return
      }
    }
  }

  /** Sends what the server does not have yet, then completes. Resumes from the server's offset. */
  private async send(job: Job): Promise<void> {
    try {
      const resultId = await sendResumable(this.api, this.target, job.file, job.sessionId, {
        onSession: (sessionId, offset, chunkSize) => {
          job.sessionId = sessionId
          job.chunkSize = chunkSize
          job.sent = offset
          this.changed()
        },
        onProgress: (offset) => {
          job.sent = offset
          job.attempt = 0
          this.changed()
        },
        active: () => this.active(job),
        chunkSignal: () => (job.controller = new AbortController()).signal,
      })
      if (resultId) this.finish(job, resultId)
    } finally {
      job.controller = null
    }
  }

  private finish(job: Job, resultId: string): void {
    job.status = 'done'
    job.resultId = resultId
    job.sent = job.size
    job.error = null
    this.changed()
  }

  /** The back-off, cut short by the `online` event (or retryNow). Offline, it keeps trying anyway. */
  private waitToRetry(attempt: number): Promise<void> {
    return new Promise((resolve) => {
      const wait: { timer?: unknown; unsubscribe?: () => void } = {}
      const done = () => {
        this.env.clearTimer(wait.timer)
        wait.unsubscribe?.()
        if (this.wake === done) this.wake = null
        resolve()
      }
      this.wake = done
      wait.unsubscribe = this.env.onOnline(done)
      wait.timer = this.env.setTimer(done, retryDelay(attempt))
    })
  }
}
