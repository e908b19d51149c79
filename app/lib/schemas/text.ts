/**
 * One rule for every text the portal accepts: no control characters other than tab, line feed and
 * carriage return (a textarea posts CR LF). A NUL cannot be stored by PostgreSQL at all, and the
 * others are invisible in every screen that would show them. The backend applies this rule to
 * every JSON body, query and path parameter (server/http/contract.ts), so each field refuses them
 * with a field error before any schema of its own runs.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point of this rule
const CONTROL_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/

export const CONTROL_CHARACTER_MESSAGE = 'Remove control characters (such as NUL) from this text.'

export function hasControlCharacter(text: string): boolean {
  return CONTROL_CHARACTER.test(text)
}

/** The dotted path of every string inside a parsed JSON value that breaks the rule ('_' for the value itself). */
export function controlCharacterPaths(value: unknown, path: string[] = []): string[] {
  if (typeof value === 'string') return hasControlCharacter(value) ? [path.join('.') || '_'] : []
  if (Array.isArray(value)) return value.flatMap((item, index) => controlCharacterPaths(item, [...path, String(index)]))
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => [
      ...(hasControlCharacter(key) ? [[...path, key].join('.')] : []),
      ...controlCharacterPaths(item, [...path, key]),
    ])
  }
  return []
}
