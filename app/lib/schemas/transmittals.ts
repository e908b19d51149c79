import { z } from 'zod'
import { expectedRevision } from './edit-conflict'
import { TRANSMITTAL_STATUSES, WIZARD_STEPS } from '~/lib/doc-control/types'
import { blankIsNone, idList, PAGE_MAX, PAGE_SIZE_MAX, PurposeSchema, revisionIdList, wholeNumber } from './sets'

/**
 * Transmittals (docs/doc-control.md "Transmittals"): the API's bodies and the screens' forms (the
 * wizard, the transmittal page), one schema each. Field names are the API's, so a refused send
 * (`subject`, `revisions`, `recipients`) or a bad field lands next to the right input.
 */

export const TRANSMITTAL_SUBJECT_MAX = 200
export const TRANSMITTAL_MESSAGE_MAX = 10_000
export const TRANSMITTAL_RESPONSE_MAX = 4000
/** Ours: people and parties chosen on one transmittal (a party counts once, however many people it has). */
export const TRANSMITTAL_RECIPIENTS_MAX = 200
export const TRANSMITTAL_PAGE_SIZE = 25

const subject = z.string({ error: 'The subject must be text.' }).trim().max(TRANSMITTAL_SUBJECT_MAX, `A subject is at most ${TRANSMITTAL_SUBJECT_MAX} characters.`)
const message = z.string({ error: 'The message must be text.' }).trim().max(TRANSMITTAL_MESSAGE_MAX, `Use at most ${TRANSMITTAL_MESSAGE_MAX} characters.`)
/** A calendar date (YYYY-MM-DD); blank or null is none. */
const responseDueDate = z.preprocess((v) => (v === '' ? null : v), z.iso.date('Enter a date, for example 2026-03-31.').nullable().optional())

export const TransmittalCreateSchema = z.object({
  subject: subject.optional(),
  purpose: PurposeSchema.optional(),
  message: message.optional(),
  responseDueDate,
  revisionIds: revisionIdList.optional(),
  setId: z.preprocess((v) => (v === '' ? undefined : v), z.uuid('Choose a set from the list.').optional()),
})

export const TransmittalPatchSchema = z.object({
  subject: subject.optional(),
  purpose: PurposeSchema.optional(),
  message: message.optional(),
  responseDueDate,
  wizardStep: z.enum(WIZARD_STEPS, { error: `wizardStep is one of ${WIZARD_STEPS.join(', ')}.` }).optional(),
  expectedRevision,
})

export const TransmittalRevisionsSchema = z.object({ revisionIds: revisionIdList, expectedRevision })

export const TransmittalRecipientsSchema = z.object({
  userIds: idList('Choose people from the list.', TRANSMITTAL_RECIPIENTS_MAX, `Choose at most ${TRANSMITTAL_RECIPIENTS_MAX} people.`),
  partyIds: idList('Choose parties from the list.', TRANSMITTAL_RECIPIENTS_MAX, `Choose at most ${TRANSMITTAL_RECIPIENTS_MAX} parties.`),
  expectedRevision,
})

export const TransmittalRespondSchema = z.object({
  response: z.string({ error: 'Write your response.' }).trim().min(1, 'Write your response.').max(TRANSMITTAL_RESPONSE_MAX, `Use at most ${TRANSMITTAL_RESPONSE_MAX} characters.`),
})

/** GET /api/projects/{projectId}/transmittals. */
export const TransmittalListQuery = z.object({
  status: blankIsNone(z.enum(TRANSMITTAL_STATUSES, { error: `status is one of ${TRANSMITTAL_STATUSES.join(', ')}.` })),
  page: blankIsNone(wholeNumber('page', PAGE_MAX)).transform((v) => v ?? 1),
  pageSize: blankIsNone(wholeNumber('pageSize', PAGE_SIZE_MAX)).transform((v) => v ?? TRANSMITTAL_PAGE_SIZE),
})
