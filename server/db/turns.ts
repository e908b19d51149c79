import { setImmediate } from 'node:timers'
import type { PGlite } from '@electric-sql/pglite'

/**
 * How long PGlite work may run in one turn of the event loop before what comes next waits for the
 * next turn. A statement or transaction takes a few milliseconds, so a turn stays short however many
 * requests wait (bench/load.ts; docs/performance.md "Load and faults").
 */
export const PGLITE_TURN_MS = 10

/**
 * PGlite runs inside this process and answers in microtasks, not through I/O, so a burst of
 * requests used to run every one of its queries to the end inside one turn of the event loop. A
 * turn then lasted a second or more under load, and since Node accepts one new connection per turn
 * (libuv), a connection opened during a burst waited in the kernel's queue for half a minute while
 * those already open were served. Here the client's statements and transactions go one at a time
 * (PGlite runs them so anyway), in the order they were asked for, while the turn's work is under
 * `turnMs`; past it the rest wait for the next turn (setImmediate), so accepting connections and
 * reading sockets get their turn in between. Work that comes one piece after another in a quiet
 * process (a lone request, a test) is held once per `turnMs` at most; statements inside a
 * transaction are never held: the transaction was admitted as a whole.
 */
export function takeTurns(client: PGlite, turnMs = PGLITE_TURN_MS): void {
  const waiting: Array<() => void> = []
  /** When this turn's PGlite work began; undefined until some starts in it. */
  let turnStarted: number | undefined
  let turnScheduled = false
  /** Let go and not yet settled (PGlite runs one at a time anyway). */
  let running = 0

  const inBudget = () => turnStarted === undefined || performance.now() - turnStarted < turnMs
  const scheduleTurn = () => {
    if (turnScheduled) return
    turnScheduled = true
    setImmediate(nextTurn)
  }
  function nextTurn() {
    turnScheduled = false
    turnStarted = undefined
    letNextGo()
  }
  /** The first waiting piece goes if nothing runs and the turn has time left; else a later call lets it go. */
  function letNextGo() {
    if (waiting.length === 0 || running > 0) return
    // The turn's clock stops at the loop's next turn.
    scheduleTurn()
    if (!inBudget()) return
    turnStarted ??= performance.now()
    running += 1
    waiting.shift()?.()
  }
  const inTurn = async <T>(work: () => Promise<T>): Promise<T> => {
    await new Promise<void>((resolve) => {
      waiting.push(resolve)
      letNextGo()
    })
    try {
      return await work()
    } finally {
      running -= 1
      letNextGo()
    }
  }

  const query = client.query.bind(client)
  const exec = client.exec.bind(client)
  const transaction = client.transaction.bind(client)
  client.query = ((...args: Parameters<PGlite['query']>) => inTurn(() => query(...args))) as PGlite['query']
  client.exec = (...args: Parameters<PGlite['exec']>) => inTurn(() => exec(...args))
  client.transaction = ((callback: Parameters<PGlite['transaction']>[0]) => inTurn(() => transaction(callback))) as PGlite['transaction']
}
