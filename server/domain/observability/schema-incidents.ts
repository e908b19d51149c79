import { and, count, eq, gte } from 'drizzle-orm'
import type { z } from 'zod'
import type { Database } from '#server/db/client'
import { schemaIncidents } from '#server/db/schema-observability'
import type { Logger } from '#server/http/logger'
import type { SchemaIncidentSource } from '~/lib/admin/schema-incidents'
import { inScope } from './ingest'

/**
 * Schema incidents (issue 15): a response whose body does not match the schema its call declares
 * for that status (server/http/contract.ts checks a sample: SCHEMA_CHECK_SAMPLE, every response in
 * the tests). Each mismatched field becomes a row — call, field, what was expected, a short
 * description of what came — instead of reaching the user as a broken screen. What came is
 * described, never copied: its type and at most a few characters, nothing at all for a field whose
 * name looks secret or for a call without an organisation (anyone's sign-in page).
 */

/** Rows a (call, field) may add per hour and scope: a hot bug records its first ones, not every request. */
export const SCHEMA_INCIDENT_CAP_PER_HOUR = 20
/** Fields recorded per response: one broken list can otherwise mismatch in every item. */
const FIELDS_PER_RESPONSE = 5
const VALUE_CHARS = 40
const HOUR_MS = 60 * 60_000
const SECRET_NAME = /pass|secret|token|key|code|otp|totp|cookie|auth|hash|signature|credential/i

export type SchemaCall = {
  /** server: this backend checked its own answer; web: the browser's API client reported it. Default server. */
  source?: SchemaIncidentSource
  method: string
  /** The route's template, e.g. /api/items/{itemId}. */
  path: string
  status: number
  tenantId: string | null
  correlationId: string | null
  release: string | null
}

export type SchemaMismatch = { field: string; expected: string; got: string }

/** Hono's `/api/items/:itemId` as the contract writes it, `/api/items/{itemId}`. */
export function pathTemplate(routePath: string): string {
  return routePath.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}')
}

/** The fields of `body` that `schema` refuses, described safely; [] when it fits. */
export function schemaMismatches(schema: z.ZodType, body: unknown, options: { withValues: boolean }): SchemaMismatch[] {
  const result = schema.safeParse(body)
  if (result.success) return []
  const seen = new Set<string>()
  const out: SchemaMismatch[] = []
  for (const issue of result.error.issues) {
    const field = issue.path.map(String).join('.')
    if (seen.has(field)) continue
    seen.add(field)
    const secret = issue.path.some((part) => typeof part === 'string' && SECRET_NAME.test(part))
    out.push({ field, expected: expectedOf(issue), got: describeValue(valueAt(body, issue.path), options.withValues && !secret) })
    if (out.length >= FIELDS_PER_RESPONSE) break
  }
  return out
}

function expectedOf(issue: z.core.$ZodIssue): string {
  const text = issue.code === 'invalid_type' ? String(issue.expected) : issue.code === 'invalid_value' ? `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}` : `${issue.code}: ${issue.message}`
  return text.slice(0, 200)
}

function valueAt(body: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let value = body
  for (const part of path) {
    if (value === null || typeof value !== 'object') return undefined
    value = (value as Record<PropertyKey, unknown>)[part]
  }
  return value
}

/** The type of a value, with a few characters of it when allowed: `string "2026-13-…"`, `missing`, `array of 3`. */
export function describeValue(value: unknown, withValue: boolean): string {
  if (value === undefined) return 'missing'
  if (value === null) return 'null'
  if (Array.isArray(value)) return `array of ${value.length}`
  if (typeof value === 'object') {
    const keys = Object.keys(value)
    return withValue ? `object with ${keys.length} key${keys.length === 1 ? '' : 's'}${keys.length ? `: ${keys.slice(0, 5).join(', ').slice(0, VALUE_CHARS)}` : ''}` : 'object'
  }
  if (typeof value === 'string') {
    if (!withValue) return `string of ${value.length} characters`
    return `string ${JSON.stringify(value.length > VALUE_CHARS ? `${value.slice(0, VALUE_CHARS)}…` : value)}`
  }
  if (typeof value === 'number' || typeof value === 'boolean') return withValue ? `${typeof value} ${String(value)}` : typeof value
  return typeof value
}

