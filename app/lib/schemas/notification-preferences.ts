import { z } from 'zod'
import { DIGEST_FREQUENCIES, type IN_APP_EVENTS } from '~/lib/settings/notifications'

const flag = (name: string) => z.boolean({ error: `${name} must be true or false.` })
const digest = z.enum(DIGEST_FREQUENCIES, { error: 'digest must be daily or off.' })

const inApp = z
  .object({
    assigned: flag('inApp.assigned'),
    closeRequested: flag('inApp.closeRequested'),
    reviewTask: flag('inApp.reviewTask'),
    transmittal: flag('inApp.transmittal'),
    superseded: flag('inApp.superseded'),
  })
  .strict()

/**
 * PUT /api/user/notification-preferences/: every preference, as GET answers them. `inApp` may be
 * left out (clients from before in-app notifications): the saved in-app choices then stay.
 */
export const NotificationPreferencesSchema = z
  .object({
    assigned: flag('assigned'),
    response: flag('response'),
    closeRequested: flag('closeRequested'),
    reviewTask: flag('reviewTask'),
    transmittal: flag('transmittal'),
    digest,
    inApp: inApp.optional(),
  })
  .strict()

/** GET's and PUT's answer: every preference, the in-app ones included. */
export const NotificationPreferencesResponseSchema = NotificationPreferencesSchema.extend({ inApp })

/** The /settings/notifications form: an unticked checkbox sends nothing, which reads as off. */
export const NotificationPreferencesFormSchema = z.object({
  assigned: z.boolean().optional(),
  response: z.boolean().optional(),
  closeRequested: z.boolean().optional(),
  reviewTask: z.boolean().optional(),
  transmittal: z.boolean().optional(),
  digest,
  inAppAssigned: z.boolean().optional(),
  inAppCloseRequested: z.boolean().optional(),
  inAppReviewTask: z.boolean().optional(),
  inAppTransmittal: z.boolean().optional(),
  inAppSuperseded: z.boolean().optional(),
})

/** The form's (flat) name of each in-app checkbox. */
export const IN_APP_FIELDS = {
  assigned: 'inAppAssigned',
  closeRequested: 'inAppCloseRequested',
  reviewTask: 'inAppReviewTask',
  transmittal: 'inAppTransmittal',
  superseded: 'inAppSuperseded',
} as const satisfies Record<(typeof IN_APP_EVENTS)[number], string>
