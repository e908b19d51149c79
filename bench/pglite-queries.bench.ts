// What one query and one tenant transaction cost on PGlite through drizzle (docs/performance.md
// "PGlite's parsers and the tenant transaction"): drizzle as it comes, against the client after
// server/db/pglite-parsers.ts; and the tenant transaction's settings as two statements, against
// the one statement server/db/tenancy.ts sends; then both again with the statements prepared once
// (server/db/pglite-statements.ts, "Prepared statements on PGlite"). In-process, one PGlite in
// memory, no HTTP.
import { PGlite } from '@electric-sql/pglite'
import { eq, sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/pglite'
import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
import { parseAsDrizzleOnce } from '#server/db/pglite-parsers'
import { prepareStatements } from '#server/db/pglite-statements'

const ROUNDS = Number(process.env.ROUNDS ?? 5000)
const items = pgTable('items', { id: integer('id').primaryKey(), title: text('title').notNull(), createdAt: timestamp('created_at', { withTimezone: true }).notNull() })

async function open(parseOnce: boolean, prepared = false) {
  const client = await PGlite.create()
  if (prepared) prepareStatements(client)
  if (parseOnce) parseAsDrizzleOnce(client)
  const db = drizzle({ client })
  await db.execute(sql`create table items (id int primary key, title text not null, created_at timestamptz not null)`)
  await db.execute(sql`create role bench_user`)
  await db.execute(sql`grant select on items to bench_user`)
  await db.insert(items).values(Array.from({ length: 100 }, (_, n) => ({ id: n + 1, title: `Item ${n + 1}`, createdAt: new Date() })))
  return { client, db }
}

type Db = Awaited<ReturnType<typeof open>>['db']

async function timeIt(label: string, work: (n: number) => Promise<unknown>): Promise<number> {
  for (let n = 0; n < 300; n++) await work(n) // warm up
  const started = performance.now()
  for (let n = 0; n < ROUNDS; n++) await work(n)
  const us = ((performance.now() - started) / ROUNDS) * 1000
  console.log(`${label.padEnd(66)} ${us.toFixed(0).padStart(5)} µs`)
  return us
}

const select = (db: Db) => (n: number) => db.select().from(items).where(eq(items.id, (n % 100) + 1))
const twoStatements = (db: Db) => (n: number) =>
  db.transaction(async (tx) => {
    await tx.execute(sql`set local role bench_user`)
    await tx.execute(sql`select set_config('app.tenant_id', ${String(n)}, true)`)
    return tx.select().from(items).where(eq(items.id, (n % 100) + 1))
  })
const oneStatement = (db: Db) => (n: number) =>
  db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('role', 'bench_user', true), set_config('app.tenant_id', ${String(n)}, true)`)
    return tx.select().from(items).where(eq(items.id, (n % 100) + 1))
  })

const plain = await open(false)
const once = await open(true)
const prepared = await open(true, true)
console.log(`PGlite ${ROUNDS} rounds each (after 300 to warm up)`)
const a = await timeIt('primary-key select, drizzle as it comes', select(plain.db))
const b = await timeIt('primary-key select, parsers once (pglite-parsers.ts)', select(once.db))
const c = await timeIt('tenant transaction, drizzle as it comes, role and setting apart', twoStatements(plain.db))
const d = await timeIt('tenant transaction, parsers once, role and setting apart', twoStatements(once.db))
const e = await timeIt('tenant transaction, parsers once, one statement (tenancy.ts)', oneStatement(once.db))
const f = await timeIt('primary-key select, prepared statements (pglite-statements.ts)', select(prepared.db))
const g = await timeIt('tenant transaction, one statement, prepared statements', oneStatement(prepared.db))
console.log(`select ${(100 * (1 - b / a)).toFixed(0)} % less; tenant transaction ${(100 * (1 - d / c)).toFixed(0)} % less from the parsers, ${(100 * (1 - e / c)).toFixed(0)} % with one statement`)
console.log(`prepared statements: select ${(100 * (1 - f / b)).toFixed(0)} % less than parsers once, tenant transaction ${(100 * (1 - g / e)).toFixed(0)} % less than one statement`)
await plain.client.close()
await once.client.close()
await prepared.client.close()
