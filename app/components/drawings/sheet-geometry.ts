import type { SheetImage, SheetRotation } from '~/lib/documents/types'

/**
 * Where things sit on a drawn sheet. Pins are stored as fractions of the sheet raster (0 top-left,
 * 1 bottom-right), whatever the rotation the drawings overlay shows the sheet at, so turning a
 * sheet never moves a pin on the drawing. Everything here is pure: the same numbers on the server
 * (no JavaScript in the browser) and in the browser.
 */

/** Zoom levels of a sheet, in the URL as `zoom`: the box's width, or the sheet at one or two pixels per unit. */
export const ZOOMS = [
  { key: 'fit', label: 'Fit' },
  { key: '100', label: '100 %' },
  { key: '200', label: '200 %' },
] as const
export type Zoom = (typeof ZOOMS)[number]['key']

export function zoomOf(searchParams: URLSearchParams): Zoom {
  const value = searchParams.get('zoom')
  return ZOOMS.find((z) => z.key === value)?.key ?? 'fit'
}

/** Pixels per sheet unit at a fixed zoom; undefined at Fit (the box decides). */
export function zoomFactor(zoom: Zoom): number | undefined {
  if (zoom === '100') return 1
  if (zoom === '200') return 2
  return undefined
}

function quarterTurn(rotation: SheetRotation): boolean {
  return rotation === 90 || rotation === 270
}

/** The sheet's size as shown: a quarter turn swaps width and height. */
export function shownSize(sheet: Pick<SheetImage, 'width' | 'height' | 'rotation'>): { width: number; height: number } {
  return quarterTurn(sheet.rotation) ? { width: sheet.height, height: sheet.width } : { width: sheet.width, height: sheet.height }
}

/** Where a point of the sheet (fractions of the raster) is shown, in shown-sheet units. */
export function shownPoint(sheet: Pick<SheetImage, 'width' | 'height' | 'rotation'>, x: number, y: number): { x: number; y: number } {
  const px = x * sheet.width
  const py = y * sheet.height
  switch (sheet.rotation) {
    case 90:
      return { x: sheet.height - py, y: px }
    case 180:
      return { x: sheet.width - px, y: sheet.height - py }
    case 270:
      return { x: py, y: sheet.width - px }
    default:
      return { x: px, y: py }
  }
}

/** The inverse: a place given as fractions across and down the sheet as shown, on the raster. */
export function shownToSheet(rotation: SheetRotation, across: number, down: number): { x: number; y: number } {
  switch (rotation) {
    case 90:
      return { x: down, y: 1 - across }
    case 180:
      return { x: 1 - across, y: 1 - down }
    case 270:
      return { x: 1 - down, y: across }
    default:
      return { x: across, y: down }
  }
}

/** The SVG transform that turns the raster clockwise about its top-left and brings it back into view. */
export function rasterTransform(sheet: Pick<SheetImage, 'width' | 'height' | 'rotation'>): string | undefined {
  switch (sheet.rotation) {
    case 90:
      return `translate(${sheet.height} 0) rotate(90)`
    case 180:
      return `translate(${sheet.width} ${sheet.height}) rotate(180)`
    case 270:
      return `translate(0 ${sheet.width}) rotate(270)`
    default:
      return undefined
  }
}

/** Pins are 24 px across at 100 % and 200 % (WCAG 2.5.8's smallest target); at Fit, 1.5 % of the sheet's longer side. */
export const PIN_RADIUS_PX = 12
const FIT_PIN_SHARE = 0.015

export function pinRadius(sheet: Pick<SheetImage, 'width' | 'height'>, zoom: Zoom): number {
  const factor = zoomFactor(zoom)
  return factor === undefined ? Math.max(sheet.width, sheet.height) * FIT_PIN_SHARE : PIN_RADIUS_PX / factor
}

/**
 * The pin picker's fixed widths at Fit (`<input type="image">` needs a known pixel size to turn a
 * click into a fraction of the sheet): one per screen size, each within the main column there
 * (the shell's padding taken off a 360 px phone, and a 640, 1024 and 1280 px screen).
 */
export const PICKER_FIT_WIDTHS = [
  { width: 320, shownClass: 'sm:hidden' },
  { width: 600, shownClass: 'hidden sm:block lg:hidden' },
  { width: 960, shownClass: 'hidden lg:block xl:hidden' },
  { width: 1200, shownClass: 'hidden xl:block' },
] as const

/** The picker's image input at a shown width: its own (unturned) box, which is what a click's x and y are measured in. */
export function pickerBox(sheet: Pick<SheetImage, 'width' | 'height' | 'rotation'>, shownWidth: number) {
  const shown = shownSize(sheet)
  const scale = shownWidth / shown.width
  const width = Math.max(1, Math.round(sheet.width * scale))
  const height = Math.max(1, Math.round(sheet.height * scale))
  return { width, height, shown: quarterTurn(sheet.rotation) ? { width: height, height: width } : { width, height } }
}

/** The click on the picker (pixels in its own box) as fractions of the sheet, kept on the sheet. */
export function clickToFraction(at: { x: number; y: number }, box: { width: number; height: number }): { x: number; y: number } {
  const clamp = (value: number) => Math.min(1, Math.max(0, value))
  return { x: clamp(at.x / box.width), y: clamp(at.y / box.height) }
}
