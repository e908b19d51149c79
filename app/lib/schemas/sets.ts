import { z } from 'zod'
import { expectedRevision } from './edit-conflict'
import { ISSUE_PURPOSES, type IssuePurpose } from '~/lib/doc-control/types'

/**
 * Sets (docs/doc-control.md "Sets"): the API's bodies and the screens' forms, one schema each, so
 * the backend's field errors (`name`, `revisionIds`, `message`, `purpose`) land next to the right
 * field. A form sends one ticked box as a single value and none as nothing: the id lists read both.
 */

export const SET_NAME_MAX = 120
export const SET_DESCRIPTION_MAX = 2000
/** The set publish body's message (spec §3). */
export const PUBLISH_MESSAGE_MAX = 4000
/** Ours: an issue of more documents than this is several sets (and a transmittal's package stays a size people download). */
export const SET_REVISIONS_MAX = 1000

/** Reasons for issue (../shared/notes/doc-control.md), as people read them. */
export const PURPOSE_LABELS: Record<IssuePurpose, string> = {
  'for-information': 'For information',
  'for-review': 'For review',
  'for-construction': 'For construction',
  'for-tender': 'For tender',
  'for-record': 'For record',
}

/** A form's single value or repeated values, or none, as a list; the same id twice counts once. */
export function idList(message: string, max: number, tooMany: string) {
  return z.preprocess(
    (value) => (value === undefined || value === null || value === '' ? [] : Array.isArray(value) ? value : [value]),
    z
      .array(z.uuid(message), { error: message })
      .max(max, tooMany)
      .transform((ids) => [...new Set(ids.map((id) => id.toLowerCase()))]),
  )
}

export const revisionIdList = idList('Choose revisions from the list.', SET_REVISIONS_MAX, `Choose at most ${SET_REVISIONS_MAX} revisions.`)

const setName = z.string({ error: 'Give the set a name.' }).trim().min(1, 'Give the set a name.').max(SET_NAME_MAX, `A set name is at most ${SET_NAME_MAX} characters.`)

/** Blank is none: an emptied field clears the description. */
const description = z
  .string({ error: 'The description must be text.' })
  .trim()
  .max(SET_DESCRIPTION_MAX, `Use at most ${SET_DESCRIPTION_MAX} characters.`)
  .nullable()
  .optional()
  .transform((v) => (v === undefined ? undefined : v === null || v === '' ? null : v))

export const SetCreateSchema = z.object({ name: setName, description, revisionIds: revisionIdList.optional() })
export const SetPatchSchema = z.object({ name: setName.optional(), description, expectedRevision })
export const SetRevisionsSchema = z.object({ revisionIds: revisionIdList, expectedRevision })

export const PurposeSchema = z.enum(ISSUE_PURPOSES, { error: 'Choose the purpose of the issue.' })

/** The set publish body (spec §3). */
export const SetPublishSchema = z.object({
  message: z
    .string({ error: 'Write the message that goes with the issue.' })
    .trim()
    .min(1, 'Write the message that goes with the issue.')
    .max(PUBLISH_MESSAGE_MAX, `Use at most ${PUBLISH_MESSAGE_MAX} characters.`),
  purpose: PurposeSchema,
})

export const SetDeriveSchema = z.object({ name: setName })

export const SET_PAGE_SIZE = 50
export const PAGE_SIZE_MAX = 100
/** Offset paging reads and drops page × pageSize rows: the page number is bounded. */
export const PAGE_MAX = 1000

/** An HTML form sends an empty field for "nothing": read it as absent. */
export function blankIsNone<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), schema.optional())
}

export function wholeNumber(name: string, max: number) {
  const message = `${name} must be a whole number from 1 to ${max}.`
  return z.coerce.number({ error: message }).int(message).min(1, message).max(max, message)
}

/** GET /api/projects/{projectId}/sets. */
export const SetListQuery = z.object({
  status: blankIsNone(z.enum(['draft', 'published'], { error: 'status is draft or published.' })),
  page: blankIsNone(wholeNumber('page', PAGE_MAX)).transform((v) => v ?? 1),
  pageSize: blankIsNone(wholeNumber('pageSize', PAGE_SIZE_MAX)).transform((v) => v ?? SET_PAGE_SIZE),
})
