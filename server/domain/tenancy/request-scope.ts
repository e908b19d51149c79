import { AsyncLocalStorage } from 'node:async_hooks'
import { setImmediate } from 'node:timers'
import type { Database, Tx } from '#server/db/client'
import { Problem } from '#server/http/problem'

/**
 * One page request's context (issue 37, docs/performance.md "What a screen costs the server"): a
 * page's loaders make several calls to the backend in process, and without it each call read the
 * session again and ran its own tenant transaction (BEGIN, set_config, membership, work, COMMIT).
 * Made by the front door per page and handed to every call of the page with the call's bindings.
 *
 * - The session is read once per token (and its expiry slid on once).
 * - Reads (GET and HEAD calls) share one tenant transaction, membership checked once; it commits
 *   as soon as no read is using it (the loaders' calls started together share it).
 * - An unsafe call (an action's POST) first ends the shared transaction and forgets the sessions
 *   read, so it and everything after it see the world as it is.
 */
export type RequestScope<S = unknown> = {
  /** Sessions resolved by this request, by token. */
  sessions: Map<string, Promise<S>>
  /**
   * CSRF tokens minted by this request's calls, by binding: a visitor without a token cookie gets
   * one token for the whole page, not one per call (the page's form carries the root loader's,
   * the browser keeps the last Set-Cookie, and two different ones never match).
   */
  csrfTokens: Map<string, string>
  reads: SharedReads
  /** Before an unsafe call: the shared reads end (committed) and nothing read before is reused. */
  settle(): Promise<void>
}

export function createRequestScope<S>(): RequestScope<S> {
  const sessions = new Map<string, Promise<S>>()
  const reads = new SharedReads()
  return {
    sessions,
    csrfTokens: new Map(),
    reads,
    async settle() {
      sessions.clear()
      await reads.end()
    },
  }
}

/** The membership the shared transaction checked: what asMember needs of it. */
export type Membership = { roleKey: string; status: string }

/**
 * What every signed-in page shows of the member and their organisation (the session view, the
 * telemetry switches), read with the membership in the shared transaction's one opening statement.
 */
export type MemberFacts = {
  displayName: string
  email: string
  tenantName: string
  tenantSlug: string
  featureFlags: Record<string, unknown>
  orgSettings: Record<string, unknown>
  /** The organisation's saved telemetry configuration (admin_config), if there is a row. */
  telemetryConfig: { values: Record<string, unknown>; version: number } | undefined
}

/**
 * What a shared transaction read once as it began: the membership (undefined for a non-member),
 * the member's facts, and other reads answered already (by `readOnceIn` key, see `rememberIn`).
 */
export type Opened = { membership: Membership | undefined; member: MemberFacts | undefined; known?: [key: string, value: unknown][] }

type Shared = {
  db: Database
  key: string
  /** The open transaction and what it read as it began, or the reason there is none. */
  ready: Promise<{ tx: Tx; opened: Opened }>
  users: number
  closing: boolean
  /** A work failed for a reason other than a Problem (a failed statement): roll back. */
  failed: boolean
  release: () => void
  done: Promise<void>
}

/** Signals the shared transaction to roll back instead of committing. */
class RollBack extends Error {}

/**
 * The reads of one request sharing one tenant transaction. `open` is how a transaction is begun
 * (withTenant plus the membership read), given by the caller so this module needs no table.
 */
export class SharedReads {
  #current: Shared | undefined

  async run<T>(
    db: Database,
    tenantId: string,
    userId: string,
    open: (db: Database, tenantId: string, userId: string, inside: (tx: Tx, opened: Opened) => Promise<void>) => Promise<void>,
    work: (tx: Tx, opened: Opened) => Promise<T>,
  ): Promise<T> {
    const key = `${tenantId}/${userId}`
    let shared = this.#current
    if (!shared || shared.closing || shared.db !== db || shared.key !== key) {
      // Another member's or a closing transaction: a new one (on PGlite it waits for the other).
      shared = this.#open(db, key, (inside) => open(db, tenantId, userId, inside))
      this.#current = shared
    }
    shared.users += 1
    try {
      const { tx, opened } = await shared.ready
      return await work(tx, opened)
    } catch (error) {
      if (!(error instanceof Problem)) shared.failed = true
      throw error
    } finally {
      shared.users -= 1
      if (shared.users === 0) {
        if (shared.closing) shared.release()
        else this.#closeWhenIdle(shared)
      }
    }
  }

