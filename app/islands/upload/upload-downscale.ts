/**
 * "Shrink photos before upload": the pure part (which files, what size, the per-device setting).
 * The decoding and encoding are in upload-downscale-browser.ts, which cannot run in Node.
 *
 * Only JPEG and WebP are re-encoded, to a JPEG whose longest side is at most 2048 px (the size of
 * the server's display rendition, docs/photos.md). PNG (it may have transparency) and HEIC/HEIF
 * (most browsers cannot decode them) are uploaded as they are.
 */

export const DOWNSCALE_SETTING_KEY = 'sp.uploadDownscale'
export const MAX_LONG_SIDE = 2048
export const JPEG_QUALITY = 0.85

const REENCODED_TYPES = new Set(['image/jpeg', 'image/pjpeg', 'image/jpg', 'image/webp'])

/** Whether a file of this MIME type is worth decoding to shrink (JPEG and WebP only). */
export function canShrink(type: string): boolean {
  return REENCODED_TYPES.has(type.trim().toLowerCase())
}

/**
 * The size to draw at: the longest side at most `maxLongSide`, proportions kept, never upscaled.
 * Undefined when the image is small enough already (or its size makes no sense): upload as it is.
 */
export function targetSize(width: number, height: number, maxLongSide = MAX_LONG_SIDE): { width: number; height: number } | undefined {
  if (!(width > 0 && height > 0) || !Number.isFinite(width) || !Number.isFinite(height)) return undefined
  const longest = Math.max(width, height)
  if (longest <= maxLongSide) return undefined
  const scale = maxLongSide / longest
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) }
}

/** The original name with a .jpg extension ("IMG_1.webp" → "IMG_1.jpg", "scan" → "scan.jpg"). */
export function shrunkName(name: string): string {
  const base = name.trim() || 'photo'
  const dot = base.lastIndexOf('.')
  return `${dot > 0 ? base.slice(0, dot) : base}.jpg`
}

/** A re-encode that came out no smaller than the original is not worth sending instead of it. */
export function keepShrunk(originalBytes: number, shrunkBytes: number): boolean {
  return shrunkBytes > 0 && shrunkBytes < originalBytes
}

/** A size for the queue item: "610 KB", "4.2 MB". */
export function fileSize(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

type SettingStorage = Pick<Storage, 'getItem' | 'setItem'>

/** The device's setting; off when never set, or when the browser blocks site data. */
export function readDownscaleSetting(storage: SettingStorage | undefined): boolean {
  try {
    return storage?.getItem(DOWNSCALE_SETTING_KEY) === '1'
  } catch {
    return false
  }
}

export function writeDownscaleSetting(storage: SettingStorage | undefined, on: boolean): void {
  try {
    storage?.setItem(DOWNSCALE_SETTING_KEY, on ? '1' : '0')
  } catch {
    // Blocked or full storage: the setting holds for this page only.
  }
}
