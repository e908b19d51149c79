import { randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { rowsOf } from '#server/db/tenancy'
import { createLogger } from '#server/http/logger'
import { acquireLease, releaseHeldLeases, releaseLease, renewLease } from '#server/jobs/lease'
import { startPeriodic } from '#server/jobs/periodic'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'

/**
 * Job leases (server/jobs/lease.ts): two "instances" in one process (two holders) on one database.
 * Each test uses a job name of its own; the interval is an hour, so only the start pass runs.
 */
let t: TestBackend
const logger = createLogger('silent')
const HOUR = 60 * 60_000

beforeAll(async () => {
  t = await createTestBackend()
})

afterAll(async () => {
  await t?.close()
})

function jobName() {
  return `test job ${randomUUID()}`
}

/** A pass that waits until released, and says when it started. */
function blockingPass() {
  let started!: () => void
  let finish!: () => void
  const hasStarted = new Promise<void>((resolve) => (started = resolve))
  const finished = new Promise<void>((resolve) => (finish = resolve))
  let runs = 0
  return {
    hasStarted,
    finish,
    runs: () => runs,
    pass: async () => {
      runs += 1
      started()
      await finished
    },
  }
}

async function leaseRow(name: string) {
  const rows = rowsOf<{ holder: string; free: boolean }>(await t.db.execute(sql`select holder, expires_at <= now() as free from job_leases where name = ${name}`))
  return rows[0]
}

test('one holder at a time: the other is refused until the lease is released', async () => {
  const name = jobName()
  expect(await acquireLease(t.db, name, 'instance-a')).toBe(true)
  expect(await acquireLease(t.db, name, 'instance-b')).toBe(false)
  // The holder may take its own lease again, and renew it; the other may not renew it.
  expect(await acquireLease(t.db, name, 'instance-a')).toBe(true)
  expect(await renewLease(t.db, name, 'instance-a')).toBe(true)
  expect(await renewLease(t.db, name, 'instance-b')).toBe(false)
  // Releasing someone else's lease changes nothing.
  await releaseLease(t.db, name, 'instance-b')
  expect(await acquireLease(t.db, name, 'instance-b')).toBe(false)

  await releaseLease(t.db, name, 'instance-a')
  expect(await leaseRow(name)).toEqual({ holder: 'instance-a', free: true })
  expect(await acquireLease(t.db, name, 'instance-b')).toBe(true)
  expect(await leaseRow(name)).toEqual({ holder: 'instance-b', free: false })
})

test('an expired lease (its instance died) is taken over, and the old holder can no longer renew it', async () => {
  const name = jobName()
  expect(await acquireLease(t.db, name, 'instance-a')).toBe(true)
  await t.db.execute(sql`update job_leases set expires_at = now() - interval '1 second' where name = ${name}`)
  expect(await acquireLease(t.db, name, 'instance-b')).toBe(true)
  expect(await renewLease(t.db, name, 'instance-a')).toBe(false)
  expect(await acquireLease(t.db, name, 'instance-a')).toBe(false)
})

test('two instances asking at once: exactly one gets the lease', async () => {
  const name = jobName()
  const holders = Array.from({ length: 8 }, (_, i) => `instance-${i}`)
  const answers = await Promise.all(holders.map((holder) => acquireLease(t.db, name, holder)))
  expect(answers.filter(Boolean)).toHaveLength(1)
  expect((await leaseRow(name))?.holder).toBe(holders[answers.indexOf(true)])
})

test('a job started on two instances runs its pass on one; the other skips while the pass runs', async () => {
  const name = jobName()
  const onA = blockingPass()
  let ranOnB = 0
  const a = startPeriodic({ name, intervalMs: HOUR, logger, runAtStart: true, lease: { db: t.db, holder: 'instance-a' }, pass: onA.pass })
  try {
    await onA.hasStarted
    const b = startPeriodic({ name, intervalMs: HOUR, logger, runAtStart: true, lease: { db: t.db, holder: 'instance-b' }, pass: async () => void ranOnB++ })
    // B's start pass asked for the lease while A's pass held it: stopping B waits for that attempt.
    await b.stop()
    expect(ranOnB).toBe(0)
    expect(await leaseRow(name)).toEqual({ holder: 'instance-a', free: false })
  } finally {
    onA.finish()
    await a.stop()
  }
  expect(onA.runs()).toBe(1)
})

test('after a pass that worked the job rests for its interval on every instance; after a failure another instance runs it', async () => {
  const worked = jobName()
  const a = startPeriodic({ name: worked, intervalMs: HOUR, logger, runAtStart: true, lease: { db: t.db, holder: 'instance-a' }, pass: async () => {} })
  await a.stop()
  let ranOnB = 0
  const b = startPeriodic({ name: worked, intervalMs: HOUR, logger, runAtStart: true, lease: { db: t.db, holder: 'instance-b' }, pass: async () => void ranOnB++ })
  await b.stop()
  expect(ranOnB).toBe(0)
  expect(await leaseRow(worked)).toEqual({ holder: 'instance-a', free: false })

  const failed = jobName()
  const c = startPeriodic({
    name: failed,
    intervalMs: HOUR,
    logger,
    runAtStart: true,
    lease: { db: t.db, holder: 'instance-a' },
    pass: () => Promise.reject(new Error('the pass failed')),
  })
  await c.stop()
  expect(await leaseRow(failed)).toEqual({ holder: 'instance-a', free: true })
  const d = startPeriodic({ name: failed, intervalMs: HOUR, logger, runAtStart: true, lease: { db: t.db, holder: 'instance-b' }, pass: async () => void ranOnB++ })
  await d.stop()
  expect(ranOnB).toBe(1)
})

test('stopping waits for the pass under way and hands its lease back', async () => {
  const name = jobName()
  const onA = blockingPass()
  const a = startPeriodic({ name, intervalMs: HOUR, logger, runAtStart: true, lease: { db: t.db, holder: 'instance-a' }, pass: onA.pass })
  await onA.hasStarted
  const stopped = a.stop()
  expect(await leaseRow(name)).toEqual({ holder: 'instance-a', free: false })
  onA.finish()
  await stopped
  // Handed back as a pass that worked: the job rests for the rest of its interval (an hour), far
  // longer than a held lease's minute.
  const rows = rowsOf<{ rests: boolean }>(await t.db.execute(sql`select expires_at > now() + interval '30 minutes' as rests from job_leases where name = ${name}`))
  expect(rows).toEqual([{ rests: true }])
})

test('a job that belongs to each instance runs on both, with no lease', async () => {
  const name = jobName()
  let runs = 0
  const jobs = ['a', 'b'].map(() => startPeriodic({ name, intervalMs: HOUR, logger, runAtStart: true, lease: 'per-instance', pass: async () => void runs++ }))
  for (const job of jobs) await job.stop()
  expect(runs).toBe(2)
  expect(await leaseRow(name)).toBeUndefined()
})

test('the last resort of shutdown frees every lease this process holds', async () => {
  const name = jobName()
  expect(await acquireLease(t.db, name, 'instance-a')).toBe(true)
  await releaseHeldLeases()
  expect(await acquireLease(t.db, name, 'instance-b')).toBe(true)
  await releaseLease(t.db, name, 'instance-b')
})
