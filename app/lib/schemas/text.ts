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

/**
 * Every string inside a parsed JSON value that breaks the rule, by dotted path ('_' for the value
 * itself), with why, in document order. Walked with a stack of its own, not by recursion: a body
 * may nest tens of thousands of levels deep within the size limit, which would overflow the call
 * stack; a path is spelled out only for a problem found.
 */
export function textProblems(value: unknown): Array<[string, string]> {
  type Step = { value: unknown; key: string | undefined; parent: Step | undefined }
  const pathOf = (step: Step) => {
    const keys: string[] = []
    for (let at: Step | undefined = step; at?.key !== undefined; at = at.parent) keys.push(at.key)
    return keys.reverse().join('.') || '_'
  }
  const problems: Array<[string, string]> = []
  const pending: Step[] = [{ value, key: undefined, parent: undefined }]
  for (let step = pending.pop(); step; step = pending.pop()) {
    const current = step
    if (current.key !== undefined && current.parent && !Array.isArray(current.parent.value)) {
      const keyProblem = textProblem(current.key)
      if (keyProblem) problems.push([pathOf(current), keyProblem])
    }
    if (typeof current.value === 'string') {
      const problem = textProblem(current.value)
      if (problem) problems.push([pathOf(current), problem])
    } else if (current.value !== null && typeof current.value === 'object') {
      const entries = Array.isArray(current.value) ? current.value.map((item, index) => [String(index), item] as const) : Object.entries(current.value)
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, item] = entries[index] as readonly [string, unknown]
        pending.push({ value: item, key, parent: current })
      }
    }
  }
  return problems
}
