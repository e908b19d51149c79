import { z } from 'zod'
import { expectedRevision } from './edit-conflict'
import { SUPPORT_BODY_MAX, SUPPORT_STATUSES, SUPPORT_SUBJECT_MAX } from '~/lib/admin/support'

/** Support tickets: the schemas both the API and the forms check (docs/admin/support.md); in the browser only their HTML constraints. */

const subject = z
  .string({ error: 'Give the ticket a subject.' })
  .trim()
  .min(1, 'Give the ticket a subject.')
  .max(SUPPORT_SUBJECT_MAX, `The subject must be at most ${SUPPORT_SUBJECT_MAX} characters.`)

const body = (what: string) =>
  z
    .string({ error: `Write ${what}.` })
    .trim()
    .min(1, `Write ${what}.`)
    .max(SUPPORT_BODY_MAX, `Keep it to ${SUPPORT_BODY_MAX.toLocaleString('en-GB')} characters.`)

export const NewTicketSchema = z.object({ subject, body: body('what you need help with') })
export const SupportReplySchema = z.object({ body: body('your reply') })

export const TicketChangeSchema = z
  .object({
    status: z.enum(SUPPORT_STATUSES, { error: 'The status is open, pending, resolved or closed.' }).optional(),
    assigneeId: z.uuid({ error: 'Choose an administrator of this organisation, or nobody.' }).nullable().optional(),
    expectedRevision,
  })
  .refine((v) => v.status !== undefined || v.assigneeId !== undefined, { message: 'Change the status or the assignee.', path: ['status'] })

/** The admin screen's status and assignee form: an empty assignee is nobody. */
export const TicketChangeFormSchema = z.object({
  status: z.enum(SUPPORT_STATUSES, { error: 'Choose a status.' }),
  assigneeId: z.preprocess((v) => (v === '' || v === undefined ? null : v), z.uuid({ error: 'Choose an administrator, or nobody.' }).nullable()),
})
