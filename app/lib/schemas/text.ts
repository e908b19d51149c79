/**
 * One rule for every text the portal accepts: it must be text. No control characters other than
 * tab, line feed and carriage return (a textarea posts CR LF) — a NUL cannot be stored by
 * PostgreSQL at all, and the others are invisible wherever they would show — and no half of a
 * surrogate pair (JSON can carry one; it is not a character, and the database refuses it). The
 * backend applies this rule to every JSON body, query and path parameter (server/http/contract.ts),
 * so each field refuses such text with a field error before any schema of its own runs.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point of this rule
const CONTROL_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

export const CONTROL_CHARACTER_MESSAGE = 'Remove control characters (such as NUL) from this text.'
export const BROKEN_CHARACTER_MESSAGE = 'This text has a broken character (half of an emoji or symbol): type it again.'

/** Why a text breaks the rule, or undefined when it is fine. */
export function textProblem(text: string): string | undefined {
  if (CONTROL_CHARACTER.test(text)) return CONTROL_CHARACTER_MESSAGE
  if (LONE_SURROGATE.test(text)) return BROKEN_CHARACTER_MESSAGE
  return undefined
}

/** Every string inside a parsed JSON value that breaks the rule, by dotted path ('_' for the value itself), with why. */
export function textProblems(value: unknown, path: string[] = []): Array<[string, string]> {
  const here = (p: string[]) => p.join('.') || '_'
  if (typeof value === 'string') {
    const problem = textProblem(value)
    return problem ? [[here(path), problem]] : []
  }
  if (Array.isArray(value)) return value.flatMap((item, index) => textProblems(item, [...path, String(index)]))
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]): Array<[string, string]> => {
      const keyProblem = textProblem(key)
      return [...(keyProblem ? [[here([...path, key]), keyProblem] as [string, string]] : []), ...textProblems(item, [...path, key])]
    })
  }
  return []
}
