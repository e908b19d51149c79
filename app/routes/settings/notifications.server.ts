import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, replyWithApiError } from '~/lib/forms'
import { NotificationPreferencesFormSchema } from '~/lib/schemas/notification-preferences'
import type { NotificationPreferences } from '~/lib/settings/notifications'

export async function loadPreferences(api: ApiClient, headers: Headers) {
  const result = await api.GET('/api/user/notification-preferences')
  if (!result.ok) throw loadError(result.error, headers)
  return { preferences: result.data }
}

/** Saves every preference at once (PUT); an unticked box is off. */
export async function savePreferences(api: ApiClient, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: NotificationPreferencesFormSchema })
  if (submission.status !== 'success') return data({ result: submission.reply() }, { status: 400, headers })
  const value = submission.value
  const preferences: NotificationPreferences = {
    assigned: value.assigned ?? false,
    response: value.response ?? false,
    closeRequested: value.closeRequested ?? false,
    reviewTask: value.reviewTask ?? false,
    transmittal: value.transmittal ?? false,
    digest: value.digest,
    inApp: {
      assigned: value.inAppAssigned ?? false,
      closeRequested: value.inAppCloseRequested ?? false,
      reviewTask: value.inAppReviewTask ?? false,
      transmittal: value.inAppTransmittal ?? false,
      superseded: value.inAppSuperseded ?? false,
    },
  }
  const saved = await api.PUT('/api/user/notification-preferences', { body: preferences })
  if (!saved.ok) return data({ result: replyWithApiError(submission, saved.error) }, { status: failureStatus(saved.error), headers })
  await setFlash(headers, { tone: 'success', message: 'Notification settings saved.' })
  throw redirect('/settings/notifications', { headers })
}