  /** Ends the shared transaction as soon as the reads in it are done (an unsafe call comes). */
  async end(): Promise<void> {
    const shared = this.#current
    if (!shared) return
    this.#close(shared)
    await shared.done
  }

  #open(db: Database, key: string, begin: (inside: (tx: Tx, opened: Opened) => Promise<void>) => Promise<void>): Shared {
    let resolveReady!: (value: { tx: Tx; opened: Opened }) => void
    let rejectReady!: (error: unknown) => void
    const ready = new Promise<{ tx: Tx; opened: Opened }>((resolve, reject) => {
      resolveReady = resolve
      rejectReady = reject
    })
    ready.catch(() => {})
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const shared: Shared = { db, key, ready, users: 0, closing: false, failed: false, release, done: Promise.resolve() }
    shared.done = begin(async (tx, opened) => {
      sharedTransactions.add(tx)
      for (const [readKey, value] of opened.known ?? []) rememberIn(tx, readKey, value)
      resolveReady({ tx, opened })
      await released
      if (shared.failed) throw new RollBack()
    }).then(
      () => undefined,
      (error: unknown) => {
        // Beginning failed (the database is away): every read waiting is told. A roll-back asked for is no failure.
        rejectReady(error)
        shared.closing = true
        if (this.#current === shared) this.#current = undefined
      },
    )
    return shared
  }

  /** Reads started together share the transaction: it ends once a turn of the event loop has passed with none using it. */
  #closeWhenIdle(shared: Shared): void {
    setImmediate(() => {
      if (shared.users === 0) this.#close(shared)
    })
  }

  /** No read joins it any more; it commits once the reads in it are done. */
  #close(shared: Shared): void {
    if (this.#current === shared) this.#current = undefined
    if (shared.closing) return
    shared.closing = true
    if (shared.users === 0) shared.release()
  }
}

/** The shared reads of the call being served, when it is a read of a page request. */
export const readScope = new AsyncLocalStorage<SharedReads>()

/** The transactions that only reads share: a row read in one stays as it was until it ends. */
const sharedTransactions = new WeakSet<Tx>()
const readsIn = new WeakMap<Tx, Map<string, Promise<unknown>>>()

/**
 * A read asked again in the page's shared read transaction (the item page's calls each look up the
 * item) is answered from the first; outside one (a write's own transaction) it is always read.
 */
export function readOnceIn<T>(tx: Tx, key: string, read: () => Promise<T>): Promise<T> {
  if (!sharedTransactions.has(tx)) return read()
  let reads = readsIn.get(tx)
  if (!reads) readsIn.set(tx, (reads = new Map()))
  let answer = reads.get(key) as Promise<T> | undefined
  if (!answer) {
    answer = read()
    reads.set(key, answer)
    answer.catch(() => reads.delete(key))
  }
  return answer
}

/**
 * A read answered already (by the shared transaction's opening statement: the bell's unread
 * count, which every signed-in page's shell asks), given to `readOnceIn` under `key` as if read
 * there. Outside a shared transaction nothing is remembered.
 */
function rememberIn<T>(tx: Tx, key: string, value: T): void {
  if (!sharedTransactions.has(tx)) return
  let reads = readsIn.get(tx)
  if (!reads) readsIn.set(tx, (reads = new Map()))
  reads.set(key, Promise.resolve(value))
}

/** The `readOnceIn` key of a member's unread notification count. */
export function unreadCountKey(tenantId: string, userId: string): string {
  return `notifications-unread:${tenantId}:${userId}`
}

