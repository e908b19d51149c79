import { Form } from 'react-router'
import { cx } from '~/components/ui/class-names'
import { CsrfInput } from '~/components/ui/csrf-input'
import type { SheetImage, SheetRotation } from '~/lib/documents/types'
import { PICKER_FIT_WIDTHS, PIN_RADIUS_PX, pickerBox, shownPoint, shownSize, zoomFactor, type Zoom } from './sheet-geometry'
import { RevisionInput } from '~/components/ui/revision-input'

/**
 * Placing a pin by clicking the sheet, without JavaScript: the sheet is the form's
 * `<input type="image" name="at">`, so a click submits `at.x` and `at.y`, the pixels of the click
 * in the image's own box, whose size goes with the form (`width`, `height`). The action divides:
 * the fractions of the sheet. A turned sheet is the same image turned by CSS; browsers measure a
 * click on it in the image's own, unturned box, so the fractions need no turning back.
 *
 * At Fit the width must still be known, so there is one form per screen size (each shown only
 * there); at 100 % and 200 % one form at the sheet's width times the zoom. With JavaScript it is
 * the same form: React Router sends the clicked image's coordinates with it.
 */

/** Turns the image about its top-left, then moves it back into its box (classes: the CSP forbids inline styles). */
const TURN_CLASSES: Record<SheetRotation, string> = {
  0: '',
  90: 'origin-top-left [transform:rotate(90deg)_translateY(-100%)]',
  180: 'origin-top-left [transform:rotate(180deg)_translate(-100%,-100%)]',
  270: 'origin-top-left [transform:rotate(270deg)_translateX(-100%)]',
}

export type PinPickerProps = {
  sheet: SheetImage
  documentId: string
  zoom: Zoom
  /** Names the clickable sheet, e.g. "Sheet A-0001: click where the item is". */
  label: string
  /** Where the item's pin is now on this sheet, ringed. */
  current?: { x: number; y: number; colour: string } | undefined
  /** The pin's revision this move saves against (expectedRevision); none when the item had no pin. */
  revision?: number | undefined
}

export function PinPicker({ sheet, documentId, zoom, label, current, revision }: PinPickerProps) {
  const factor = zoomFactor(zoom)
  const widths = factor === undefined ? PICKER_FIT_WIDTHS : [{ width: Math.round(shownSize(sheet).width * factor), shownClass: '' }]
  return (
    <>
      {widths.map(({ width, shownClass }) => (
        <PickerForm key={width} sheet={sheet} documentId={documentId} shownWidth={width} className={shownClass} label={label} current={current} revision={revision} />
      ))}
    </>
  )
}

function PickerForm({ sheet, documentId, shownWidth, className, label, current, revision }: Omit<PinPickerProps, 'zoom'> & { shownWidth: number; className: string }) {
  const box = pickerBox(sheet, shownWidth)
  const shown = shownSize(sheet)
  const unitsPerPixel = shown.width / box.shown.width
  const mark = current ? shownPoint(sheet, current.x, current.y) : undefined
  return (
    <Form method="post" className={className}>
      <CsrfInput />
      <input type="hidden" name="intent" value="place" />
      <input type="hidden" name="documentId" value={documentId} />
      <input type="hidden" name="width" value={box.width} />
      <input type="hidden" name="height" value={box.height} />
      {revision === undefined ? null : <RevisionInput revision={revision} />}
      <div className="relative inline-block align-top">
        <input
          type="image"
          name="at"
          src={sheet.url}
          alt={label}
          width={box.width}
          height={box.height}
          className={cx('absolute top-0 left-0 max-w-none cursor-crosshair bg-surface outline-offset-2 focus-visible:outline-3 focus-visible:outline-primary', TURN_CLASSES[sheet.rotation])}
        />
        {/* Gives the box its turned size, and rings the pin's place above the image; clicks pass through. */}
        <svg width={box.shown.width} height={box.shown.height} viewBox={`0 0 ${shown.width} ${shown.height}`} aria-hidden="true" className="pointer-events-none relative block">
          {mark && current ? (
            <>
              <circle cx={mark.x} cy={mark.y} r={PIN_RADIUS_PX * 1.9 * unitsPerPixel} fill="none" stroke="#0B1220" strokeWidth={3 * unitsPerPixel} />
              <circle cx={mark.x} cy={mark.y} r={PIN_RADIUS_PX * unitsPerPixel} fill={current.colour} stroke="#FFFFFF" strokeWidth={3 * unitsPerPixel} />
            </>
          ) : null}
        </svg>
      </div>
    </Form>
  )
}
