import type { ProblemInit } from './problem'

/**
 * 413 for a body over a call's limit (the configured MAX_BODY_BYTES for JSON and forms, or the
 * call's own for uploads). `maxBytes` tells a client what would have fitted.
 */
export function bodyTooLarge(maxBytes: number): ProblemInit {
  return {
    status: 413,
    title: 'Request body too large',
    detail: `This call takes at most ${maxBytes} bytes.`,
    code: 'KR_BODY_TOO_LARGE',
    remediation: 'Send less: shorten the text, or upload files through the upload calls.',
    extensions: { maxBytes },
  }
}
