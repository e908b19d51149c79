/**
 * What changed between two versions of a category, field by field, for the audit and the history.
 * Secrets never appear: only whether one was set before and after, as a mask.
 */
export type Change = { field: string; before: unknown; after: unknown }

export const SECRET_MASK = '••••'

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null)
}

export function diffValues(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  sealedBefore: Record<string, string>,
  sealedAfter: Record<string, string>,
  secretFields: readonly string[],
): Change[] {
  const changes: Change[] = []
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((name) => !secretFields.includes(name))
  for (const field of fields) {
    if (!same(before[field], after[field])) changes.push({ field, before: before[field] ?? null, after: after[field] ?? null })
  }
  for (const field of secretFields) {
    if ((sealedBefore[field] ?? null) !== (sealedAfter[field] ?? null)) {
      changes.push({ field, before: sealedBefore[field] ? SECRET_MASK : null, after: sealedAfter[field] ? SECRET_MASK : null })
    }
  }
  return changes
}
