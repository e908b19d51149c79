/** What the markup screen needs of a photo (docs/photos.md "Photo JSON"). */
export type MarkupPhoto = {
  id: string
  itemId: string
  fileName: string
  caption: string | null
  width: number | null
  height: number | null
  displayUrl: string | null
  /** Null for members who may not edit photos: they may look, not mark up. */
  originalUrl: string | null
  edit: { id: string; overlayJson: unknown; createdAtUtc: string } | null
}

/** A shape id unique within one overlay, without needing a secure context for randomUUID. */
export function newShapeId(): string {
  return `s${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`
}
