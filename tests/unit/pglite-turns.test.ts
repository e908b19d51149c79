import { setImmediate } from 'node:timers'
import { PGlite } from '@electric-sql/pglite'
import { afterEach, describe, expect, it } from 'vitest'
import { PGLITE_TURN_MS, takeTurns } from '#server/db/turns'

// server/db/turns.ts: PGlite answers in microtasks, so without turns a burst of work finishes
// before the event loop can accept a connection or read a socket.
// Each test opens its own PGlite (2–4 s; the file's first also compiles its WebAssembly).
describe('PGlite takes turns with the event loop', { timeout: 30_000 }, () => {
  const clients: PGlite[] = []
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close()
  })

  /** Rows a statement of the burst sums: about a millisecond of work. */
  const WORK = 20_000

  async function burst(turnMs?: number): Promise<{ beforeNextTurn: number; order: number[] }> {
    const client = await PGlite.create()
    clients.push(client)
    if (turnMs !== undefined) takeTurns(client, turnMs)
    await client.query('select 1')
    const order: number[] = []
    const work = Array.from({ length: 40 }, (_, n) =>
      (n % 2 === 0
        ? client.transaction(async (tx) => {
            await tx.query('select sum(g) from generate_series(1, $1::int) g', [WORK])
            await tx.query('select 2')
          })
        : client.query('select sum(g) from generate_series(1, $1::int) g', [WORK])
      ).then(() => order.push(n)),
    )
    // What a connection waiting to be accepted would see: how much ran before the loop's next turn.
    const beforeNextTurn = await new Promise<number>((resolve) => setImmediate(() => resolve(order.length)))
    await Promise.all(work)
    return { beforeNextTurn, order }
  }

  it('without turns, a burst of 40 runs to its end inside one turn (the starvation turns prevent)', async () => {
    expect((await burst()).beforeNextTurn).toBe(40)
  })

  it("with turns, work past the turn's time waits for the next turn, in the order it was asked for", async () => {
    // No time at all: one piece in the turn it was asked in, one more when the next turn begins.
    const strict = await burst(0)
    expect(strict.beforeNextTurn).toBeGreaterThan(0)
    expect(strict.beforeNextTurn).toBeLessThanOrEqual(2)
    expect(strict.order).toEqual(Array.from({ length: 40 }, (_, n) => n))
  })

  it("with the server's turn, some milliseconds of work go in a turn, not the whole burst", async () => {
    const server = await burst(PGLITE_TURN_MS)
    expect(server.beforeNextTurn).toBeGreaterThan(0)
    expect(server.beforeNextTurn).toBeLessThan(40)
    expect(server.order).toEqual(Array.from({ length: 40 }, (_, n) => n))
  })

  it("work that comes one piece after another within the turn's time is not held", async () => {
    const client = await PGlite.create()
    clients.push(client)
    takeTurns(client, 60_000)
    let done = 0
    const chain = (async () => {
      for (let n = 0; n < 40; n++) {
        await client.query('select $1::int', [n])
        done += 1
      }
    })()
    const beforeNextTurn = await new Promise<number>((resolve) => setImmediate(() => resolve(done)))
    await chain
    expect(beforeNextTurn).toBe(40)
  })

  it('a statement inside an admitted transaction is not held back (no wait on itself)', async () => {
    const client = await PGlite.create()
    clients.push(client)
    takeTurns(client, 0)
    const rows = await client.transaction(async (tx) => {
      for (let n = 0; n < 10; n++) await tx.query('select $1::int as n', [n])
      return (await tx.query<{ n: number }>('select 10 as n')).rows
    })
    expect(rows).toEqual([{ n: 10 }])
  })
})
