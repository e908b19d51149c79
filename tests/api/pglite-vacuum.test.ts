import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { rowsOf } from '#server/db/tenancy'
import { vacuumWhereDue } from '#server/jobs/pglite-vacuum'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend()
})

afterAll(async () => {
  await t?.db.execute(sql`drop table if exists vacuum_probe`)
  await t?.close()
})

// PostgreSQL has autovacuum, which would race this test; the pass only ever runs on PGlite.
test.runIf(process.env.TEST_DATABASE_URL === undefined)(
  'the vacuum pass vacuums a table past autovacuum’s insert threshold, sets its visibility map, and leaves it alone once done',
  async () => {
    await t.db.execute(sql`drop table if exists vacuum_probe`)
    await t.db.execute(sql`create table vacuum_probe (id int primary key, v int)`)
    await t.db.execute(sql`insert into vacuum_probe select g, g from generate_series(1, 5000) g`)
    const probe = async () =>
      rowsOf<{ vacuumed: boolean; visible: number }>(
        await t.db.execute(sql`
        select (s.last_vacuum is not null or s.last_autovacuum is not null) as vacuumed, c.relallvisible::int as visible
        from pg_stat_user_tables s join pg_class c on c.oid = s.relid where s.relname = 'vacuum_probe'`),
      )[0]
    expect(await probe()).toEqual({ vacuumed: false, visible: 0 })
    // Table statistics reach pg_stat_user_tables a moment after the inserting transaction.
    let due: string[] = []
    for (let i = 0; i < 50 && !due.includes('vacuum_probe'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 200))
      due = await vacuumWhereDue(t.db)
    }
    expect(due).toContain('vacuum_probe')
    const after = await probe()
    expect(after?.vacuumed).toBe(true)
    expect(after?.visible).toBeGreaterThan(0)
    expect(await vacuumWhereDue(t.db)).not.toContain('vacuum_probe')
  },
)
