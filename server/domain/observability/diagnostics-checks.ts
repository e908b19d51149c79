import { randomUUID } from 'node:crypto'
import { mkdir, rm, statfs, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import type { Config } from '#server/config'
import type { Database } from '#server/db/client'
import { rowsOf } from '#server/db/tenancy'
import { checkRedis, checkStorage } from '#server/domain/config/checks'
import { effectiveMailConfig } from '#server/domain/config/effective'
import { describeMailError } from '#server/mail/errors'
import { createSmtpTransporter, describeSmtp, smtpSettingsFromConfig, smtpSettingsFromUrl, type SmtpSettings, type SmtpTimeouts } from '#server/mail/transports'
import type { BlobStore } from '#server/storage/blob-store'
import type { AttemptOutcome, DiagnosticCheck } from '~/lib/admin/diagnostics'

/**
 * The checks of a diagnostic run (docs/observability.md "Diagnostics"). Each answers an outcome, a
 * message an administrator can act on and a detail for the curious; a throw counts as a failure
 * (diagnostics.ts turns it into one). They reuse what Configuration's tests do (storage, Redis)
 * and the mail worker's transports, so a check and the thing it checks cannot drift apart.
 */

export type CheckVerdict = { outcome: AttemptOutcome; message: string; detail?: Record<string, unknown> }

/** Whose run: an organisation's (its own mail settings), or the instance's (tenantId null). */
export type CheckScope = { tenantId: string | null }

/** What the realtime hub reports; registered by server/start.ts for the database it serves. */
export type HubProbe = { stats(): { connections: number; groups: number }; backplane: 'memory' | 'redis' }

export type CheckDeps = { db: Database; config: Config; store: BlobStore }

/** Per check, how long one attempt may take before it counts as failed. */
export const CHECK_TIMEOUT_MS = 8_000
/** Shorter than the worker's: a run is waited for. */
const SMTP_TIMEOUTS: SmtpTimeouts = { connectionMs: 5_000, greetingMs: 5_000, socketMs: 5_000 }
const REDIS_TIMEOUT_MS = 5_000
/** Disk: failed below either; a warning in the message below twice as much. */
export const DISK_MIN_FREE_BYTES = 1024 ** 3
export const DISK_MIN_FREE_RATIO = 0.05
/** Clock: failed when the database's and the server's clocks differ by more. */
export const CLOCK_MAX_SKEW_MS = 2_000

const hubProbes = new WeakMap<Database, HubProbe>()

/** The hub of the server that uses `db`; the hub check is skipped where none runs (a backend alone, tests). */
export function registerHubProbe(db: Database, probe: HubProbe): void {
  hubProbes.set(db, probe)
}

export function unregisterHubProbe(db: Database): void {
  hubProbes.delete(db)
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

const passed = (message: string, detail?: Record<string, unknown>): CheckVerdict => ({ outcome: 'passed', message, ...(detail && { detail }) })
const failed = (message: string, detail?: Record<string, unknown>): CheckVerdict => ({ outcome: 'failed', message, ...(detail && { detail }) })
const skipped = (message: string, detail?: Record<string, unknown>): CheckVerdict => ({ outcome: 'skipped', message, ...(detail && { detail }) })

async function checkDatabase({ db }: CheckDeps): Promise<CheckVerdict> {
  const started = performance.now()
  try {
    await db.execute(sql`select 1`)
  } catch (error) {
    return failed('The database did not answer. Check that it is running and that the server’s database address (or its data folder) is right.', { error: codeOf(error) ?? messageOf(error) })
  }
  const roundTripMs = Math.round(performance.now() - started)
  let migrations: number | undefined
  try {
    const [row] = rowsOf<{ n: number | string }>(await db.execute(sql`select count(*) as n from drizzle.__drizzle_migrations`))
    migrations = row ? Number(row.n) : undefined
  } catch {
    // The migration table may not be readable by this role: the round trip is what counts.
  }
  return passed(`The database answered in ${roundTripMs} ms${migrations === undefined ? '' : `; ${migrations} migrations applied`}.`, {
    roundTripMs,
    ...(migrations !== undefined && { migrations }),
  })
}

/** Connect, STARTTLS and sign in as the mail worker would, without sending (a run every 15 minutes must not mail anyone). */
async function verifySmtp(settings: SmtpSettings, whose: string): Promise<CheckVerdict> {
  const transporter = createSmtpTransporter(settings, SMTP_TIMEOUTS)
  const where = describeSmtp(settings)
  try {
    await transporter.verify()
    return passed(`${whose} (${where}) accepted a connection${settings.username ? ' and the sign-in' : ''}.`, { transport: where })
  } catch (error) {
    const failure = describeMailError(error, { host: settings.host, port: settings.port, from: settings.from }, SMTP_TIMEOUTS)
    return failed(failure.message, { transport: where, ...(failure.detail && { error: failure.detail }) })
  } finally {
    transporter.close()
  }
}

async function checkMailFolder(dir: string): Promise<CheckVerdict> {
  const probe = path.join(dir, `.diagnostics-${randomUUID()}.tmp`)
  try {
    await mkdir(dir, { recursive: true })
    await writeFile(probe, 'diagnostics')
    await rm(probe, { force: true })
    return passed('Mail is written as files into a folder on the server (a set-up for development), and the folder is writable. Nothing is sent.', { transport: 'files on the server' })
  } catch (error) {
    await rm(probe, { force: true }).catch(() => undefined)
    return failed('Mail cannot be written to the server’s mail folder. Check that the folder exists and the server may write to it.', { error: codeOf(error) ?? messageOf(error) })
  }
}

async function checkInstanceMail(config: Config, lead = ''): Promise<CheckVerdict> {
  if (config.smtpUrl) return verifySmtp(smtpSettingsFromUrl(config.smtpUrl, config.mailFrom), `${lead}This server’s SMTP server`)
  if (config.mailFileDir) return checkMailFolder(config.mailFileDir)
  return skipped(
    `${lead}No mail transport is set up on this server, so mail stays queued. Nothing to check. Whoever runs the server can set one up (operations guide, “Mail”)${lead ? ', or save an SMTP server under Configuration › Mail' : ''}.`,
    { transport: null },
  )
}

async function checkMail({ db, config }: CheckDeps, scope: CheckScope): Promise<CheckVerdict> {
  if (!scope.tenantId) return checkInstanceMail(config)
  const own = await effectiveMailConfig(db, config.sessionSecret, scope.tenantId)
  if (own?.configured) return verifySmtp(smtpSettingsFromConfig(own.values), 'The organisation’s SMTP server (Configuration › Mail)')
  return checkInstanceMail(config, 'The organisation has no SMTP server of its own. ')
}

async function checkStore({ store }: CheckDeps, scope: CheckScope): Promise<CheckVerdict> {
  const result = await checkStorage(store, scope.tenantId ?? 'instance', () => new Date())
  return { outcome: result.ok ? 'passed' : 'failed', message: result.message, ...(result.detail !== undefined && { detail: { error: result.detail } }) }
}

async function checkRedisPing({ config }: CheckDeps): Promise<CheckVerdict> {
  if (!config.redisUrl) return skipped('No Redis is set up: live updates and limits stay in this server, which is right for a single server.')
  const result = await checkRedis(config.redisUrl, () => new Date(), REDIS_TIMEOUT_MS)
  return { outcome: result.ok ? 'passed' : 'failed', message: result.message, ...(result.detail !== undefined && { detail: { error: result.detail } }) }
}

function checkHub({ db }: CheckDeps): CheckVerdict {
  const probe = hubProbes.get(db)
  if (!probe) return skipped('The realtime hub does not run in this process (a backend on its own). Nothing to check here.')
  const { connections, groups } = probe.stats()
  const backplane = probe.backplane === 'redis' ? 'Redis (several servers)' : 'memory (one server)'
  return passed(`The realtime hub is running with ${connections} connection${connections === 1 ? '' : 's'}; its backplane is ${backplane}.`, {
    connections,
    groups,
    backplane: probe.backplane,
  })
}

/** statfs of the data folder, or of its nearest existing parent (PostgreSQL installs may not have made it yet). */
async function statfsNearest(dir: string) {
  let current = path.resolve(dir)
  for (;;) {
    try {
      return { at: current, stats: await statfs(current) }
    } catch (error) {
      const parent = path.dirname(current)
      if (codeOf(error) !== 'ENOENT' || parent === current) throw error
      current = parent
    }
  }
}

function size(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`
  return `${Math.round(bytes / 1024 ** 2)} MB`
}

export function diskVerdict(freeBytes: number, totalBytes: number, at: string): CheckVerdict {
  const ratio = totalBytes > 0 ? freeBytes / totalBytes : 0
  const percent = `${(ratio * 100).toFixed(1)} %`
  const detail = { path: at, freeBytes, totalBytes, freePercent: Math.round(ratio * 1000) / 10 }
  if (freeBytes < DISK_MIN_FREE_BYTES || ratio < DISK_MIN_FREE_RATIO) {
    return failed(`Only ${size(freeBytes)} (${percent}) is free where the server keeps its data (${at}). Uploads and the database fail when it runs out: free space or grow the disk.`, detail)
  }
  if (freeBytes < 2 * DISK_MIN_FREE_BYTES || ratio < 2 * DISK_MIN_FREE_RATIO) {
    return passed(`Space is getting low: ${size(freeBytes)} (${percent}) free of ${size(totalBytes)} at ${at}. Plan to free space or grow the disk.`, detail)
  }
  return passed(`${size(freeBytes)} (${percent}) free of ${size(totalBytes)} at ${at}.`, detail)
}

async function checkDisk({ config }: CheckDeps): Promise<CheckVerdict> {
  const { at, stats } = await statfsNearest(config.dataDir)
  return diskVerdict(stats.bavail * stats.bsize, stats.blocks * stats.bsize, at)
}

export function clockVerdict(skewMs: number, roundTripMs: number): CheckVerdict {
  const detail = { skewMs, roundTripMs }
  const words = `${Math.abs(skewMs)} ms ${skewMs > 0 ? 'ahead of' : 'behind'} this server’s`
  if (Math.abs(skewMs) > CLOCK_MAX_SKEW_MS) {
    return failed(`The database’s clock is ${words}. Sessions, limits and schedules go wrong with clocks apart: run time synchronisation (NTP) on both machines.`, detail)
  }
  return passed(`The database’s clock is within ${Math.abs(skewMs)} ms of this server’s.`, detail)
}

/** The database's now() against the process's wall clock (not the injected one), halfway through the round trip. */
async function checkClock({ db }: CheckDeps): Promise<CheckVerdict> {
  const before = Date.now()
  const [row] = rowsOf<{ now: string | Date }>(await db.execute(sql`select now() as now`))
  const after = Date.now()
  if (!row) return failed('The database did not say what time it is.')
  const dbNow = new Date(row.now).getTime()
  return clockVerdict(Math.round(dbNow - (before + after) / 2), after - before)
}

export const CHECKS: Record<DiagnosticCheck, (deps: CheckDeps, scope: CheckScope) => Promise<CheckVerdict> | CheckVerdict> = {
  database: checkDatabase,
  mail: checkMail,
  storage: checkStore,
  redis: checkRedisPing,
  hub: checkHub,
  disk: checkDisk,
  clock: checkClock,
}
