import { messages, PGlite } from '@electric-sql/pglite'
import { eq, sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/pglite'
import { integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseAsDrizzleOnce } from '#server/db/pglite-parsers'
import { prepareStatements } from '#server/db/pglite-statements'

// server/db/pglite-statements.ts: a prepared statement answers what PGlite's own query() answers,
// fails the same way, and row-level security holds on a plan PostgreSQL has cached.
const notes = pgTable('notes', {
  id: integer('id').primaryKey(),
  tenant: text('tenant').notNull(),
  body: text('body'),
  facts: jsonb('facts').$type<Record<string, unknown>>(),
  at: timestamp('at', { withTimezone: true, mode: 'date' }),
})

const SCHEMA = `
  create table notes (id int primary key, tenant text not null, body text, facts jsonb, at timestamptz);
  create role note_reader;
  grant select, insert, update, delete on notes to note_reader;
  alter table notes enable row level security;
  alter table notes force row level security;
  create policy by_tenant on notes using (tenant = current_setting('app.tenant', true));
`

async function open(prepared: boolean, max?: number) {
  const client = await PGlite.create()
  if (prepared) prepareStatements(client, max)
  parseAsDrizzleOnce(client)
  await client.exec(SCHEMA)
  return { client, db: drizzle({ client }) }
}

/** What a client holds prepared, read from PostgreSQL itself. */
async function preparedCount(client: PGlite): Promise<number> {
  const { rows } = await client.query<{ n: number }>("select count(*)::int as n from pg_prepared_statements where name like 'pglite_prepared_%'")
  return rows[0]?.n ?? -1
}

describe('PGlite prepared statements', { timeout: 60_000 }, () => {
  let plain: Awaited<ReturnType<typeof open>>
  let fast: Awaited<ReturnType<typeof open>>

  beforeAll(async () => {
    plain = await open(false)
    fast = await open(true)
  })
  afterAll(async () => {
    await plain.client.close()
    await fast.client.close()
  })

  it('answers as PGlite’s own query(): rows, fields, counts, types, nulls', async () => {
    const answers = []
    for (const { db } of [plain, fast]) {
      const inserted = await db
        .insert(notes)
        .values([
          { id: 1, tenant: 'a', body: 'first', facts: { n: 1, list: [1, 2] }, at: new Date('2026-11-29T08:00:00.123Z') },
          { id: 2, tenant: 'b', body: null, facts: null, at: null },
        ])
        .returning()
      const updated = await db.execute(sql`update notes set body = ${'again'} where id = ${1}`)
      const selected = await db.select().from(notes).where(eq(notes.id, 1))
      const raw = await db.execute(sql`select id, body, facts, at, ${'x'}::text as given, ${null}::int as nothing from notes order by id`)
      const counted = await db.$count(notes)
      answers.push({ inserted, updated: { affectedRows: (updated as { affectedRows?: number }).affectedRows }, selected, raw: raw.rows, fields: raw.fields, counted })
    }
    expect(answers[1]).toEqual(answers[0])
    expect(answers[1]?.selected[0]).toMatchObject({ body: 'again', facts: { n: 1, list: [1, 2] } })
  })

  it('fails as PGlite’s own query() does, and the next statement runs', async () => {
    const errors = []
    for (const { db } of [plain, fast]) {
      const error = await db.insert(notes).values({ id: 1, tenant: 'a' }).then(
        () => undefined,
        (e: unknown) => e,
      )
      const cause = (error as { cause?: messages.DatabaseError & { query?: string } }).cause
      expect(cause).toBeInstanceOf(messages.DatabaseError)
      const { stack: _stack, ...fields } = cause ?? {}
      errors.push({ ...fields, message: cause?.message })
      await expect(db.select().from(notes).where(eq(notes.id, 2))).resolves.toHaveLength(1)
    }
    expect(errors[1]).toEqual(errors[0])
    expect(errors[1]).toMatchObject({ code: '23505', severity: 'ERROR', constraint: 'notes_pkey', table: 'notes' })
    expect(errors[1]?.query).toContain('insert into "notes"')
  })

  it('reads an answer larger than one chunk, with text of every width, as PGlite’s own query()', async () => {
    const answers = []
    for (const { client } of [plain, fast]) {
      const { rows } = await client.query<{ n: number; body: string }>(`select n, repeat($1::text, n % 50) || n as body from generate_series(1, 3000) n`, ['ä€😀x'])
      answers.push(rows)
    }
    expect(answers[1]).toEqual(answers[0])
    expect(answers[1]).toHaveLength(3000)
    expect(answers[1]?.[48]).toEqual({ n: 49, body: `${'ä€😀x'.repeat(49)}49` })
  })

  it('hands notifications to PGlite’s listeners once it listens', async () => {
    const { client } = await open(true)
    try {
      const heard: string[] = []
      await client.listen('changes', (payload) => heard.push(payload))
      await client.query(`select pg_notify('changes', $1)`, ['one'])
      await client.query(`select $1::int as n`, [1])
      await expect.poll(() => heard).toEqual(['one'])
    } finally {
      await client.close()
    }
  })

  it('keeps row-level security on a plan PostgreSQL has cached (custom and generic plans)', async () => {
    const { db } = fast
    const read = (tenant: string) =>
      db.transaction(async (tx) => {
        await tx.execute(sql`select set_config('role', 'note_reader', true), set_config('app.tenant', ${tenant}, true)`)
        return (await tx.select({ id: notes.id }).from(notes).where(sql`${notes.id} > ${0}`)).map((row) => row.id)
      })
    // PostgreSQL plans the first five executions for their values, then may keep a generic plan.
    for (let round = 0; round < 12; round++) {
      expect(await read(round % 2 === 0 ? 'a' : 'b')).toEqual(round % 2 === 0 ? [1] : [2])
    }
    expect(await read('nobody')).toEqual([])
  })

  it('survives a rolled back transaction and a failed one', async () => {
    const { client, db } = fast
    await expect(
      db.transaction(async (tx) => {
        await tx.select().from(notes).where(eq(notes.id, 1))
        throw new Error('stop')
      }),
    ).rejects.toThrow('stop')
    await expect(
      db.transaction(async (tx) => {
        await tx.execute(sql`select 1 / ${0}::int`)
      }),
    ).rejects.toThrow()
    await expect(db.select().from(notes).where(eq(notes.id, 1))).resolves.toHaveLength(1)
    await expect(db.execute(sql`select 1 / ${1}::int as one`)).resolves.toMatchObject({ rows: [{ one: 1 }] })
    expect(await preparedCount(client)).toBeGreaterThan(0)
  })

  it('prepares again when a table’s columns change under a statement', async () => {
    const { client } = fast
    await client.exec('create table changing (id int)')
    await client.query('insert into changing values ($1)', [1])
    expect((await client.query('select * from changing')).fields.map((f) => f.name)).toEqual(['id'])
    await client.exec('alter table changing add column label text')
    const after = await client.query('select * from changing')
    expect(after.fields.map((f) => f.name)).toEqual(['id', 'label'])
    expect(after.rows).toEqual([{ id: 1, label: null }])
  })

  it('keeps at most its limit prepared, closing the least recently used', async () => {
    const { client } = await open(true, 3)
    try {
      for (let n = 0; n < 10; n++) expect((await client.query(`select ${n}::int as n where $1::int = 1`, [1])).rows).toEqual([{ n }])
      expect(await preparedCount(client)).toBeLessThanOrEqual(3)
      expect((await client.query('select 0::int as n where $1::int = 1', [1])).rows).toEqual([{ n: 0 }])
    } finally {
      await client.close()
    }
  })

  it('refuses a statement on a transaction that has ended', async () => {
    const { client } = fast
    let kept: { query: (text: string) => Promise<unknown> } | undefined
    await client.transaction(async (tx) => {
      kept = tx
    })
    await expect(kept?.query('select 1')).rejects.toThrow('Transaction is closed')
  })
})
