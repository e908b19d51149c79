import type { FieldErrors } from '#server/http/problem'
import type { IssuePurpose } from '~/lib/doc-control/types'
import { comesAfter, nextRevisionCode, parseRevisionCode, revisionCodeProblems, stateOfStatus, SUITABILITY_CODES } from '~/lib/documents/rules'
import type { CdeState } from '~/lib/documents/types'
import { PURPOSE_LABELS } from '~/lib/schemas/sets'

/**
 * The rule book of controlled documents (docs/doc-control.md "The rule book", decision record
 * "dc-rules-rule-book"): every call, form and job that changes a document's revision code,
 * suitability or state asks here first, and nowhere else decides. Pure functions, no database:
 * the callers (uploads, review outcomes, starting a review, publishing a set, sending a
 * transmittal, editing and renumbering a document) do what the answer says.
 *
 * The pairing of a revision code with a suitability (S0–S7 with P, S0 alone with a WIP
 * sub-revision P01.1, A/B/CR with C) and the order of codes are the shared primitives of
 * app/lib/documents/rules.ts, so the upload form shows the same words before anything is sent.
 */

/** The suitability a work-in-progress revision is shared at when its review starts (ISO 19650: suitable for review and comment). */
export const SHARED_FOR_REVIEW = 'S3'

/** The suitability a set publishes a revision at when it is not published already (authorised and accepted, stage 1). */
export const PUBLISHED_BY_SET = 'A1'

/** Whether a code and a suitability may stand together on one revision, whatever came before: the problems as messages. */
export function pairingProblems(code: string, status: string): string[] {
  if (!SUITABILITY_CODES.includes(status)) return [`${status} is not a suitability code: use one of ${SUITABILITY_CODES.join(', ')}.`]
  return revisionCodeProblems(code, status, null)
}

/**
 * A new revision (an upload, in any of its three ways): its code and suitability as field errors,
 * empty when it may be issued. `codes`: every code the document has had (P02 may follow C01 only
 * when the document never had a P02).
 */
export function issueProblems(code: string, status: string, currentCode: string | null, codes?: readonly string[]): FieldErrors {
  const errors: FieldErrors = {}
  if (!SUITABILITY_CODES.includes(status)) errors.status = [`Choose the suitability the revision is issued for: ${SUITABILITY_CODES.join(', ')}.`]
  const problems = revisionCodeProblems(code, status, currentCode, codes)
  if (problems.length > 0) errors.code = problems
  return errors
}

/**
 * What giving a revision a new suitability does to it:
 * - `set`: the revision keeps its code and takes the suitability (P02 reviewed as S4);
 * - `issue`: the suitability is a published one and the revision is preliminary, so the next
 *   contractual revision (C01 after P02, the same file) is issued with it and supersedes the
 *   reviewed one (the choice of the decision record: a review outcome never refuses);
 * - `refuse`: nothing changes, and `message` says how to proceed.
 */
export type StatusEffect = { kind: 'set'; status: string } | { kind: 'issue'; code: string; status: string } | { kind: 'refuse'; message: string }

export function statusEffect(revision: { number: string; code: string; codes?: readonly string[] }, status: string): StatusEffect {
  const state = stateOfStatus(status)
  const parsed = parseRevisionCode(revision.code)
  if (!state || !parsed) return { kind: 'refuse', message: `${revision.number} ${revision.code} cannot take ${status}: not a suitability and revision code the project uses.` }
  if (state === 'Published') {
    if (parsed.series === 'C') return { kind: 'set', status }
    return { kind: 'issue', code: nextRevisionCode(revision.code, status, revision.codes), status }
  }
  if (parsed.series === 'C')
    return { kind: 'refuse', message: `${revision.number} ${revision.code} is contractual: it cannot go back to ${status}. Upload a new revision for further work.` }
  if (parsed.sub > 0 && state !== 'WIP')
    return {
      kind: 'refuse',
      message: `${revision.number} ${revision.code} is a work-in-progress sub-revision: upload it as ${wholeCodeAfter(revision.code)} (a whole revision) before sharing it as ${status}.`,
    }
  return { kind: 'set', status }
}

/** Starting (or resubmitting) a review: a WIP revision is shared for review and comment (S3); a shared one keeps its suitability. */
export function reviewStartEffect(revision: { number: string; code: string; status: string }): StatusEffect | null {
  if (stateOfStatus(revision.status) !== 'WIP') return null
  const effect = statusEffect(revision, SHARED_FOR_REVIEW)
  if (effect.kind === 'refuse') {
    const whole = wholeCodeAfter(revision.code)
    return { kind: 'refuse', message: `${revision.number} ${revision.code} is a work-in-progress sub-revision: upload it as ${whole} (a whole revision) before starting a review.` }
  }
  return effect
}

/** The whole P revision that comes after a sub-revision (P01.2 → P02), or the next whole code. */
function wholeCodeAfter(code: string): string {
  const parsed = parseRevisionCode(code)
  if (!parsed || parsed.series === 'C') return nextRevisionCode(code, 'S1')
  return `P${String(Math.min(parsed.number + 1, 99)).padStart(2, '0')}`
}

/** Publishing a set: a revision not published already takes `PUBLISHED_BY_SET`, which for a preliminary one issues the next C revision. */
export function setPublishEffect(revision: { number: string; code: string; status: string }): StatusEffect | null {
  if (stateOfStatus(revision.status) === 'Published') return null
  return statusEffect(revision, PUBLISHED_BY_SET)
}

