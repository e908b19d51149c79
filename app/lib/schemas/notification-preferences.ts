import { z } from 'zod'
import { DIGEST_FREQUENCIES } from '~/lib/settings/notifications'

const flag = (name: string) => z.boolean({ error: `${name} must be true or false.` })
const digest = z.enum(DIGEST_FREQUENCIES, { error: 'digest must be daily or off.' })

/** PUT /api/user/notification-preferences/: every preference, as GET answers them. */
export const NotificationPreferencesSchema = z
  .object({
    assigned: flag('assigned'),
    response: flag('response'),
    closeRequested: flag('closeRequested'),
    reviewTask: flag('reviewTask'),
    transmittal: flag('transmittal'),
    digest,
  })
  .strict()

/** The /settings/notifications form: an unticked checkbox sends nothing, which reads as off. */
export const NotificationPreferencesFormSchema = z.object({
  assigned: z.boolean().optional(),
  response: z.boolean().optional(),
  closeRequested: z.boolean().optional(),
  reviewTask: z.boolean().optional(),
  transmittal: z.boolean().optional(),
  digest,
})
