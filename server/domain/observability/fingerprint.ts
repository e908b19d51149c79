import { createHash } from 'node:crypto'

/** How many frames from the top of a stack name an error (with its message). */
export const FINGERPRINT_FRAMES = 3

/** A frame of V8 (`    at fn (url:1:2)`); its stacks start with the message, which may hold anything. */
const V8_FRAME = /^\s*at\s/
/** A frame of SpiderMonkey and JavaScriptCore (`fn@url:1:2`), whose stacks hold frames only. */
const OTHER_FRAME = /@|:\d+(?::\d+)?\)?\s*$/
/** The line and column at the end of a location: `:10:5`, `:10`, before a closing parenthesis or the end. */
const POSITION = /(?::\d+){1,2}(?=\)?$)/
/** A query string or fragment inside a URL: cache busters and build hashes must not split one error in two. */
const QUERY = /[?#][^\s()]*/g

/** The top frames of a stack, without line and column numbers or query strings. */
export function normalisedFrames(stack: string | null | undefined, count = FINGERPRINT_FRAMES): string[] {
  if (!stack) return []
  const lines = stack.split(/\r?\n/)
  const frame = lines.some((line) => V8_FRAME.test(line)) ? V8_FRAME : OTHER_FRAME
  const frames: string[] = []
  for (const line of lines) {
    if (frames.length === count) break
    if (!frame.test(line)) continue
    frames.push(line.trim().replace(POSITION, '').replace(QUERY, '').trim())
  }
  return frames
}

/**
 * One error however often it happens, in whichever build of the same code: SHA-256 (hex) of the
 * message and the top three frames, positions and query strings removed.
 */
export function errorFingerprint(message: string, stack: string | null | undefined): string {
  return createHash('sha256')
    .update([message.trim(), ...normalisedFrames(stack)].join('\n'))
    .digest('hex')
}
