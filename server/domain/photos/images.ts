import type { Sharp, default as SharpFn } from 'sharp'
import { decodeHeic } from './heic'
import { type ImageType } from '../uploads/sniff'

export { sniffImageType, type ImageType } from '../uploads/sniff'

/** The image is of a type this server cannot decode. */
export class UnsupportedImageError extends Error {
  override name = 'UnsupportedImageError'
}

export type Rendition = {
  bytes: Buffer
  contentType: 'image/jpeg' | 'image/webp' | 'image/png'
  width: number
  height: number
}

export const DISPLAY_MAX = 2048
export const THUMBNAIL_MAX = 320
/** Refuse decompression bombs: well above any phone camera's default output (12–50 megapixels). */
const MAX_INPUT_PIXELS = 120_000_000

let loading: Promise<typeof SharpFn> | undefined

/**
 * sharp, set up for the server; every use of libvips goes through here. It loads with the first
 * image, not at the start of every server (about 130 ms of CPU).
 */
export function loadSharp(): Promise<typeof SharpFn> {
  return (loading ??= import('sharp').then(({ default: sharp }) => {
    // Every upload is a different image: libvips' operation cache would only hold memory.
    sharp.cache(false)
    // One libvips thread per image: the rendition queue (work-queue.ts) runs one image per core, so more
    // threads per image would only oversubscribe the cores that requests need too.
    sharp.concurrency(1)
    return sharp
  }))
}

const inputOptions = { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS, autoOrient: true } as const
/** What libvips must find in the file for each sniffed type: nothing else (SVG, PDF, TIFF…) is ever decoded. */
const FORMAT: Record<ImageType, string> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/heic': 'heif',
  'image/heif': 'heif',
}

function corrupt(err: unknown, type: ImageType): Error {
  if (err instanceof UnsupportedImageError) return err
  const message = err instanceof Error ? err.message : String(err)
  if (/compression format has not been built in|not a HEIC image/i.test(message)) {
    return new UnsupportedImageError(`Cannot decode this ${type} on this server: ${message.split('\n').at(-1)}`)
  }
  return new Error(`Cannot decode image (${type}): ${message.trim().split('\n').at(-1)}`, { cause: err })
}

async function probe(sourcePath: string, type: ImageType) {
  const sharp = await loadSharp()
  const meta = await sharp(sourcePath, inputOptions).metadata()
  if (meta.format !== FORMAT[type]) throw new Error(`expected ${FORMAT[type]} data, found ${meta.format}`)
  const { width, height } = meta.autoOrient
  if (!width || !height) throw new Error('image has no dimensions')
  if (width * height > MAX_INPUT_PIXELS) throw new Error(`image too large: ${width}×${height}`)
  return { width, height, alpha: meta.hasAlpha === true, hevc: meta.format === 'heif' && meta.compression === 'hevc' }
}

/** Width and height as displayed (orientation applied), read from the header only; undefined if unreadable. */
export async function readDimensions(sourcePath: string, type: ImageType): Promise<{ width: number; height: number } | undefined> {
  try {
    const { width, height } = await probe(sourcePath, type)
    return { width, height }
  } catch {
    return undefined
  }
}

async function encode(input: Sharp, alpha: boolean): Promise<Rendition> {
  const out = alpha
    ? input.webp({ quality: 82, alphaQuality: 90, effort: 4 })
    : input.jpeg({ quality: 82, progressive: true, mozjpeg: true })
  // sharp writes no metadata (EXIF with GPS, XMP, IPTC, ICC, comments) unless asked to keep it; we never ask.
  const { data, info } = await out.toBuffer({ resolveWithObject: true })
  return { bytes: data, contentType: alpha ? 'image/webp' : 'image/jpeg', width: info.width, height: info.height }
}

/**
 * Decode the file once, apply its orientation, and produce a display rendition (longest side ≤ 2048) and a
 * thumbnail (≤ 320), never upscaled, carrying no metadata at all. Opaque images become JPEG, images with an
 * alpha channel WebP. JPEG, PNG, WebP and AVIF-coded HEIF are decoded by libvips straight from disk (JPEG shrinks
 * on load, so a 12-megapixel photo never sits in memory at full size); HEVC-coded HEIC goes through libheif (WASM).
 * Throws UnsupportedImageError when the data cannot be decoded here, and a plain Error for corrupt data.
 */
export async function makeRenditions(
  sourcePath: string,
  type: ImageType,
): Promise<{ width: number; height: number; display: Rendition; thumbnail: Rendition }> {
  const sharp = await loadSharp()
  try {
    const { width, height, alpha, hevc } = await probe(sourcePath, type)
    let source: Sharp
    if (hevc) {
      const heic = await decodeHeic(sourcePath)
      source = sharp(heic.rgba, { raw: { width: heic.width, height: heic.height, channels: 4 } })
      if (!alpha) source = source.removeAlpha()
    } else {
      source = sharp(sourcePath, inputOptions)
    }
    // Resized to display size once and kept as raw 8-bit pixels (≤ 2048² × 4 bytes): both encodes start from it.
    const { data, info } = await source
      .resize(DISPLAY_MAX, DISPLAY_MAX, { fit: 'inside', withoutEnlargement: true })
      .toColourspace('srgb')
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true })
    const raw = { raw: { width: info.width, height: info.height, channels: info.channels } } as const
    const display = await encode(sharp(data, raw), alpha)
    const thumbnail = await encode(sharp(data, raw).resize(THUMBNAIL_MAX, THUMBNAIL_MAX, { fit: 'inside', withoutEnlargement: true }), alpha)
    return { width, height, display, thumbnail }
  } catch (err) {
    throw corrupt(err, type)
  }
}
