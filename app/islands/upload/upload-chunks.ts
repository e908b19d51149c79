/**
 * Chunking and back-off for the upload island (docs/photos.md "Upload protocol"). The server takes
 * chunks up to its `chunkSize` (8 MB); the island sends smaller ones so progress moves on a slow
 * line and a cut connection costs little (the server keeps every byte that arrived anyway).
 */

export const CLIENT_CHUNK_BYTES = 1024 * 1024

/** The largest photo the server takes (docs/photos.md "Limits", MAX_FILE_BYTES). */
export const MAX_PHOTO_BYTES = 50 * 1024 * 1024

/**
 * Waits between attempts after a dropped connection: the API client's 300/1000/3000 ms
 * (RETRY_DELAYS_MS), then longer, and never giving up: a site may be out of signal for minutes.
 */
export const UPLOAD_RETRY_DELAYS_MS = [300, 1000, 3000, 5000, 10_000, 30_000] as const

export function retryDelay(attempt: number): number {
  const last = UPLOAD_RETRY_DELAYS_MS[UPLOAD_RETRY_DELAYS_MS.length - 1] ?? 30_000
  return UPLOAD_RETRY_DELAYS_MS[Math.max(0, attempt)] ?? last
}

/** The byte range to send next from `offset`, or undefined when the file is all there. */
export function nextChunk(offset: number, size: number, serverChunkSize: number, clientChunkSize = CLIENT_CHUNK_BYTES): { start: number; end: number } | undefined {
  if (offset >= size) return undefined
  const step = Math.max(1, Math.min(serverChunkSize, clientChunkSize))
  return { start: offset, end: Math.min(size, offset + step) }
}

/** Progress as a whole percentage, for the text beside the progress bar. */
export function percent(sent: number, size: number): number {
  if (size <= 0) return 0
  return Math.min(100, Math.floor((sent / size) * 100))
}
