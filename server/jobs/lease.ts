import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { sql } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { rowsOf } from '#server/db/tenancy'

/**
 * Job leases (table job_leases, server/db/schema-ops.ts): instances sharing a database take a job's
 * lease before its pass, so one instance at a time runs it. Times are the database's (`now()`), so
 * the instances' clocks do not matter. A lease is held for `ttlMs` and renewed while the pass runs;
 * an instance that dies mid-pass stops renewing, and its lease is taken over once it expires.
 */

/** How long a lease lasts unless renewed; the pass renews it every third of this. */
export const LEASE_TTL_MS = 60_000

/**
 * This process's holder id: random, so two processes never share one (not even a restart with the
 * same pid); host and pid first, for whoever reads job_leases.
 */
export const processHolder = `${hostname()}/${process.pid}/${randomBytes(6).toString('hex')}`

type Held = { db: Database; name: string; holder: string }

/** Leases this process holds now, for the last resort of shutdown (releaseHeldLeases). */
const held = new Set<Held>()

function millis(ms: number) {
  return sql`(${Math.max(0, Math.round(ms))}::integer * interval '1 millisecond')`
}

/**
 * Takes the job's lease for `ttlMs` when it is free, expired, or already this holder's (one atomic
 * statement: of two instances asking at once, one gets the row). Answers whether it is ours.
 */
export async function acquireLease(db: Database, name: string, holder: string, ttlMs = LEASE_TTL_MS): Promise<boolean> {
  const rows = rowsOf<{ name: string }>(
    await db.execute(sql`
      insert into job_leases (name, holder, expires_at) values (${name}, ${holder}, now() + ${millis(ttlMs)})
      on conflict (name) do update set holder = excluded.holder, expires_at = excluded.expires_at
      where job_leases.expires_at <= now() or job_leases.holder = excluded.holder
      returning name`),
  )
  if (rows.length === 0) return false
  held.add({ db, name, holder })
  return true
}

/** Extends our lease by `ttlMs` from now; false when it is no longer ours (it expired and another instance took it). */
export async function renewLease(db: Database, name: string, holder: string, ttlMs = LEASE_TTL_MS): Promise<boolean> {
  const rows = rowsOf<{ name: string }>(
    await db.execute(sql`update job_leases set expires_at = now() + ${millis(ttlMs)} where name = ${name} and holder = ${holder} returning name`),
  )
  return rows.length === 1
}

/**
 * Ends our hold. `keepMs` > 0 keeps the other instances off the job for that long (the rest of its
 * interval after a pass that did its work, so the job runs about once per interval between all
 * instances rather than once per instance); 0 frees it at once.
 */
export async function releaseLease(db: Database, name: string, holder: string, keepMs = 0): Promise<void> {
  for (const lease of held) if (lease.db === db && lease.name === name && lease.holder === holder) held.delete(lease)
  await db.execute(sql`update job_leases set expires_at = now() + ${millis(keepMs)} where name = ${name} and holder = ${holder}`)
}

/**
 * Frees every lease this process still holds (a shutdown past its deadline, with passes still
 * running): the other instances take the jobs over now instead of after the leases expire.
 */
export async function releaseHeldLeases(): Promise<void> {
  await Promise.allSettled([...held].map((lease) => releaseLease(lease.db, lease.name, lease.holder)))
}
