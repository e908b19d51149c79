import { z } from 'zod'
import { Problem, problems } from '#server/http/problem'
import { decodeOpaque, encodeOpaque } from '#server/http/opaque'

/**
 * Keyset paging: a cursor is the (createdAt, id) of the last row of a page, opaque to clients
 * (base64url JSON). Rows are ordered by createdAt then id, so pages never skip or repeat a row
 * when rows are added meanwhile, and a deep page costs the same as the first.
 */
export type Cursor = { createdAt: Date; id: string }

export const DEFAULT_PAGE_SIZE = 25
export const MAX_PAGE_SIZE = 100

const cursorShape = z.object({ t: z.iso.datetime(), id: z.uuid() })

export function encodeCursor(row: { createdAt: Date; id: string }): string {
  return encodeOpaque({ t: row.createdAt.toISOString(), id: row.id })
}

export function decodeCursor(value: string | undefined, field = 'after'): Cursor | undefined {
  if (value === undefined || value === '') return undefined
  try {
    const parsed = cursorShape.parse(decodeOpaque(value))
    return { createdAt: new Date(parsed.t), id: parsed.id }
  } catch {
    throw new Problem(problems.badRequest('The paging cursor is not valid.', { [field]: ['The paging cursor is not valid. Start again from the first page.'] }))
  }
}

/** A paging cursor as a query parameter: opaque, and never longer than a real one. */
export const cursorParam = z.string().max(200, 'The paging cursor is not valid.').optional()

/** Query-string limit: 1–100, default 25. */
export const limitParam = z.coerce
  .number({ error: 'limit must be a whole number from 1 to 100.' })
  .int('limit must be a whole number from 1 to 100.')
  .min(1, 'limit must be a whole number from 1 to 100.')
  .max(MAX_PAGE_SIZE, 'limit must be a whole number from 1 to 100.')
  .default(DEFAULT_PAGE_SIZE)

/** Fetch limit + 1 rows; this trims the extra one and says where the next page starts. */
export function pageOf<T extends { createdAt: Date; id: string }>(rows: T[], limit: number): { rows: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { rows, nextCursor: null }
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  return { rows: page, nextCursor: last ? encodeCursor(last) : null }
}
