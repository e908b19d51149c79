/** Image types the photo pipeline accepts, identified from magic bytes only. */
export type ImageType = 'image/jpeg' | 'image/png' | 'image/webp' | 'image/heic' | 'image/heif'

const HEIC_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx'])
const HEIF_BRANDS = new Set(['mif1', 'msf1', 'heim', 'heis'])

function ascii(b: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...b.subarray(start, end))
}

function startsWith(b: Uint8Array, sig: readonly number[], at = 0): boolean {
  if (b.length < at + sig.length) return false
  return sig.every((v, i) => b[at + i] === v)
}

/** ISO-BMFF: `ftyp` box at offset 4; major brand, then compatible brands up to the box end. */
function sniffHeif(b: Uint8Array): ImageType | undefined {
  if (b.length < 12 || ascii(b, 4, 8) !== 'ftyp') return undefined
  const boxSize = ((b[0]! << 24) >>> 0) + (b[1]! << 16) + (b[2]! << 8) + b[3]!
  const end = Math.min(boxSize >= 16 ? boxSize : 16, b.length)
  const brands = [ascii(b, 8, 12)]
  for (let i = 16; i + 4 <= end; i += 4) brands.push(ascii(b, i, i + 4))
  if (brands.some((x) => HEIC_BRANDS.has(x))) return 'image/heic'
  if (brands.some((x) => HEIF_BRANDS.has(x))) return 'image/heif'
  return undefined
}

/** Identify an image from its first bytes (a few hundred suffice); undefined when not a supported image. */
export function sniffImageType(head: Uint8Array): ImageType | undefined {
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'image/jpeg'
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png'
  if (head.length >= 12 && ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return 'image/webp'
  return sniffHeif(head)
}
