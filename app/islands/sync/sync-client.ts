import type { ApiClient, ApiError } from '~/lib/api/types'
import { ERROR_CODES, HEADERS } from '~/lib/constants'
import { track } from '~/lib/telemetry'
import type { LocalCopy, Owner } from './local-copy'
import { applyChanges, applySnapshot, initialSyncState, isStaleCursor, shouldStartInitialSync, syncReducer, syncRetryDelayMs, type SyncAction, type SyncState } from './state'

/** The phone's scope of the feed (docs/site-reporting.md "Mobile scope"). */
export const SYNC_PATH = '/api/sync/changes-mobile'
/** With nothing else to prompt a pull (no live connection), this often. */
export const SYNC_POLL_MS = 60_000

export type SyncClientDeps = {
  api: ApiClient
  openCopy: (owner: Owner) => Promise<LocalCopy>
  clearCopy: (owner: Owner) => Promise<void>
  /** This browser's device id (the API client's client id). */
  deviceId: string
  now?: () => Date
  setTimer?: (work: () => void, ms: number) => unknown
  clearTimer?: (timer: unknown) => void
  randomToken?: () => string
}

/** The reducer's state, plus what the status line shows: a revoked device, the items kept, when the next retry runs. */
export type SyncSnapshotState = SyncState & { revoked: boolean; entities: number; retryAt: number | undefined }

/**
 * The tab's sync loop (spec §4 "Sync"): opens the owner's copy, pulls the whole scope when it has
 * no cursor and the changes after it otherwise, page by page, each page written with its cursor in
 * one transaction; retries with back-off (1 s doubling to 30 s); a stale cursor (410) empties the
 * copy and pulls it all again; a revoked device (403 KR_DEVICE_REVOKED) deletes the copy and stops.
 * `pull(origin)` is what the triggers call (start, realtime, online, visible, timer).
 */
export class SyncClient {
  private state: SyncSnapshotState = { ...initialSyncState, revoked: false, entities: 0, retryAt: undefined }
  private readonly listeners = new Set<() => void>()
  private copy: LocalCopy | undefined
  private owner: Owner | undefined
  private running: Promise<void> | undefined
  private again = false
  private retryTimer: unknown
  private registered = false
  private generation = 0

  constructor(private readonly deps: SyncClientDeps) {}

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  getSnapshot = (): SyncSnapshotState => this.state

  /** Opens the owner's copy and pulls: everything without a cursor (spec §4), else what changed. */
  async start(owner: Owner): Promise<void> {
    if (this.owner && this.owner.userId === owner.userId && this.owner.tenantId === owner.tenantId) return
    await this.stop()
    const generation = ++this.generation
    const copy = await this.deps.openCopy(owner)
    if (generation !== this.generation) return copy.close()
    this.owner = owner
    this.copy = copy
    const [cursor, lastSyncedAt, entities] = await Promise.all([copy.cursor(), copy.lastSyncedAt(), copy.count('reportItems')])
    this.dispatch({ type: 'restored', cursor, lastSyncedAt }, { entities })
    // Spec §4: without a cursor this first pull is the whole scope; with one, what changed while away.
    this.pull(shouldStartInitialSync({ signedIn: true, mobileSync: true, cursor }) ? 'start' : 'resume')
  }

  async stop(): Promise<void> {
    this.generation++
    this.clearRetry()
    const running = this.running
    this.owner = undefined
    await running?.catch(() => undefined)
    this.copy?.close()
    this.copy = undefined
  }

  /** Asks for a pull; one runs at a time, and a request during one makes one more after it. */
  pull(origin: string): void {
    if (!this.copy || this.state.revoked) return
    if (this.running) {
      this.again = true
      return
    }
    this.clearRetry()
    this.running = this.run(origin).finally(() => {
      this.running = undefined
      if (this.again) {
        this.again = false
        this.pull('again')
      }
    })
  }

