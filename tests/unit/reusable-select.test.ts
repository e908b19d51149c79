import { PGlite } from '@electric-sql/pglite'
import { and, asc, eq, sql } from 'drizzle-orm'
import { integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
import { drizzle } from 'drizzle-orm/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '#server/db/client'
import { reusableSelect, type ValueOf } from '#server/db/reusable-select'

// server/db/reusable-select.ts: a select built once answers what drizzle's own builder answers, in
// whichever transaction it is given, for each shape, with the same errors.
const owners = pgTable('owners', { id: integer('id').primaryKey(), name: text('name').notNull() })
const things = pgTable('things', {
  id: integer('id').primaryKey(),
  ownerId: integer('owner_id'),
  kind: text('kind').notNull(),
  at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull(),
  extra: jsonb('extra').$type<{ colour: string }>(),
})

type Values = { kind: string; after: string; limit: number }

describe('a select drizzle builds once', { timeout: 30_000 }, () => {
  let client: PGlite
  let db: Database
  let builds = 0

  const statement = reusableSelect((tx, value: ValueOf<Values>, shape: '' | 'after') => {
    builds += 1
    return tx
      .select({ id: things.id, at: things.at, extra: things.extra, owner: owners.name })
      .from(things)
      .leftJoin(owners, eq(owners.id, things.ownerId))
      .where(and(eq(things.kind, value('kind')), shape === 'after' ? sql`${things.at} > ${value('after')}::timestamptz` : undefined))
      .orderBy(asc(things.id))
      .limit(value('limit'))
  })

  /** What drizzle's own builder answers for the same values. */
  function direct(kind: string, after: Date | undefined, limit: number) {
    return db
      .select({ id: things.id, at: things.at, extra: things.extra, owner: owners.name })
      .from(things)
      .leftJoin(owners, eq(owners.id, things.ownerId))
      .where(and(eq(things.kind, kind), after ? sql`${things.at} > ${after.toISOString()}::timestamptz` : undefined))
      .orderBy(asc(things.id))
      .limit(limit)
  }

  beforeAll(async () => {
    client = await PGlite.create()
    db = drizzle({ client }) as unknown as Database
    await db.execute(sql`create table owners (id int primary key, name text not null)`)
    await db.execute(sql`create table things (id int primary key, owner_id int, kind text not null, at timestamptz not null, extra jsonb)`)
    await db.insert(owners).values({ id: 1, name: 'Ada' })
    await db.insert(things).values([
      { id: 1, ownerId: 1, kind: 'pipe', at: new Date('2026-12-01T08:00:00Z'), extra: { colour: 'red' } },
      { id: 2, ownerId: null, kind: 'pipe', at: new Date('2026-12-01T09:00:00Z'), extra: null },
      { id: 3, ownerId: 1, kind: 'valve', at: new Date('2026-12-01T10:00:00Z'), extra: { colour: 'blue' } },
      { id: 4, ownerId: 1, kind: 'pipe', at: new Date('2026-12-01T11:00:00Z'), extra: null },
    ])
  })
  afterAll(async () => {
    await client.close()
  })

  it('answers the rows, Dates, JSON and left-joined nulls drizzle’s builder answers, for each shape and value', async () => {
    const first = await statement(db, { kind: 'pipe', after: '', limit: 10 })
    expect(first).toEqual(await direct('pipe', undefined, 10))
    expect(first.map((row) => row.id)).toEqual([1, 2, 4])
    expect(first[0]?.at).toBeInstanceOf(Date)
    expect(first[0]?.extra).toEqual({ colour: 'red' })
    expect(first[1]?.owner).toBeNull()

    const after = new Date('2026-12-01T08:30:00Z')
    expect(await statement(db, { kind: 'pipe', after: after.toISOString(), limit: 1 }, 'after')).toEqual(await direct('pipe', after, 1))
    expect(await statement(db, { kind: 'valve', after: '', limit: 10 })).toEqual(await direct('valve', undefined, 10))
    expect(await statement(db, { kind: 'none', after: '', limit: 10 })).toEqual([])
    // Built once for each shape, however many calls.
    expect(builds).toBe(2)
  })

  it('runs in the transaction it is given: it sees that transaction’s writes, and nothing after a rollback', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.insert(things).values({ id: 5, ownerId: 1, kind: 'hatch', at: new Date('2026-12-02T08:00:00Z') })
        const seen = await statement(tx as unknown as Database, { kind: 'hatch', after: '', limit: 10 })
        expect(seen.map((row) => row.id)).toEqual([5])
        throw new Error('roll back')
      }),
    ).rejects.toThrow('roll back')
    expect(await statement(db, { kind: 'hatch', after: '', limit: 10 })).toEqual([])
  })

  it('fails as the builder fails: a value PostgreSQL refuses is its error, and the next call works', async () => {
    await expect(statement(db, { kind: 'pipe', after: 'not a time', limit: 10 }, 'after')).rejects.toMatchObject({ cause: { code: '22007' } })
    expect((await statement(db, { kind: 'pipe', after: '2026-12-01T10:30:00Z', limit: 10 }, 'after')).map((row) => row.id)).toEqual([4])
  })
})
