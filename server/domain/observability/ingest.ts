import { and, eq, sql } from 'drizzle-orm'
import type { Database, Tx } from '#server/db/client'
import { memberships } from '#server/db/schema'
import { frontendErrors, telemetryEvents, telemetryIngestCounts } from '#server/db/schema-observability'
import { withTenant, withUser } from '#server/db/tenancy'
import { diagnosticsSwitchesIn } from './collection'
import type { FrontendError, TelemetryEvent } from './events'
import { errorFingerprint } from './fingerprint'

/**
 * Storing what browsers send (spec §7 "Telemetry") and counting it (spec §7 "Telemetry ingest
 * stats"). A batch from a signed-in member is stored in the member's organisation, with the user;
 * anything else is stored without a tenant, where no organisation can read it
 * (server/db/schema-observability.ts). Every batch counts its accepted and dropped events in the
 * same transaction as its rows. A request refused before its events could be read (too large,
 * not a batch, rate-limited by address) counts as one dropped.
 */

export type IngestKind = 'events' | 'errors'
export type DropReason = 'invalid' | 'rate-limited' | 'too-large'
type Outcome = 'accepted' | DropReason

/** Who sent a batch, as the session says: attributed only while the membership is active. */
export type Sender = { tenantId: string; userId: string }

export type IngestResult = { accepted: number; dropped: number }

/** The UTC day a counter belongs to. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10)
}

/** A tenant transaction, or one outside every tenant (the application role, no app.tenant_id). */
export function inScope<T>(db: Database, tenantId: string | null, work: (tx: Tx) => Promise<T>): Promise<T> {
  return tenantId ? withTenant(db, tenantId, work) : withUser(db, undefined, work)
}

async function addCount(tx: Tx, tenantId: string | null, kind: IngestKind, outcome: Outcome, n: number, now: Date): Promise<void> {
  if (n <= 0) return
  await tx
    .insert(telemetryIngestCounts)
    .values({ tenantId, day: utcDay(now), kind, outcome, count: n })
    .onConflictDoUpdate({
      target: [telemetryIngestCounts.tenantId, telemetryIngestCounts.day, telemetryIngestCounts.kind, telemetryIngestCounts.outcome],
      set: { count: sql`${telemetryIngestCounts.count} + excluded.count` },
    })
}

async function isActiveMember(tx: Tx, sender: Sender): Promise<boolean> {
  const [row] = await tx
    .select({ status: memberships.status })
    .from(memberships)
    .where(and(eq(memberships.tenantId, sender.tenantId), eq(memberships.userId, sender.userId)))
    .limit(1)
  return row?.status === 'active'
}

type Batch<E> = {
  sender: Sender | null
  /** The kr-vis cookie, when the request carried one. */
  visitorId: string | undefined
  /** The batch's events; null for each that did not fit (dropped as invalid). */
  events: ReadonlyArray<E | null>
  now: Date
}

/**
 * Stores a batch and counts it. With a sender whose membership is no longer active nothing is
 * stored and 'not-a-member' comes back: the caller refuses the call, or stores it without a tenant.
 */
async function ingest<E>(
  db: Database,
  kind: IngestKind,
  batch: Batch<E>,
  store: (tx: Tx, scope: { tenantId: string | null; userId: string | null }, events: E[]) => Promise<void>,
): Promise<IngestResult | 'not-a-member'> {
  const { sender, events, now } = batch
  const valid = events.filter((event): event is E => event !== null)
  const dropped = events.length - valid.length
  return inScope(db, sender?.tenantId ?? null, async (tx) => {
    if (sender && !(await isActiveMember(tx, sender))) return 'not-a-member' as const
    // Settings › Admin "identify users in reports" off: the organisation's rows name no one.
    const named = sender ? (await diagnosticsSwitchesIn(tx, sender.tenantId)).identifyUsersInReports : false
    const scope = { tenantId: sender?.tenantId ?? null, userId: named ? (sender?.userId ?? null) : null }
    if (valid.length > 0) await store(tx, scope, valid)
    await addCount(tx, scope.tenantId, kind, 'accepted', valid.length, now)
    await addCount(tx, scope.tenantId, kind, 'invalid', dropped, now)
    return { accepted: valid.length, dropped }
  })
}

export function ingestTelemetry(db: Database, batch: Batch<TelemetryEvent>): Promise<IngestResult | 'not-a-member'> {
  return ingest(db, 'events', batch, async (tx, scope, events) => {
    await tx.insert(telemetryEvents).values(
      events.map((event) => ({
        ...scope,
        visitorId: batch.visitorId ?? event.correlationId ?? null,
        name: event.name,
        properties: event.properties ?? {},
        source: 'web',
        occurredAt: new Date(event.timestampUtc),
        receivedAt: batch.now,
        correlationId: event.correlationId ?? null,
      })),
    )
  })
}

export function ingestFrontendErrors(db: Database, batch: Batch<FrontendError>): Promise<IngestResult | 'not-a-member'> {
  return ingest(db, 'errors', batch, async (tx, scope, events) => {
    await tx.insert(frontendErrors).values(
      events.map((event) => ({
        ...scope,
        // Spec §3: an error's correlation id is the visitor id.
        visitorId: event.correlationId ?? batch.visitorId ?? null,
        name: event.name ?? 'Error',
        message: event.message,
        stack: event.stack ?? null,
        path: event.path ?? null,
        userAgent: event.userAgent ?? null,
        release: event.release ?? null,
        fingerprint: errorFingerprint(event.message, event.stack),
        occurredAt: new Date(event.timestampUtc),
        receivedAt: batch.now,
      })),
    )
  })
}

/** Counts events dropped without being stored: a refused request, or a batch over the rate limit. */
export async function recordDropped(db: Database, tenantId: string | null, kind: IngestKind, reason: DropReason, n: number, now: Date): Promise<void> {
  await inScope(db, tenantId, (tx) => addCount(tx, tenantId, kind, reason, n, now))
}
