import { canShrink, JPEG_QUALITY, keepShrunk, shrunkName, targetSize } from './upload-downscale'

/**
 * Shrinks a JPEG or WebP photo in the browser (see upload-downscale.ts). Resolves to undefined
 * whenever the original should be sent instead: another type, already small, a decode or encode
 * failure, or a result no smaller. It never rejects, so a photo is never lost to shrinking.
 */
export async function shrinkPhoto(file: Blob & { name: string; type: string; lastModified?: number }): Promise<File | undefined> {
  if (!canShrink(file.type) || typeof createImageBitmap !== 'function') return undefined
  let bitmap: ImageBitmap | undefined
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: 'from-image' })
    const size = targetSize(bitmap.width, bitmap.height)
    if (!size) return undefined
    const blob = await encodeJpeg(bitmap, size.width, size.height)
    if (!blob || !keepShrunk(file.size, blob.size)) return undefined
    return new File([blob], shrunkName(file.name), { type: 'image/jpeg', lastModified: file.lastModified })
  } catch {
    return undefined
  } finally {
    bitmap?.close()
  }
}

function draw(context: OffscreenCanvasRenderingContext2D | CanvasRenderingContext2D, bitmap: ImageBitmap, width: number, height: number): void {
  // JPEG has no transparency: a transparent WebP would otherwise turn black.
  context.fillStyle = '#fff'
  context.fillRect(0, 0, width, height)
  context.imageSmoothingEnabled = true
  context.imageSmoothingQuality = 'high'
  context.drawImage(bitmap, 0, 0, width, height)
}

async function encodeJpeg(bitmap: ImageBitmap, width: number, height: number): Promise<Blob | null> {
  if (typeof OffscreenCanvas === 'function') {
    const canvas = new OffscreenCanvas(width, height)
    const context = canvas.getContext('2d')
    if (context) {
      draw(context, bitmap, width, height)
      return canvas.convertToBlob({ type: 'image/jpeg', quality: JPEG_QUALITY })
    }
  }
  const canvas = document.createElement('canvas')
  canvas.width = width
  canvas.height = height
  const context = canvas.getContext('2d')
  if (!context) return null
  draw(context, bitmap, width, height)
  return new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', JPEG_QUALITY))
}
