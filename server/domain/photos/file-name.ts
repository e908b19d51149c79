/**
 * Upload file names arrive as the client sent them (`../../tmp/x.jpg`, CR/LF, 255 characters of
 * spaces). The original is kept for the download of the original; what the portal shows is this
 * cleaned name (issue 17).
 */

export const DISPLAY_NAME_MAX = 120
export const DISPLAY_NAME_FALLBACK = 'photo'

// C0 and C1 controls, DEL, and the Unicode line/paragraph separators and bidi overrides that can
// disguise a name (e.g. "gpj.exe" shown as "exe.jpg").
// eslint-disable-next-line no-control-regex
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g

/** Basename only (after the last / or \), no control characters, trimmed, at most 120 characters, never empty. */
export function displayFileName(sent: string): string {
  const base = sent.slice(Math.max(sent.lastIndexOf('/'), sent.lastIndexOf('\\')) + 1)
  const clean = base.replace(INVISIBLE, '').trim()
  // Cut by code points, so a surrogate pair is never split.
  const cut = Array.from(clean).slice(0, DISPLAY_NAME_MAX).join('').trim()
  return cut === '' || cut === '.' || cut === '..' ? DISPLAY_NAME_FALLBACK : cut
}
