import { PGlite, types } from '@electric-sql/pglite'
import { sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/pglite'
import { date, integer, interval, numeric, pgTable, timestamp } from 'drizzle-orm/pg-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseAsDrizzleOnce } from '#server/db/pglite-parsers'

// server/db/pglite-parsers.ts: drizzle reads every value as it did when it gave PGlite its parsers
// with each query, and PGlite no longer gets them per query.
const sample = pgTable('sample', {
  id: integer('id').primaryKey(),
  at: timestamp('at', { withTimezone: true, mode: 'date' }),
  local: timestamp('local', { mode: 'string' }),
  day: date('day'),
  span: interval('span'),
  amounts: numeric('amounts').array(),
  days: date('days').array(),
  ats: timestamp('ats', { withTimezone: true, mode: 'string' }).array(),
})

describe('PGlite reads drizzle’s types once', { timeout: 30_000 }, () => {
  const clients: PGlite[] = []
  const given: Array<unknown> = []

  async function open(patched: boolean) {
    const client = await PGlite.create()
    clients.push(client)
    if (patched) {
      const query = client.query.bind(client)
      const transaction = client.transaction.bind(client)
      // Record what reaches PGlite itself, under the change.
      client.query = ((q: string, p?: unknown[], o?: Parameters<PGlite['query']>[2]) => (given.push(o?.parsers), query(q, p, o))) as PGlite['query']
      client.transaction = (<T>(callback: Parameters<PGlite['transaction']>[0]) =>
        transaction((tx) => {
          const txQuery = tx.query.bind(tx)
          tx.query = ((q: string, p?: unknown[], o?: Parameters<PGlite['query']>[2]) => (given.push(o?.parsers), txQuery(q, p, o))) as typeof tx.query
          return callback(tx) as Promise<T>
        })) as PGlite['transaction']
      parseAsDrizzleOnce(client)
    }
    const db = drizzle({ client })
    await db.execute(sql`create table sample (id int primary key, at timestamptz, local timestamp, day date, span interval, amounts numeric[], days date[], ats timestamptz[])`)
    await db.insert(sample).values({
      id: 1,
      at: new Date('2026-11-27T08:30:00.123Z'),
      local: '2026-11-27 09:30:00',
      day: '2026-11-27',
      span: '1 day 02:03:04',
      amounts: ['1.50', '20'],
      days: ['2026-01-02', '2026-03-04'],
      ats: ['2026-11-27 08:30:00+00'],
    })
    return db
  }

  let before: unknown
  let after: unknown
  let beforeRaw: unknown
  let afterRaw: unknown
  beforeAll(async () => {
    const plain = await open(false)
    const patched = await open(true)
    before = await plain.select().from(sample)
    after = await patched.transaction((tx) => tx.select().from(sample))
    beforeRaw = (await plain.execute(sql`select * from sample`)).rows
    afterRaw = (await patched.execute(sql`select * from sample`)).rows
    // Two new PGlite databases (initdb each): over the unit suite's 10 s hook limit on a busy machine.
  }, 60_000)
  afterAll(async () => {
    for (const client of clients) await client.close()
  })

  it('reads every type as before, in and out of a transaction and through execute', () => {
    expect(after).toEqual(before)
    expect(afterRaw).toEqual(beforeRaw)
    expect((after as Array<{ at: Date }>)[0]?.at).toEqual(new Date('2026-11-27T08:30:00.123Z'))
  })

  it('gives PGlite none of drizzle’s parsers, so it never copies its table per query', () => {
    expect(given.length).toBeGreaterThan(3)
    expect(given.filter(Boolean)).toEqual([])
  })

  it('keeps a query’s own parsers when they are not drizzle’s', async () => {
    const client = clients[1]!
    const { rows } = await client.query<{ n: string }>('select 41::int4 as n', [], { parsers: { [types.INT4]: (v) => `#${v}` } })
    expect(rows[0]?.n).toBe('#41')
  })
})
