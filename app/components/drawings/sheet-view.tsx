import { type ReactNode } from 'react'
import { Link, useLocation } from 'react-router'
import { cx } from '~/components/ui/class-names'
import type { Pin, PinColours, SheetImage } from '~/lib/documents/types'
import { STATUS_LABELS } from '~/lib/reporting/labels'
import { ITEM_STATUSES } from '~/lib/reporting/types'
import { pinRadius, rasterTransform, shownPoint, shownSize, zoomFactor, ZOOMS, type Zoom } from './sheet-geometry'

/**
 * A drawing's sheet with its pins, drawn as inline SVG from the server: the raster as an `<image>`
 * turned by the sheet's rotation, and each pin a circle in its status colour at its place. Pins
 * are positioned with SVG attributes only (the CSP forbids inline styles), and each is a link to
 * its item named for assistive technology ("Item 12: Missing fire stop (Open)").
 */

const INK = '#0B1220'
const PAPER = '#FFFFFF'

export function pinLabel(pin: Pick<Pin, 'itemNumber' | 'itemTitle' | 'itemStatus'>): string {
  return `Item ${pin.itemNumber}: ${pin.itemTitle} (${STATUS_LABELS[pin.itemStatus]})`
}

export type SheetViewProps = {
  sheet: SheetImage
  pins: readonly Pin[]
  zoom: Zoom
  /** Names the drawing, e.g. "Sheet SYM01-ARC-Z1-03-DR-A-0001, revision P02". */
  label: string
  /** Pins link to their items; false draws them as labelled marks (the item page's own pin). */
  linkPins?: boolean
  /** An item whose pin gets a ring. */
  highlight?: string | undefined
}

export function SheetView({ sheet, pins, zoom, label, linkPins = true, highlight }: SheetViewProps) {
  const shown = shownSize(sheet)
  const factor = zoomFactor(zoom)
  const radius = pinRadius(sheet, zoom)
  return (
    <svg
      viewBox={`0 0 ${shown.width} ${shown.height}`}
      width={factor === undefined ? undefined : shown.width * factor}
      height={factor === undefined ? undefined : shown.height * factor}
      // Fit: as wide as the box and never taller than it, so the whole sheet, title block too, shows (the drawing is centred in the spare room).
      className={factor === undefined ? 'block h-auto max-h-[calc(75vh-2px)] w-full' : 'block max-w-none'}
      role="group"
      aria-label={label}
    >
      <image href={sheet.url} x={0} y={0} width={sheet.width} height={sheet.height} transform={rasterTransform(sheet)} preserveAspectRatio="none" />
      {pins.map((pin) => (
        <PinMark key={pin.itemId} pin={pin} at={shownPoint(sheet, pin.x, pin.y)} radius={radius} linked={linkPins} highlighted={pin.itemId === highlight} />
      ))}
    </svg>
  )
}

function PinMark({ pin, at, radius, linked, highlighted }: { pin: Pin; at: { x: number; y: number }; radius: number; linked: boolean; highlighted: boolean }) {
  const label = pinLabel(pin)
  const mark = (
    <>
      {highlighted ? <circle cx={at.x} cy={at.y} r={radius * 1.9} fill="none" stroke={INK} strokeWidth={radius * 0.3} /> : null}
      <circle cx={at.x} cy={at.y} r={radius * 1.2} fill={INK} fillOpacity={0.35} />
      <circle cx={at.x} cy={at.y} r={radius} fill={pin.colour} stroke={PAPER} strokeWidth={radius * 0.3} />
      {pin.needsReview ? <circle cx={at.x} cy={at.y} r={radius * 0.4} fill={PAPER} /> : null}
    </>
  )
  if (!linked)
    return (
      <g role="img" aria-label={label}>
        <title>{label}</title>
        {mark}
      </g>
    )
  return (
    <Link to={`/items/${pin.itemId}`} aria-label={label} className="outline-offset-2 focus-visible:outline-3 focus-visible:outline-primary">
      <title>{label}</title>
      {mark}
    </Link>
  )
}

/** What the colours mean; a white centre marks a pin to check after the drawing was revised. */
export function PinLegend({ colours, review = false, className }: { colours: PinColours; review?: boolean; className?: string }) {
  return (
    <ul aria-label="Pin colours" className={cx('flex flex-wrap gap-x-5 gap-y-1 text-sm text-text', className)}>
      {ITEM_STATUSES.map((status) => (
        <li key={status} className="flex items-center gap-2">
          <Swatch colour={colours[status]} />
          {STATUS_LABELS[status]}
        </li>
      ))}
      {review ? (
        <li className="flex items-center gap-2">
          <Swatch colour={colours.open} review />
          To check: the drawing was revised
        </li>
      ) : null}
    </ul>
  )
}

function Swatch({ colour, review = false }: { colour: string; review?: boolean }) {
  return (
    <svg width="18" height="18" viewBox="0 0 18 18" aria-hidden="true" className="shrink-0">
      <circle cx="9" cy="9" r="7" fill={colour} stroke={INK} strokeOpacity={0.4} strokeWidth="1.5" />
      {review ? <circle cx="9" cy="9" r="3" fill={PAPER} /> : null}
    </svg>
  )
}

/** Fit, 100 % and 200 % as links that keep the rest of the URL: zoom works without JavaScript. */
export function ZoomLinks({ current }: { current: Zoom }) {
  const location = useLocation()
  return (
    <nav aria-label="Zoom">
      <ul className="inline-flex overflow-hidden rounded-md border border-border-strong text-sm">
        {ZOOMS.map((zoom) => {
          const params = new URLSearchParams(location.search)
          if (zoom.key === 'fit') params.delete('zoom')
          else params.set('zoom', zoom.key)
          const search = params.toString()
          const active = zoom.key === current
          return (
            <li key={zoom.key} className="border-border-strong not-first:border-l">
              <Link
                to={`${location.pathname}${search ? `?${search}` : ''}`}
                preventScrollReset
                aria-current={active ? 'true' : undefined}
                className={cx('inline-flex min-h-9 items-center px-3 whitespace-nowrap', active ? 'bg-primary font-medium text-white' : 'bg-surface text-text hover:bg-surface-muted')}
              >
                {zoom.label}
              </Link>
            </li>
          )
        })}
      </ul>
    </nav>
  )
}

/** The scrollable box a sheet sits in: pan by scrolling (keyboard too: it takes focus). */
export function SheetBox({ label, children, className }: { label: string; children: ReactNode; className?: string }) {
  return (
    <div role="region" aria-label={label} tabIndex={0} className={cx('max-h-[75vh] overflow-auto rounded-lg border border-border bg-surface', className)}>
      {children}
    </div>
  )
}
