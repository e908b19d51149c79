import type { Item, Project, Report } from '~/lib/reporting/types'
import { ERROR_CODES } from '~/lib/constants'

/**
 * Spec §3 "Sync state" and §4 "Sync": the rules, free of IndexedDB and fetch so each is tested on
 * its own. The entities (projects, reports, reportItems, each keyed by id) live in a `Collections`
 * (the browser's IndexedDB copy, or Maps in tests); the status, cursor, pendingOrigin,
 * requestToken and error are the reducer's.
 */

export type SyncStatus = 'idle' | 'loading' | 'succeeded' | 'failed'
export type SyncCursor = { value: string; expiresAtUtc: string }
export type EntityKind = 'projects' | 'reports' | 'reportItems'
export type EntityOf = { projects: Project; reports: Report; reportItems: Item }

/** The feed's entity names (docs/site-reporting.md "Change log") and where each is kept. */
export const KIND_OF = { Project: 'projects', Report: 'reports', ReportItem: 'reportItems' } as const satisfies Record<string, EntityKind>
export type SyncedEntity = keyof typeof KIND_OF

export type SyncEntry = {
  entity: SyncedEntity
  changeType: 'Created' | 'Updated' | 'Deleted'
  revision: number
  entityId: string
  data: Project | Report | Item | null
}
export type SnapshotPage = { snapshot: { projects: Project[]; reports: Report[]; reportItems: Item[] }; cursor: SyncCursor; hasMore: boolean }
export type ChangesPage = { changes: SyncEntry[]; cursor: SyncCursor; hasMore: boolean }

/** Where entities are kept: each operation is one write. */
export type Collections = {
  upsert<K extends EntityKind>(kind: K, value: EntityOf[K]): void
  remove(kind: EntityKind, id: string): void
  clear(): void
}

/** A snapshot page: every entity in it is upserted. */
export function applySnapshot(collections: Collections, page: SnapshotPage['snapshot']): void {
  for (const project of page.projects) collections.upsert('projects', project)
  for (const report of page.reports) collections.upsert('reports', report)
  for (const item of page.reportItems) collections.upsert('reportItems', item)
}

/** Later changes, by entity: Deleted removes the entry, any other change type upserts it. */
export function applyChanges(collections: Collections, changes: readonly SyncEntry[]): void {
  for (const change of changes) {
    const kind: EntityKind | undefined = KIND_OF[change.entity]
    // An entity type this client does not keep (the feed may grow) is skipped, not a failure.
    if (kind === undefined) continue
    if (change.changeType === 'Deleted' || change.data === null) collections.remove(kind, change.entityId)
    else collections.upsert(kind, change.data as EntityOf[typeof kind])
  }
}

export type SyncState = {
  status: SyncStatus
  cursor: SyncCursor | null
  /** What asked for the pull under way (start, online, visible, timer, realtime, retry, stale). */
  pendingOrigin: string | null
  /** The pull under way; results of any other are ignored. */
  requestToken: string | null
  error: string | null
  /** Failures in a row, for the back-off; 0 after a success. */
  failures: number
  lastSyncedAt: string | null
}

export const initialSyncState: SyncState = {
  status: 'idle',
  cursor: null,
  pendingOrigin: null,
  requestToken: null,
  error: null,
  failures: 0,
  lastSyncedAt: null,
}

export type SyncAction =
  /** A stored copy was opened: its cursor and when it was last synced. */
  | { type: 'restored'; cursor: SyncCursor | null; lastSyncedAt: string | null }
  | { type: 'pullStarted'; origin: string; requestToken: string }
  /** The pull's last page was applied: the cursor to keep. */
  | { type: 'pullSucceeded'; requestToken: string; cursor: SyncCursor; at: string }
  | { type: 'pullFailed'; requestToken: string; status: number | undefined; code: string | undefined; message: string }
  /** Sign-out or a revoked device: nothing kept. */
  | { type: 'reset' }

export function syncReducer(state: SyncState, action: SyncAction): SyncState {
  switch (action.type) {
    case 'restored':
      return { ...state, cursor: action.cursor, lastSyncedAt: action.lastSyncedAt }
    case 'pullStarted':
      return { ...state, status: 'loading', pendingOrigin: action.origin, requestToken: action.requestToken, error: null }
    case 'pullSucceeded':
      if (action.requestToken !== state.requestToken) return state
      return {
        ...state,
        status: 'succeeded',
        cursor: action.cursor,
        pendingOrigin: null,
        requestToken: null,
        error: null,
        failures: 0,
        lastSyncedAt: action.at,
      }
    case 'pullFailed':
      if (action.requestToken !== state.requestToken) return state
      // Spec §4/§8: a stale cursor resets sync; the caller restarts a full pull.
      if (isStaleCursor(action.status, action.code)) return { ...initialSyncState, lastSyncedAt: state.lastSyncedAt }
      return { ...state, status: 'failed', pendingOrigin: null, requestToken: null, error: action.message, failures: state.failures + 1 }
    case 'reset':
      return initialSyncState
  }
}

/** Spec §4: status 410 or code KR_SYNC_CURSOR_STALE. */
export function isStaleCursor(status: number | undefined, code: string | undefined): boolean {
  return status === 410 || code === ERROR_CODES.syncCursorStale
}

/** Spec §9: the retry after the n-th failure in a row waits 1 s, doubling, at most 30 s. */
export const SYNC_RETRY_FIRST_MS = 1000
export const SYNC_RETRY_MAX_MS = 30_000
export function syncRetryDelayMs(failures: number): number {
  return Math.min(SYNC_RETRY_FIRST_MS * 2 ** Math.max(0, failures - 1), SYNC_RETRY_MAX_MS)
}

/** Spec §4: sync starts when signed in, mobile sync is on, and there is no cursor yet. */
export function shouldStartInitialSync(input: { signedIn: boolean; mobileSync: boolean; cursor: SyncCursor | null }): boolean {
  return input.signedIn && input.mobileSync && input.cursor === null
}
