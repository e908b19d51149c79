import { z } from 'zod'
import { COMPARE_MAX, COMPARE_MIN } from '~/lib/reporting/items-query'
import { ITEM_PRIORITIES } from '~/lib/reporting/types'

/**
 * The items screens' forms (docs/site-reporting.md "Validation"), one schema per form, used by the
 * browser (native constraints, live with JS) and by the actions. Field names are the API's, so the
 * backend's field errors land next to the right field.
 */
import { BULK_MAX, ITEM_DESCRIPTION_MAX, ITEM_LOCATION_MAX, ITEM_TITLE_MAX, RESPONSE_BODY_MAX, VIEW_NAME_MAX } from '~/lib/reporting/limits'

export { BULK_MAX, ITEM_DESCRIPTION_MAX, ITEM_LOCATION_MAX, ITEM_TITLE_MAX, RESPONSE_BODY_MAX, VIEW_NAME_MAX }

const itemId = z.uuid('Choose an item from the list.')

const responseBody = (required: string) =>
  z
    .string({ error: required })
    .trim()
    .min(1, required)
    .max(RESPONSE_BODY_MAX, `Use at most ${RESPONSE_BODY_MAX} characters.`)

/** Edit fields. Empty optional fields clear the value (the action sends null). */
export const ItemFieldsSchema = z.object({
  title: z
    .string({ error: 'Enter a title.' })
    .trim()
    .min(1, 'Enter a title.')
    .max(ITEM_TITLE_MAX, `Use at most ${ITEM_TITLE_MAX} characters.`),
  description: z.string().trim().max(ITEM_DESCRIPTION_MAX, `Use at most ${ITEM_DESCRIPTION_MAX} characters.`).optional(),
  priority: z.enum(ITEM_PRIORITIES, 'Choose a priority.'),
  assigneeUserId: z.uuid('Choose a member from the list.').optional(),
  packageKey: z.string().trim().max(64).optional(),
  location: z.string().trim().max(ITEM_LOCATION_MAX, `Use at most ${ITEM_LOCATION_MAX} characters.`).optional(),
  dueDate: z.iso.date('Enter a date, for example 2026-03-31.').optional(),
})

export const RespondSchema = z.object({
  body: responseBody('Write your response.'),
  requestClose: z.boolean().optional(),
})

/** The verifier closes the item; a note is optional. */
export const ConfirmCloseSchema = z.object({
  body: z.string().trim().max(RESPONSE_BODY_MAX, `Use at most ${RESPONSE_BODY_MAX} characters.`).optional(),
})

/** Rejecting a close (or reopening) needs the reason: it stays in the thread. */
export const RejectCloseSchema = z.object({
  body: responseBody('Give the reason, so the assignee knows what is still to do.'),
})

/**
 * The bulk action select's value: `assign:<userId>`, `package:<key>`, `request-close` or `delete`.
 * One select keeps it to one choice that works without script.
 */
export const BULK_OPERATION = /^(assign:[0-9a-fA-F-]{36}|package:[A-Za-z0-9._-]{1,64}|request-close|delete)$/

/**
 * The ticked items, each once: with the automatic layout both the table and the cards are in the
 * page (one of them hidden by CSS), and a selection kept after a failed submission ticks both.
 */
const selectedIds = (min: number, max: number, tooFew: string, tooMany: string) =>
  z
    .array(itemId)
    .transform((ids) => [...new Set(ids)])
    .pipe(z.array(z.string()).min(min, tooFew).max(max, tooMany))

export const ItemSelectionSchema = z.discriminatedUnion('intent', [
  z
    .object({
      intent: z.literal('bulk'),
      ids: selectedIds(1, BULK_MAX, 'Select the items to change.', `Select at most ${BULK_MAX} items at a time.`),
      operation: z.string({ error: 'Choose what to do with the selected items.' }).regex(BULK_OPERATION, 'Choose what to do with the selected items.'),
      body: z.string().trim().max(RESPONSE_BODY_MAX, `Use at most ${RESPONSE_BODY_MAX} characters.`).optional(),
      confirmed: z.literal('yes').optional(),
    })
    .superRefine((value, ctx) => {
      // The close request is a response in each item's thread: the verifier needs to know what was done.
      if (value.operation === 'request-close' && !value.body) {
        ctx.addIssue({ code: 'custom', path: ['body'], message: 'Say what was done, for whoever confirms the close.' })
      }
    }),
  z.object({
    intent: z.literal('compare'),
    ids: selectedIds(COMPARE_MIN, COMPARE_MAX, `Select ${COMPARE_MIN} to ${COMPARE_MAX} items to compare.`, `Select ${COMPARE_MIN} to ${COMPARE_MAX} items to compare.`),
  }),
])

export type BulkOperation =
  | { action: 'assign'; assigneeUserId: string }
  | { action: 'package'; packageKey: string }
  | { action: 'request-close' }
  | { action: 'delete' }

export function parseBulkOperation(value: string): BulkOperation | null {
  if (!BULK_OPERATION.test(value)) return null
  if (value.startsWith('assign:')) return { action: 'assign', assigneeUserId: value.slice('assign:'.length) }
  if (value.startsWith('package:')) return { action: 'package', packageKey: value.slice('package:'.length) }
  return value === 'delete' ? { action: 'delete' } : { action: 'request-close' }
}

export const SaveViewSchema = z.object({
  name: z
    .string({ error: 'Name the view.' })
    .trim()
    .min(1, 'Name the view.')
    .max(VIEW_NAME_MAX, `Use at most ${VIEW_NAME_MAX} characters.`),
  scope: z.enum(['personal', 'shared'], 'Choose who sees the view.'),
})

export const DeleteViewSchema = z.object({ id: z.string({ error: 'Choose a view from the list.' }).trim().min(1, 'Choose a view from the list.').max(100) })
