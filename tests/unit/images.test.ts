import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { makeRenditions, readDimensions, sniffImageType, UnsupportedImageError } from '#server/domain/photos/images'

const bytes = (...parts: (string | number[])[]) =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...Buffer.from(p, 'latin1')] : p)))
/** An ISO-BMFF `ftyp` box: size, 'ftyp', major brand, minor version, compatible brands. */
const ftyp = (major: string, ...compatible: string[]) => {
  const size = 16 + 4 * compatible.length
  return bytes([0, 0, 0, size], 'ftyp', major, [0, 0, 0, 0], ...compatible, [0, 0, 0, 8], 'meta')
}

/**
 * 64×48 HEVC-coded HEIC, left half red, right half blue: made for this test with the system libheif 1.15
 * (x265 encoder) — nothing in node_modules can encode HEVC.
 */
const HEIC_HALVES = Buffer.from(
  'AAAAHGZ0eXBoZWljAAAAAG1pZjFoZWljbWlhZgAAAa1tZXRhAAAAAAAAACFoZGxyAAAAAAAAAABwaWN0AAAAAAAAAAAAAAAAAAAA' +
  'AA5waXRtAAAAAAACAAAAEGlkYXQAAAAAAEAAMAAAADhpbG9jAQAAAERAAAIAAQAAAAAAAAHRAAEAAAAAAAAAjgACAAEAAAAAAAAA' +
  'AQAAAAAAAAAIAAAAOGlpbmYAAAAAAAIAAAAVaW5mZQIAAAEAAQAAaHZjMQAAAAAVaW5mZQIAAAAAAgAAZ3JpZAAAAADYaXBycAAA' +
  'ALZpcGNvAAAAdmh2Y0MBA3AAAAAAAAAAAAAe8AD8/fj4AAAPAyAAAQAYQAEMAf//A3AAAAMAkAAAAwAAAwAeugJAIQABACpCAQED' +
  'cAAAAwCQAAADAAADAB6gIIEFlurkprm4EBAwIAAAAwAgAAADACEiAAEABkQBwXPAiQAAABRpc3BlAAAAAAAAAEAAAABAAAAAFGlz' +
  'cGUAAAAAAAAAQAAAADAAAAAQcGl4aQAAAAADCAgIAAAAGmlwbWEAAAAAAAAAAgABAoECAAICA4QAAAAaaXJlZgAAAAAAAAAOZGlt' +
  'ZwACAAEAAQAAAJZtZGF0AAAAiigBrwY4iS58L/ajX///stn9l/kw5KaZf4+hXI/5ViP//4zGpv/ATs0T9bJQ1ZyXuwR0xhlteo5e' +
  'LFSIzQB/A9kJdqtANlHYrs2PVlrKD+BExrceEWBQc6h2fsAGDTLg5qUV1HDk5xqStZ1z8JLDjk270qmXo9qTvp6BzVf396AplRBi' +
  'Sls9IaERwA==',
  'base64',
)

describe('sniffImageType', () => {
  test('recognises each type by its magic bytes', () => {
    expect(sniffImageType(bytes([0xff, 0xd8, 0xff, 0xe0, 0, 0x10], 'JFIF'))).toBe('image/jpeg')
    expect(sniffImageType(bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13], 'IHDR'))).toBe('image/png')
    expect(sniffImageType(bytes('RIFF', [0x24, 0, 0, 0], 'WEBPVP8 '))).toBe('image/webp')
    for (const brand of ['heic', 'heix', 'hevc', 'hevx']) expect(sniffImageType(ftyp(brand, 'mif1'))).toBe('image/heic')
    for (const brand of ['mif1', 'msf1', 'heim', 'heis']) expect(sniffImageType(ftyp(brand))).toBe('image/heif')
    // The HEIC brand may appear only among the compatible brands.
    expect(sniffImageType(ftyp('mif1', 'miaf', 'heic'))).toBe('image/heic')
    expect(sniffImageType(ftyp('avif', 'mif1', 'miaf'))).toBe('image/heif')
  })

  test('a text file named .jpg, other containers and truncated heads are not images', () => {
    expect(sniffImageType(Buffer.from('hello, this is not a photo\n'))).toBeUndefined()
    expect(sniffImageType(new Uint8Array())).toBeUndefined()
    expect(sniffImageType(bytes([0xff, 0xd8]))).toBeUndefined()
    expect(sniffImageType(bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a]))).toBeUndefined()
    expect(sniffImageType(bytes('RIFF', [0x24, 0, 0, 0], 'WEB'))).toBeUndefined()
    expect(sniffImageType(bytes('RIFF', [0x24, 0, 0, 0], 'WAVEfmt '))).toBeUndefined()
    expect(sniffImageType(bytes([0, 0, 0, 24], 'ftypheic').subarray(0, 10))).toBeUndefined()
    expect(sniffImageType(ftyp('isom', 'mp41', 'mp42'))).toBeUndefined() // an MP4 video
    // Brands past the end of the ftyp box do not count.
    expect(sniffImageType(bytes([0, 0, 0, 16], 'ftypisom', [0, 0, 0, 0], 'heic'))).toBeUndefined()
  })
})

