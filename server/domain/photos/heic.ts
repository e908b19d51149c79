import { readFile } from 'node:fs/promises'

/**
 * Decode an HEVC-coded HEIC/HEIF still (the iPhone camera format), which the prebuilt libvips in sharp cannot
 * (no libde265, for patent reasons), with libheif compiled to WebAssembly. libheif applies the container's
 * rotation/mirroring (irot/imir) itself; the result is bare RGBA pixels without any metadata.
 * The WebAssembly module (~8 MB) loads on first use only.
 */
export async function decodeHeic(sourcePath: string): Promise<{ width: number; height: number; rgba: Buffer }> {
  const { default: decode } = await import('heic-decode')
  const file = await readFile(sourcePath)
  const { width, height, data } = await decode({ buffer: file })
  return { width, height, rgba: Buffer.from(data.buffer, data.byteOffset, data.byteLength) }
}