/**
 * The suitabilities each purpose of issue fits (ISO 19650: construction works from authorised
 * information; a tender from stage-approved or published; a record from published; a review or
 * information from anything shared or published). Work in progress (S0) fits none: it has not
 * left its task team.
 */
const PURPOSE_FITS: Record<IssuePurpose, (status: string) => boolean> = {
  'for-information': (s) => stateOfStatus(s) === 'Shared' || stateOfStatus(s) === 'Published',
  'for-review': (s) => stateOfStatus(s) === 'Shared' || stateOfStatus(s) === 'Published',
  'for-construction': (s) => /^A\d$/.test(s),
  'for-tender': (s) => s === 'S4' || stateOfStatus(s) === 'Published',
  'for-record': (s) => stateOfStatus(s) === 'Published',
}

/** What each purpose needs, in words, for the warning. */
const PURPOSE_NEEDS: Record<IssuePurpose, string> = {
  'for-information': 'a shared or published suitability (S1–S7, A, B or CR)',
  'for-review': 'a shared or published suitability (S1–S7, A, B or CR)',
  'for-construction': 'an authorised and accepted suitability (A1, A2…)',
  'for-tender': 'stage approval (S4) or a published suitability (A, B or CR)',
  'for-record': 'a published suitability (A, B or CR)',
}

/** One warning per revision whose suitability does not fit the purpose it is issued for; empty when all fit. */
export function purposeWarnings(purpose: IssuePurpose, revisions: ReadonlyArray<{ number: string; code: string; status: string }>): string[] {
  const fits = PURPOSE_FITS[purpose]
  const label = PURPOSE_LABELS[purpose]
  return revisions
    .filter((r) => !fits(r.status))
    .map((r) => `${r.number} ${r.code} is ${r.status}: “${label}” needs ${PURPOSE_NEEDS[purpose]}.`)
}

/** What decides whether a document's number, discipline and type are locked. */
export type LockFacts = { state: CdeState; everPublished: boolean; everSent: boolean }

/**
 * A document is locked once it is published, once any revision of it was (a C revision), or once
 * it left by transmittal: then only the explicit Renumber (a controller, with a reason) changes
 * its number, and so its discipline and type.
 */
export function numberLocked(facts: LockFacts): boolean {
  return facts.state === 'Published' || facts.everPublished || facts.everSent
}

export const LOCKED_NUMBER_MESSAGE =
  'This document has been published or sent: its number, discipline and type are locked. A document controller changes them with “Renumber”, giving a reason.'

/** Who may renumber: a member who manages the document and is not read-only (organisation admins always manage). */
export function mayRenumber(actor: { roleKey: string }, level: string): boolean {
  return actor.roleKey !== 'read-only' && level === 'manage'
}

/** A document as the invariant check reads it: its own status and state, and every revision. */
export type DocumentFacts = {
  number: string
  status: string
  state: CdeState
  currentRevisionId: string | null
  revisions: ReadonlyArray<{ id: string; version: number; code: string; status: string; superseded: boolean }>
}

/**
 * Every way a document breaks the rule book, as messages (empty when it keeps every rule). What the
 * property test checks after each step, and what support reads when a document looks wrong.
 */
export function documentProblems(doc: DocumentFacts): string[] {
  const problems: string[] = []
  const name = doc.number
  for (const r of doc.revisions) for (const p of pairingProblems(r.code, r.status)) problems.push(`${name} ${r.code}/${r.status}: ${p}`)
  const byVersion = [...doc.revisions].sort((a, b) => a.version - b.version)
  for (let i = 1; i < byVersion.length; i++) {
    const before = byVersion[i - 1]
    const after = byVersion[i]
    if (!before || !after) continue
    const a = parseRevisionCode(before.code)
    const b = parseRevisionCode(after.code)
    const earlier = byVersion.slice(0, i).map((r) => r.code)
    if (a && b && !comesAfter(b, a, earlier)) problems.push(`${name}: ${after.code} (version ${after.version}) does not come after ${before.code}.`)
  }
  const current = doc.revisions.find((r) => r.id === doc.currentRevisionId)
  if (doc.currentRevisionId === null) {
    if (doc.revisions.length > 0) problems.push(`${name}: revisions but no current one.`)
    if (doc.status !== 'S0') problems.push(`${name}: no revision yet but status ${doc.status}.`)
  } else if (!current) {
    problems.push(`${name}: its current revision is not one of its revisions.`)
  } else {
    if (current.superseded) problems.push(`${name}: its current revision ${current.code} is superseded.`)
    if (current !== byVersion[byVersion.length - 1]) problems.push(`${name}: its current revision ${current.code} is not its latest.`)
    if (doc.status !== current.status) problems.push(`${name}: status ${doc.status} but its current revision ${current.code} is ${current.status}.`)
  }
  for (const r of doc.revisions) if (r !== current && !r.superseded) problems.push(`${name}: ${r.code} is neither current nor superseded.`)
  const expected = stateOfStatus(doc.status)
  if (doc.state !== 'Archived' && doc.state !== expected) problems.push(`${name}: state ${doc.state} but status ${doc.status} belongs to ${expected ?? 'no state'}.`)
  return problems
}