/** JPEG segments before the image data: marker and payload. */
function jpegSegments(jpeg: Buffer): { marker: number; payload: Buffer }[] {
  const out: { marker: number; payload: Buffer }[] = []
  let i = 2
  while (i + 4 <= jpeg.length && jpeg[i] === 0xff) {
    const marker = jpeg[i + 1]!
    if (marker === 0xda) break // start of scan
    const length = jpeg.readUInt16BE(i + 2)
    out.push({ marker, payload: jpeg.subarray(i + 4, i + 2 + length) })
    i += 2 + length
  }
  return out
}

describe('makeRenditions', () => {
  let dir: string
  const file = async (name: string, data: Buffer | Uint8Array) => {
    const path = join(dir, name)
    await writeFile(path, data)
    return path
  }
  /** Left half red, right half blue, so a rotation shows. */
  const halves = (width: number, height: number) => {
    const rgb = Buffer.alloc(width * height * 3)
    for (let i = 0; i < width * height; i++) rgb[i * 3 + (i % width < width / 2 ? 0 : 2)] = 255
    return sharp(rgb, { raw: { width, height, channels: 3 } })
  }
  const pixel = async (image: Buffer, x: number, y: number) => {
    const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true })
    const at = (y * info.width + x) * info.channels
    return [data[at]!, data[at + 1]!, data[at + 2]!]
  }
  const isRed = ([r, g, b]: number[]) => r! > 200 && g! < 60 && b! < 60
  const isBlue = ([r, g, b]: number[]) => r! < 60 && g! < 60 && b! > 200

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'images-test-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  test('a large landscape JPEG shrinks to 2048 for display and 320 for the thumbnail', async () => {
    const path = await file('large.jpg', await halves(3000, 2000).jpeg().toBuffer())
    const r = await makeRenditions(path, 'image/jpeg')
    expect([r.width, r.height]).toEqual([3000, 2000])
    expect(r.display).toMatchObject({ contentType: 'image/jpeg', width: 2048, height: 1365 })
    expect(r.thumbnail).toMatchObject({ contentType: 'image/jpeg', width: 320, height: 213 })
    expect(await sharp(r.display.bytes).metadata()).toMatchObject({ format: 'jpeg', width: 2048, height: 1365 })
    expect(await sharp(r.thumbnail.bytes).metadata()).toMatchObject({ format: 'jpeg', width: 320, height: 213 })
    expect(await readDimensions(path, 'image/jpeg')).toEqual({ width: 3000, height: 2000 })
  })

  test('a small image is never upscaled', async () => {
    const path = await file('small.png', await halves(200, 100).png().toBuffer())
    const r = await makeRenditions(path, 'image/png')
    expect(r.display).toMatchObject({ contentType: 'image/jpeg', width: 200, height: 100 })
    expect(r.thumbnail).toMatchObject({ width: 200, height: 100 })
    const mid = await makeRenditions(await file('mid.webp', await halves(400, 1000).webp().toBuffer()), 'image/webp')
    expect(mid.display).toMatchObject({ width: 400, height: 1000 })
    expect(mid.thumbnail).toMatchObject({ width: 128, height: 320 })
  })

  test('transparency survives as WebP', async () => {
    const png = await sharp({ create: { width: 60, height: 30, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).png().toBuffer()
    const r = await makeRenditions(await file('alpha.png', png), 'image/png')
    expect(r.display.contentType).toBe('image/webp')
    expect(await sharp(r.display.bytes).metadata()).toMatchObject({ format: 'webp', hasAlpha: true, width: 60, height: 30 })
  })

  test('EXIF orientation 6 is applied: stored 400×200 shows as 200×400, left half on top', async () => {
    const stored = await sharp(await halves(400, 200).jpeg().toBuffer()).withMetadata({ orientation: 6 }).toBuffer()
    expect((await sharp(stored).metadata()).orientation).toBe(6)
    const path = await file('rotated.jpg', stored)
    const r = await makeRenditions(path, 'image/jpeg')
    expect([r.width, r.height]).toEqual([200, 400])
    expect(r.display).toMatchObject({ width: 200, height: 400 })
    expect(r.thumbnail).toMatchObject({ width: 160, height: 320 })
    expect(isRed(await pixel(r.display.bytes, 100, 50))).toBe(true)
    expect(isBlue(await pixel(r.display.bytes, 100, 350))).toBe(true)
    expect((await sharp(r.display.bytes).metadata()).orientation).toBeUndefined()
    expect(await readDimensions(path, 'image/jpeg')).toEqual({ width: 200, height: 400 })
  })

  test('GPS and all other metadata are removed', async () => {
    const source = await halves(800, 600)
      .jpeg()
      .withExif({
        IFD0: { Make: 'PhoneCo', Model: 'Pocket 12', Copyright: 'someone' },
        IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '52/1 31/1 1234/100', GPSLongitudeRef: 'E', GPSLongitude: '13/1 24/1 0/1' },
      })
      .toBuffer()
    // The fixture really carries an Exif APP1 segment with a GPS IFD pointer (tag 0x8825).
    const app1 = jpegSegments(source).find((s) => s.marker === 0xe1)
    expect(app1?.payload.subarray(0, 6).toString('latin1')).toBe('Exif\0\0')
    expect(app1!.payload.includes(Buffer.from([0x88, 0x25])) || app1!.payload.includes(Buffer.from([0x25, 0x88]))).toBe(true)

    const r = await makeRenditions(await file('gps.jpg', source), 'image/jpeg')
    for (const out of [r.display.bytes, r.thumbnail.bytes]) {
      const markers = jpegSegments(out).map((s) => s.marker)
      expect(markers.filter((m) => m >= 0xe1 && m <= 0xef)).toEqual([]) // no APP1 (Exif/XMP), APP2 (ICC), APP13 (IPTC)…
      expect(markers.includes(0xfe)).toBe(false) // no comment
      for (const needle of ['Exif', 'GPS', 'PhoneCo', 'http://ns.adobe.com/xap']) expect(out.includes(Buffer.from(needle))).toBe(false)
      const meta = await sharp(out).metadata()
      expect(meta.exif).toBeUndefined()
      expect(meta.xmp).toBeUndefined()
      expect(meta.icc).toBeUndefined()
    }
  })

  test('HEVC-coded HEIC (iPhone) is decoded through libheif', async () => {
    expect(sniffImageType(HEIC_HALVES)).toBe('image/heic')
    const path = await file('halves.heic', HEIC_HALVES)
    expect(await readDimensions(path, 'image/heic')).toEqual({ width: 64, height: 48 })
    const r = await makeRenditions(path, 'image/heic')
    expect([r.width, r.height]).toEqual([64, 48])
    expect(r.display).toMatchObject({ contentType: 'image/jpeg', width: 64, height: 48 })
    expect(isRed(await pixel(r.display.bytes, 8, 24))).toBe(true)
    expect(isBlue(await pixel(r.display.bytes, 56, 24))).toBe(true)
    expect(jpegSegments(r.display.bytes).map((s) => s.marker).filter((m) => m >= 0xe1 && m <= 0xef)).toEqual([])

    const truncated = await file('truncated.heic', HEIC_HALVES.subarray(0, 120))
    const err = await makeRenditions(truncated, 'image/heic').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(Error)
    expect(err).not.toBeInstanceOf(UnsupportedImageError)
  })

  test('16-bit PNG and greyscale JPEG come out as ordinary 8-bit renditions', async () => {
    const png16 = await halves(100, 50).toColourspace('rgb16').png().toBuffer()
    expect((await sharp(png16).metadata()).depth).toBe('ushort')
    const r = await makeRenditions(await file('deep.png', png16), 'image/png')
    expect(r.display).toMatchObject({ contentType: 'image/jpeg', width: 100, height: 50 })
    expect(isRed(await pixel(r.display.bytes, 10, 25))).toBe(true)
    const grey = await halves(100, 50).greyscale().jpeg().toBuffer()
    const g = await makeRenditions(await file('grey.jpg', grey), 'image/jpeg')
    expect(await sharp(g.thumbnail.bytes).metadata()).toMatchObject({ format: 'jpeg', width: 100, height: 50 })
  })

  test('corrupt data is a plain Error, not UnsupportedImageError', async () => {
    const garbage = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('this is not really a JPEG at all '.repeat(20))])
    const path = await file('corrupt.jpg', garbage)
    const err = await makeRenditions(path, 'image/jpeg').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(Error)
    expect(err).not.toBeInstanceOf(UnsupportedImageError)
    expect(await readDimensions(path, 'image/jpeg')).toBeUndefined()
    await expect(makeRenditions(join(dir, 'missing.jpg'), 'image/jpeg')).rejects.toThrow(Error)
    // Data that is not what the sniffed type says is refused, not decoded as whatever it is.
    const png = await file('png-as-jpeg.jpg', await halves(10, 10).png().toBuffer())
    await expect(makeRenditions(png, 'image/jpeg')).rejects.toThrow(/expected jpeg/)
    const svg = await file('x.jpg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"/>'))
    await expect(makeRenditions(svg, 'image/jpeg')).rejects.toThrow(Error)
  })
})