// ---- Recording: after the answer, never in its way ----

const pending = new Set<Promise<void>>()
type Listener = (call: SchemaCall, mismatch: SchemaMismatch) => void
const listeners = new Set<Listener>()

/**
 * Checks a response's body (a copy, as it is read) against its schema and stores the mismatches,
 * all in the background: the caller does not wait, and a failure is logged, never thrown. Rows
 * beyond SCHEMA_INCIDENT_CAP_PER_HOUR for the same call and field in the last hour are not stored.
 */
export function checkInBackground(deps: { db: Database; now: () => Date }, log: Logger, call: SchemaCall, schema: z.ZodType, body: Promise<unknown>): void {
  recordInBackground(deps, log, call, body.then((value) => schemaMismatches(schema, value, { withValues: call.tenantId !== null })))
}

/**
 * Stores mismatches found some other way (an answer with a status or media type its call does not
 * declare, server/http/contract.ts), in the same background way and under the same cap.
 */
export function recordInBackground(deps: { db: Database; now: () => Date }, log: Logger, call: SchemaCall, found: Promise<SchemaMismatch[]>): void {
  const at = deps.now()
  const work = found
    .then(async (mismatches) => {
      if (mismatches.length === 0) return
      // The harness's listeners hear what this backend answered; a browser's report is its own claim.
      if ((call.source ?? 'server') === 'server') for (const mismatch of mismatches) for (const listener of listeners) listener(call, mismatch)
      log.warn({ schemaIncident: { ...call, fields: mismatches.map((m) => m.field) } }, 'response does not match its schema')
      await storeIncidents(deps.db, at, call, mismatches)
    })
    .catch((error: unknown) => log.warn({ err: error }, 'a response could not be checked against its schema'))
    .finally(() => pending.delete(work))
  pending.add(work)
}

async function storeIncidents(db: Database, now: Date, call: SchemaCall, mismatches: SchemaMismatch[]): Promise<number> {
  let stored = 0
  await inScope(db, call.tenantId, async (tx) => {
    const t = schemaIncidents
    for (const m of mismatches) {
      const [recent] = await tx
        .select({ n: count() })
        .from(t)
        .where(and(eq(t.path, call.path), eq(t.field, m.field), gte(t.occurredAt, new Date(now.getTime() - HOUR_MS))))
      if ((recent?.n ?? 0) >= SCHEMA_INCIDENT_CAP_PER_HOUR) continue
      stored++
      await tx.insert(t).values({ tenantId: call.tenantId, source: call.source ?? 'server', method: call.method, path: call.path, status: call.status, field: m.field, expected: m.expected, got: m.got, correlationId: call.correlationId, release: call.release, occurredAt: now })
    }
  })
  return stored
}

/**
 * Stores what a browser's API client reported (source web) under the same hourly cap, and says
 * how many rows were stored. Awaited: the report is the request itself.
 */
export async function storeWebIncidents(deps: { db: Database; now: () => Date }, tenantId: string, release: string | null, incidents: ReadonlyArray<SchemaMismatch & { method: string; path: string; status: number; correlationId?: string | null | undefined }>): Promise<number> {
  let stored = 0
  for (const incident of incidents) {
    const call: SchemaCall = { source: 'web', method: incident.method, path: incident.path, status: incident.status, tenantId, correlationId: incident.correlationId ?? null, release }
    stored += await storeIncidents(deps.db, deps.now(), call, [{ field: incident.field, expected: incident.expected, got: incident.got }])
  }
  return stored
}

/** Waits for the incidents being stored (tests, before they read the table or close the database). */
export async function settleSchemaIncidents(): Promise<void> {
  while (pending.size > 0) await Promise.allSettled([...pending])
}

/** Hears every mismatch as it is found (the test harness fails a file that had any); returns the way to stop. */
export function onSchemaIncident(listener: Listener): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}
