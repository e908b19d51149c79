import { type FieldMetadata, getInputProps } from '@conform-to/react'
import { z } from 'zod'
import { Field } from '~/components/ui/field'
import type { PinColours } from '~/lib/documents/types'
import { STATUS_LABELS } from '~/lib/reporting/labels'
import { ITEM_STATUSES } from '~/lib/reporting/types'

/**
 * The drawings overlay's forms (docs/documents.md "Drawings and pins"), shared by the
 * organisation's and a project's page. A colour is a native colour picker, with a text box beside
 * it for typing a hex code instead (for browsers without a picker, and people who have the code):
 * a typed code wins over the picker; an empty box keeps the picker's colour.
 */

const COLOUR_MESSAGE = 'Give a colour as # and six hex digits, e.g. #D92D20.'
/** docs/documents.md: a sheet's scale as printed, at most 20 characters. */
export const SCALE_MAX = 20
export const ROTATIONS = [0, 90, 180, 270] as const

const hex = z.string({ error: COLOUR_MESSAGE }).trim().regex(/^#[0-9a-fA-F]{6}$/, COLOUR_MESSAGE)
const picked = z.object({ open: hex, close_requested: hex, closed: hex })
const typed = z.object({ open: hex.optional(), close_requested: hex.optional(), closed: hex.optional() })

export const OrganisationColoursSchema = z.object({ colours: picked, hex: typed.optional() })

export const ProjectOverlaySchema = z.object({
  colourSource: z.enum(['organisation', 'project'], { error: 'Choose whose colours the project’s pins use.' }),
  colours: picked,
  hex: typed.optional(),
  sheets: z
    .array(
      z.object({
        documentId: z.string({ error: 'The drawing is missing.' }).min(1, 'The drawing is missing.'),
        pinning: z.boolean().optional(),
        scale: z.string().trim().max(SCALE_MAX, `A scale is at most ${SCALE_MAX} characters, e.g. 1:100.`).optional(),
        rotation: z.number({ error: 'Choose a rotation.' }).refine((value) => ROTATIONS.some((r) => r === value), 'Choose 0°, 90°, 180° or 270°.'),
      }),
    )
    .optional(),
})

/** The colours to save: a typed code, else the picker's; upper case, as the backend stores them. */
export function chosenColours(value: { colours: PinColours; hex?: Partial<PinColours> | undefined }): PinColours {
  const pick = (status: keyof PinColours) => (value.hex?.[status] ?? value.colours[status]).toUpperCase()
  return { open: pick('open'), close_requested: pick('close_requested'), closed: pick('closed') }
}

/** The backend names fields by dotted paths (`sheets.0.scale`); conform by brackets (`sheets[0].scale`). A colour's problem goes by its text box. */
export function formFieldErrors(errors: Record<string, string[]>): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(errors).map(([key, messages]) => [key.replace(/^colours\./, 'hex.').replace(/\.(\d+)(?=\.|$)/g, '[$1]'), messages]),
  )
}

type ColourFieldset = { open: FieldMetadata<string>; close_requested: FieldMetadata<string>; closed: FieldMetadata<string> }

/** A picker and a text box per item status. `now` is what is saved, shown as the text box's hint. */
export function ColourFields({ picked, typed, now }: { picked: ColourFieldset; typed: ColourFieldset; now: PinColours }) {
  return (
    <div className="flex flex-col gap-5">
      {ITEM_STATUSES.map((status) => (
        <div key={status} className="flex flex-wrap items-start gap-4">
          <Field label={STATUS_LABELS[status]} className="w-24" inputProps={{ ...getInputProps(picked[status], { type: 'color' }), className: 'cursor-pointer px-1 py-1' }} errors={picked[status].errors} />
          <Field
            label={`${STATUS_LABELS[status]}: or type a hex code`}
            className="min-w-0 flex-1 basis-56"
            help={`Empty keeps the picker’s colour. Saved now: ${now[status]}.`}
            inputProps={{ ...getInputProps(typed[status], { type: 'text' }), placeholder: '#RRGGBB', autoComplete: 'off', spellCheck: false, maxLength: 7 }}
            errors={typed[status].errors}
          />
        </div>
      ))}
    </div>
  )
}
