import { sql, type SQL } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { rowsOf } from '#server/db/tenancy'
import type { Logger } from '#server/http/logger'
import { describeMailError, lastErrorText } from '#server/mail/errors'
import { recordTransportFailure, recordTransportSuccess } from '#server/mail/health'
import type { MailRouter } from '#server/mail/routing'
import type { MailTransport } from '#server/mail/transports'
import { startPeriodic, type PeriodicJob } from './periodic'

/**
 * The outbox worker (docs/admin/mail.md "The worker"). Each pass claims due messages in one
 * statement (FOR UPDATE SKIP LOCKED, so two instances never take the same one), sends each
 * through its transport, and records the outcome: sent; queued again after a back-off; or dead
 * after the last attempt, or at once when the server refused that message for good.
 *
 * A claim is status `sending` with `claimed_at`; a claim older than the lease (a worker that
 * crashed mid-pass) is taken over. Every later write is conditional on `claimed_at` still being
 * ours, so a worker whose claim was taken over never records over the new owner.
 */

/** How many messages one pass claims. */
export const MAIL_BATCH = 20
/** After this many attempts a message is dead (docs/admin/mail.md "Back-off"). */
export const MAIL_MAX_ATTEMPTS = 8
/** A `sending` claim older than this belongs to a worker that died: another takes it over. */
export const MAIL_CLAIM_LEASE_MS = 10 * 60_000
/** Wait before attempt n+1 after n failed attempts (index n-1), before jitter. */
export const MAIL_BACKOFF_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 6 * 3600_000, 12 * 3600_000, 24 * 3600_000] as const
/** The back-off varies by up to this share either way, so a burst of failures does not retry in lockstep. */
export const MAIL_BACKOFF_JITTER = 0.1
/** A message whose organisation lost its transport mid-pass is looked at again after this. */
const NO_ROUTE_DELAY_MS = 60_000

export type DeliveryOptions = {
  batch?: number
  maxAttempts?: number
  leaseMs?: number
  /** 0 ≤ random() < 1, for the jitter; injected by tests. */
  random?: () => number
}

export type DeliveryOutcome = { claimed: number; sent: number; failed: number; dead: number }

type ClaimedRow = {
  id: string
  tenant_id: string | null
  to_address: string
  subject: string
  text_body: string
  html_body: string | null
  created_at: string | Date
  attempts: number
}

/** The wait before the next attempt after `attempts` failed ones, with jitter. */
export function backoffMs(attempts: number, random: () => number = Math.random): number {
  const base = MAIL_BACKOFF_MS[Math.min(Math.max(attempts, 1), MAIL_BACKOFF_MS.length) - 1] ?? 60_000
  return Math.round(base * (1 - MAIL_BACKOFF_JITTER + 2 * MAIL_BACKOFF_JITTER * random()))
}

function iso(date: Date): string {
  return date.toISOString()
}

/** Due: queued and its time has come, or claimed by a worker that stopped answering. */
function due(now: Date, leaseMs: number): SQL {
  return sql`((status = 'queued' and next_attempt_at <= ${iso(now)}::timestamptz) or (status = 'sending' and claimed_at < ${iso(new Date(now.getTime() - leaseMs))}::timestamptz))`
}

/** The organisations with due mail, when there is no instance transport: only those with their own SMTP can send. */
async function tenantsWithDueMail(db: Database, now: Date, leaseMs: number): Promise<string[]> {
  const rows = rowsOf<{ tenant_id: string }>(await db.execute(sql`select distinct tenant_id from mail_outbox where tenant_id is not null and ${due(now, leaseMs)} limit 200`))
  return rows.map((r) => r.tenant_id)
}

async function claim(db: Database, now: Date, options: { batch: number; leaseMs: number; tenants: string[] | 'all' }): Promise<ClaimedRow[]> {
  if (options.tenants !== 'all' && options.tenants.length === 0) return []
  const scope =
    options.tenants === 'all'
      ? sql`true`
      : sql`tenant_id in (${sql.join(
          options.tenants.map((t) => sql`${t}::uuid`),
          sql`, `,
        )})`
  return rowsOf<ClaimedRow>(
    await db.execute(sql`
      update mail_outbox set status = 'sending', attempts = attempts + 1, claimed_at = ${iso(now)}::timestamptz
      where id in (
        select id from mail_outbox where ${due(now, options.leaseMs)} and ${scope}
        order by next_attempt_at, created_at limit ${options.batch}
        for update skip locked)
      returning id, tenant_id, to_address, subject, text_body, html_body, created_at, attempts`),
  )
}

/** Still ours? Renews the claim before sending (a long pass keeps its lease) and answers false if another worker took it over. */
async function renew(db: Database, id: string, claimedAt: Date, at: Date): Promise<boolean> {
  const rows = rowsOf<{ id: string }>(
    await db.execute(
      sql`update mail_outbox set claimed_at = ${iso(at)}::timestamptz where id = ${id} and status = 'sending' and claimed_at = ${iso(claimedAt)}::timestamptz returning id`,
    ),
  )
  return rows.length === 1
}