  private async run(origin: string): Promise<void> {
    const copy = this.copy
    const generation = this.generation
    if (!copy) return
    const requestToken = this.deps.randomToken?.() ?? Math.random().toString(36).slice(2)
    this.dispatch({ type: 'pullStarted', origin, requestToken })
    const headers = { [HEADERS.deviceId]: this.deps.deviceId }
    try {
      if (!this.registered) {
        const registered = await this.deps.api.POST('/auth/devices/register', { body: { deviceId: this.deps.deviceId, platform: 'web', name: 'Web browser' } })
        if (!registered.ok) throw registered.error
        this.registered = true
      }
      let cursor = this.state.cursor
      // A pull without a cursor is a full snapshot: what the copy held is replaced by its pages.
      let fresh = cursor === null
      let continuation: string | undefined
      for (;;) {
        const at = continuation ?? cursor?.value
        const result = await this.deps.api.GET('/api/sync/changes-mobile', { query: { cursor: at ?? undefined }, headers })
        if (generation !== this.generation) return
        if (!result.ok) throw result.error
        const page = result.data
        const done = !page.hasMore
        const meta = done ? { cursor: page.cursor, lastSyncedAt: (this.deps.now?.() ?? new Date()).toISOString() } : undefined
        const clearFirst = fresh
        await copy.write((collections) => {
          if (clearFirst) collections.clear()
          if ('snapshot' in page) applySnapshot(collections, page.snapshot)
          else applyChanges(collections, page.changes)
        }, meta)
        fresh = false
        if ('snapshot' in page) continuation = page.cursor.value
        else cursor = page.cursor
        if (done) {
          const entities = await copy.count('reportItems')
          this.dispatch({ type: 'pullSucceeded', requestToken, cursor: page.cursor, at: meta?.lastSyncedAt ?? '' }, { entities })
          return
        }
      }
    } catch (cause) {
      if (generation !== this.generation) return
      const error = cause as Partial<ApiError>
      const status = error.status
      const code = error.problem?.code
      if (status === 403 && code === ERROR_CODES.deviceRevoked) {
        const owner = this.owner
        this.dispatch({ type: 'reset' }, { revoked: true, entities: 0 })
        if (owner) await this.forgetCopy(owner)
        return
      }
      this.dispatch({ type: 'pullFailed', requestToken, status, code, message: error.message ?? String(cause) })
      if (isStaleCursor(status, code)) {
        // The copy is reset too: the next pull takes a whole snapshot into an empty copy.
        await copy.write((collections) => collections.clear(), { cursor: null, lastSyncedAt: this.state.lastSyncedAt })
        this.again = true
        return
      }
      this.scheduleRetry()
    }
  }

  private async forgetCopy(owner: Owner): Promise<void> {
    this.copy?.close()
    this.copy = undefined
    await this.deps.clearCopy(owner)
  }

  private scheduleRetry(): void {
    const delay = syncRetryDelayMs(this.state.failures)
    const set = this.deps.setTimer ?? ((work: () => void, ms: number) => setTimeout(work, ms))
    this.retryTimer = set(() => {
      this.retryTimer = undefined
      this.pull('retry')
    }, delay)
    this.setExtra({ retryAt: (this.deps.now?.() ?? new Date()).getTime() + delay })
  }

  private clearRetry(): void {
    if (this.retryTimer === undefined) return
    ;(this.deps.clearTimer ?? ((timer: unknown) => clearTimeout(timer as ReturnType<typeof setTimeout>)))(this.retryTimer)
    this.retryTimer = undefined
  }

  private dispatch(action: SyncAction, extra: Partial<SyncSnapshotState> = {}): void {
    const next = syncReducer(this.state, action)
    if (next.status !== this.state.status) track('web.sync.state', { status: next.status, after: this.state.status, failures: next.failures })
    this.state = { ...next, revoked: extra.revoked ?? this.state.revoked, entities: extra.entities ?? this.state.entities, retryAt: undefined }
    for (const listener of this.listeners) listener()
  }

  private setExtra(extra: Partial<SyncSnapshotState>): void {
    this.state = { ...this.state, ...extra }
    for (const listener of this.listeners) listener()
  }
}
