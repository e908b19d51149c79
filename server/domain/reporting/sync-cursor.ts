import { createHash, createHmac, timingSafeEqual } from 'node:crypto'

/**
 * Sync cursors (docs/site-reporting.md "Change log"): what the client sends back as `cursor`. Two
 * kinds, one format: a revision cursor ("the changes after revision r") and a snapshot continuation
 * ("the snapshot at revision r, after entity `after` of `phase`"). The value is URL-safe and signed
 * with HMAC-SHA256 over the tenant id and the fields, so a cursor is good only for its tenant, until
 * its expiry, and only as issued. The tenant id is not in the value: the session supplies it.
 *
 * Value: `<revision>.<expiry ms, base 36>[.<phase><after id>].<signature, base64url>`.
 */

export type SnapshotPhase = 'p' | 'r' | 'i'
export type CursorState = { revision: number; expiresAt: number; snapshot?: { phase: SnapshotPhase; after: string | null } }

/** The key for cursor signatures, derived from the session secret so that one secret serves both. */
export function syncCursorKey(sessionSecret: string): Buffer {
  return createHmac('sha256', sessionSecret).update('sync cursor').digest()
}

const PHASES = new Set<string>(['p', 'r', 'i'])
const ID = /^[0-9a-f-]{36}$/

function body(state: CursorState): string {
  const head = `${state.revision}.${state.expiresAt.toString(36)}`
  return state.snapshot ? `${head}.${state.snapshot.phase}${state.snapshot.after ?? ''}` : head
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
  const [revision, expiry, snap, ...rest] = text.split('.')
  if (rest.length > 0 || revision === undefined || expiry === undefined || !/^\d{1,15}$/.test(revision) || !/^[0-9a-z]{1,12}$/.test(expiry)) return null
  const state: CursorState = { revision: Number(revision), expiresAt: parseInt(expiry, 36) }
  if (snap !== undefined) {
    const phase = snap.slice(0, 1)
    const after = snap.slice(1)
    if (!PHASES.has(phase) || (after !== '' && !ID.test(after))) return null
    state.snapshot = { phase: phase as SnapshotPhase, after: after === '' ? null : after }
  }
  return state
}

/** A weak validator for a changes answer: it is the same answer while these inputs are the same. */
export function changesEtag(parts: (string | number | boolean)[]): string {
  return `W/"${createHash('sha256').update(parts.join('\n')).digest('base64url').slice(0, 27)}"`
}