async function finish(db: Database, id: string, claimedAt: Date, set: SQL): Promise<void> {
  await db.execute(sql`update mail_outbox set ${set}, claimed_at = null where id = ${id} and status = 'sending' and claimed_at = ${iso(claimedAt)}::timestamptz`)
}

/**
 * One pass over the outbox. `router` says which transport takes each message; `now` is the clock
 * (injected by tests). Answers what happened, for tests and logs.
 */
export async function deliverQueuedMail(db: Database, router: MailRouter, logger: Logger, now: () => Date, options: DeliveryOptions = {}): Promise<DeliveryOutcome> {
  const batch = options.batch ?? MAIL_BATCH
  const maxAttempts = options.maxAttempts ?? MAIL_MAX_ATTEMPTS
  const leaseMs = options.leaseMs ?? MAIL_CLAIM_LEASE_MS
  const random = options.random ?? Math.random
  const outcome: DeliveryOutcome = { claimed: 0, sent: 0, failed: 0, dead: 0 }

  const start = now()
  let tenants: string[] | 'all' = 'all'
  if (!router.instance) {
    const routable: string[] = []
    for (const tenantId of await tenantsWithDueMail(db, start, leaseMs)) {
      if (await routeOf(router, tenantId, logger)) routable.push(tenantId)
    }
    tenants = routable
  }
  const rows = await claim(db, start, { batch, leaseMs, tenants })
  outcome.claimed = rows.length

  for (const row of rows) {
    let claimedAt = start
    const transport = row.tenant_id ? ((await routeOf(router, row.tenant_id, logger)) ?? router.instance) : router.instance
    if (!transport) {
      // Its organisation's SMTP settings went away since the claim: back to the queue, this attempt not counted.
      await finish(db, row.id, claimedAt, sql`status = 'queued', attempts = attempts - 1, next_attempt_at = ${iso(new Date(now().getTime() + NO_ROUTE_DELAY_MS))}::timestamptz`)
      continue
    }
    const sendingAt = now()
    if (!(await renew(db, row.id, claimedAt, sendingAt))) continue
    claimedAt = sendingAt
    try {
      await transport.send({ id: row.id, to: row.to_address, subject: row.subject, text: row.text_body, html: row.html_body, createdAt: new Date(row.created_at) })
      const at = now()
      await finish(db, row.id, claimedAt, sql`status = 'sent', sent_at = ${iso(at)}::timestamptz, transport = ${transport.key}, last_error = null`)
      await recordTransportSuccess(db, transport.key, at)
      outcome.sent++
    } catch (error) {
      const at = now()
      const failure = describeMailError(error, { ...transport.target, to: row.to_address })
      const text = lastErrorText(failure)
      const dead = failure.messageRefused || row.attempts >= maxAttempts
      logger.warn({ mailId: row.id, tenantId: row.tenant_id ?? undefined, transport: transport.key, attempts: row.attempts, dead, err: error }, `mail delivery failed: ${failure.message}`)
      const next = dead ? sql`status = 'dead'` : sql`status = 'queued', next_attempt_at = ${iso(new Date(at.getTime() + backoffMs(row.attempts, random)))}::timestamptz`
      await finish(db, row.id, claimedAt, sql`${next}, last_error = ${text}, last_failure_at = ${iso(at)}::timestamptz, transport = ${transport.key}`)
      // A refusal of this one message (its recipient or content) says nothing about the server.
      if (!failure.messageRefused) await recordTransportFailure(db, transport.key, at, text)
      if (dead) outcome.dead++
      else outcome.failed++
    }
  }
  return outcome
}

/** The organisation's own transport; saved settings that cannot be read are logged and read as none (the instance's transport takes the mail, or it waits). */
async function routeOf(router: MailRouter, tenantId: string, logger: Logger): Promise<MailTransport | undefined> {
  try {
    return await router.forTenant(tenantId)
  } catch (error) {
    logger.warn({ tenantId, err: error }, 'could not read the organisation’s mail settings; its mail waits')
    return undefined
  }
}

/** Polls the outbox until stopped; each pass gets a fresh router (its connections closed after). */
export function startMailDelivery(options: { db: Database; router: () => MailRouter; logger: Logger; intervalMs?: number }): PeriodicJob {
  const { db, logger, intervalMs = 1_000 } = options
  return startPeriodic({
    name: 'mail delivery pass',
    // One instance delivers at a time; the claims (FOR UPDATE SKIP LOCKED) stay the guarantee.
    lease: { db },
    intervalMs,
    logger,
    pass: async () => {
      const router = options.router()
      try {
        await deliverQueuedMail(db, router, logger, () => new Date())
      } finally {
        router.close()
      }
    },
  })
}
