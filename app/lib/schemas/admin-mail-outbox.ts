import { z } from 'zod'
import { MAIL_STATUSES } from '~/lib/admin/mail-outbox'

/**
 * The mail outbox's filters (docs/admin/mail.md "The outbox page"), as the API reads them and the
 * screen's filter form sends them. An empty field means no filter.
 */
export const MAIL_SEARCH_MAX = 254
export const MAIL_TEMPLATE_MAX = 64

const blankIsAbsent = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : typeof v === 'string' ? v.trim() : v), schema.optional())

export const MailOutboxFilterSchema = z.object({
  status: blankIsAbsent(z.enum(MAIL_STATUSES, { error: `status is one of ${MAIL_STATUSES.join(', ')}.` })),
  template: blankIsAbsent(z.string().max(MAIL_TEMPLATE_MAX, `template is at most ${MAIL_TEMPLATE_MAX} characters.`)),
  to: blankIsAbsent(z.string().max(MAIL_SEARCH_MAX, `Search at most ${MAIL_SEARCH_MAX} characters.`)),
})

export type MailOutboxFilterInput = z.infer<typeof MailOutboxFilterSchema>
