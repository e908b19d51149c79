import { z } from 'zod'

/**
 * Lost updates (issue 36 §4), one convention across the contract: a PUT/PATCH of a record several
 * people edit carries `expectedRevision`, the record's `revision` when the editor opened it.
 */
/** Versions of settings and templates are counted in a 32-bit column: a higher number names no version (400, never a database error). */
export const VERSION_MAX = 2_147_483_647

export const expectedRevision = z
  .number({ error: 'expectedRevision must be the revision you read.' })
  .int()
  .min(0)
  .max(Number.MAX_SAFE_INTEGER)
  .optional()
  .meta({ description: 'The record’s `revision` when you opened it. When someone saved since, nothing is saved: 409 KR_EDIT_CONFLICT.' })

/** A record's revision in an answer: what a later save sends back as expectedRevision. */
export const recordRevision = z.number().int().min(0).meta({ description: 'Bumped by every save; send it back as expectedRevision when you save.' })

/** The 409 of a stale write, declared by every such operation. */
export const STALE_WRITE =
  'Someone saved since you opened it (KR_EDIT_CONFLICT): nothing was saved; `current` is the record as it is now, with `currentRevision`, `yourRevision` and `changedBy` (their name, or null).'

/** A hidden form field's value back to a revision; absent or not a number: none (the write goes through). */
export function revisionFromForm(value: FormDataEntryValue | null): number | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined
  const n = Number(value)
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined
}

/** The fields of a KR_EDIT_CONFLICT problem the screens read. */
export type EditConflict = { changedBy: string | null; currentRevision: number }
