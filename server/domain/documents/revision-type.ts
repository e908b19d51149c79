import { sniffImageType } from '../uploads/sniff'

/**
 * The type of a revision's file, read from its first bytes only (never its name or the type the
 * client declared): a revision may be any file, so what is not recognised is
 * application/octet-stream, which is always downloaded, never shown. ZIP-based formats (Office
 * documents, many CAD exchange files) are application/zip: telling them apart would mean reading
 * the archive's directory, and nothing here depends on it.
 */

/** How many first bytes the sniffing reads. */
export const SNIFF_BYTES = 4096

export const OCTET_STREAM = 'application/octet-stream'

/** Types a browser shows itself: served inline (under a sandboxing CSP); anything else is an attachment. */
const INLINE_TYPES = new Set(['application/pdf', 'image/png', 'image/jpeg', 'image/webp', 'image/gif'])

export function servedInline(contentType: string): boolean {
  return INLINE_TYPES.has(contentType)
}

function startsWith(head: Uint8Array, ascii: string, at = 0): boolean {
  if (head.length < at + ascii.length) return false
  for (let i = 0; i < ascii.length; i++) if (head[at + i] !== ascii.charCodeAt(i)) return false
  return true
}

/** `%PDF-` within the first 1024 bytes, as PDF readers accept it (some writers put junk before it). */
function isPdf(head: Uint8Array): boolean {
  return Buffer.from(head.subarray(0, 1024)).indexOf('%PDF-', 0, 'latin1') >= 0
}

/**
 * Plain text: valid UTF-8 (a character cut at the end of the sample is fine) without NUL or other
 * control characters but tab, line feed, form feed, carriage return and escape.
 */
function isText(head: Uint8Array): boolean {
  if (head.length === 0) return false
  for (const byte of head) {
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d && byte !== 0x1b) return false
    if (byte === 0x7f) return false
  }
  // Drop a multi-byte character the sample cut in two, then ask the decoder to be strict.
  let end = head.length
  for (let back = 1; back <= 3 && end - back >= 0; back++) {
    const byte = head[end - back] as number
    if ((byte & 0xc0) === 0x80) continue
    if (byte >= 0xc0) {
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2
      if (back < length) end -= back
    }
    break
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, end))
    return true
  } catch {
    return false
  }
}

/** The type of a file from its first bytes (SNIFF_BYTES of them; fewer for a small file). */
export function sniffFileType(head: Uint8Array): string {
  const image = sniffImageType(head.subarray(0, 64))
  if (image) return image
  if (startsWith(head, 'GIF87a') || startsWith(head, 'GIF89a')) return 'image/gif'
  if (startsWith(head, 'II*\u0000') || startsWith(head, 'MM\u0000*')) return 'image/tiff'
  if (startsWith(head, 'PK\u0003\u0004') || startsWith(head, 'PK\u0005\u0006')) return 'application/zip'
  if (isPdf(head)) return 'application/pdf'
  if (isText(head)) return 'text/plain'
  return OCTET_STREAM
}
