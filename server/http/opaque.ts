/**
 * The opaque tokens the server hands out and takes back (paging cursors, the groups of the admin
 * lists): JSON in base64url. `encodeOpaque` makes one; `decodeOpaque` reads one back, or answers
 * undefined for anything the server could not have made: not base64url JSON, or a string holding
 * a NUL, which PostgreSQL can neither store nor compare (it failed the query: a 500). The caller
 * checks the shape and answers its own 400 or 404.
 */
export function encodeOpaque(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url')
}

export function decodeOpaque(value: string): unknown {
  try {
    return JSON.parse(Buffer.from(value, 'base64url').toString('utf8'), (_key, field: unknown) => {
      if (typeof field === 'string' && field.includes('\u0000')) throw new RangeError('a NUL in an opaque token')
      return field
    }) as unknown
  } catch {
    return undefined
  }
}
