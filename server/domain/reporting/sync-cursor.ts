import { createHash, createHmac, timingSafeEqual } from 'node:crypto'

/**
 * Sync cursors (docs/site-reporting.md "Change log"): what the client sends back as `cursor`. Two
 * kinds, one format: a revision cursor ("the changes after revision r") and a snapshot continuation
 * ("the snapshot at revision r, after entity `after` of `phase`"). The value is URL-safe and signed
 * with HMAC-SHA256 over the tenant id and the fields, so a cursor is good only for its tenant, until
 * its expiry, and only as issued. The tenant id is not in the value: the session supplies it.
 *
 * Value: `<revision>.<expiry ms, base 36>[.<phase><after id>][.m<cutoff ms, base 36>].<signature, base64url>`.
 * The `m` field marks a cursor of the mobile feed (`changes-mobile`) and carries the time before
 * which closed items had left its scope when the cursor was issued; a cursor of one feed is
 * never good for the other.
 */

export type SnapshotPhase = 'p' | 'r' | 'i'
export type CursorState = {
  revision: number
  expiresAt: number
  snapshot?: { phase: SnapshotPhase; after: string | null }
  /** Mobile feed only: items closed at or before this time (ms) were out of the client's scope. */
  mobileCutoff?: number
}

/** The key for cursor signatures, derived from the session secret so that one secret serves both. */
export function syncCursorKey(sessionSecret: string): Buffer {
  return createHmac('sha256', sessionSecret).update('sync cursor').digest()
}

const PHASES = new Set<string>(['p', 'r', 'i'])
const ID = /^[0-9a-f-]{36}$/

function body(state: CursorState): string {
  let text = `${state.revision}.${state.expiresAt.toString(36)}`
  if (state.snapshot) text += `.${state.snapshot.phase}${state.snapshot.after ?? ''}`
  if (state.mobileCutoff !== undefined) text += `.m${state.mobileCutoff.toString(36)}`
  return text
}

function sign(key: Buffer, tenantId: string, text: string): Buffer {
  return createHmac('sha256', key).update(`${tenantId}\n${text}`).digest()
}

export function encodeCursor(key: Buffer, tenantId: string, state: CursorState): string {
  const text = body(state)
  return `${text}.${sign(key, tenantId, text).toString('base64url')}`
}

/** The cursor's state, or null when it is not a cursor this key issued for this tenant (expiry is the caller's check). */
export function decodeCursor(key: Buffer, tenantId: string, value: string): CursorState | null {
  const cut = value.lastIndexOf('.')
  if (cut < 0) return null
  const text = value.slice(0, cut)
  // Compared as text, so a signature has one spelling (base64url's last character has spare bits).
  const given = Buffer.from(value.slice(cut + 1))
  const expected = Buffer.from(sign(key, tenantId, text).toString('base64url'))
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null
  const [revision, expiry, ...fields] = text.split('.')
  if (revision === undefined || expiry === undefined || !/^\d{1,15}$/.test(revision) || !/^[0-9a-z]{1,12}$/.test(expiry)) return null
  const state: CursorState = { revision: Number(revision), expiresAt: parseInt(expiry, 36) }
  for (const field of fields) {
    const tag = field.slice(0, 1)
    const value = field.slice(1)
    if (PHASES.has(tag) && state.snapshot === undefined && state.mobileCutoff === undefined) {
      if (value !== '' && !ID.test(value)) return null
      state.snapshot = { phase: tag as SnapshotPhase, after: value === '' ? null : value }
    } else if (tag === 'm' && state.mobileCutoff === undefined && /^[0-9a-z]{1,12}$/.test(value)) {
      state.mobileCutoff = parseInt(value, 36)
    } else return null
  }
  return state
}

/** A weak validator for a changes answer: it is the same answer while these inputs are the same. */
export function changesEtag(parts: (string | number | boolean)[]): string {
  return `W/"${createHash('sha256').update(parts.join('\n')).digest('base64url').slice(0, 27)}"`
}
