import { data } from 'react-router'
import { deferred, partsBeforeNavigation } from '~/components/ui/deferred'
import { createServerApi } from '~/lib/api.server'
import type { Route } from './+types/notifications'
import { loadPreferences, savePreferences } from './notifications.server'

/**
 * /settings/notifications (spec §2): which events mail me and which the app shows me (the header's
 * bell), in this organisation, and the daily digest (docs/settings-appearance-notifications.md).
 * One form; works without JavaScript.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  return data(await loadPreferences(api, responseHeaders), { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  switch (formData.get('intent')) {
    case 'save':
      return savePreferences(api, formData, responseHeaders)
    default:
      throw data('Unknown form.', { status: 400 })
  }
}

// The form hydrates after the rest of the screen (app/components/ui/deferred.tsx): the form library is not in the first load.
const loadForm = async () => (await import('~/components/settings/notification-preferences-form')).NotificationPreferencesForm
const NotificationPreferencesForm = deferred(loadForm, import.meta.env.SSR ? await loadForm() : undefined)
await partsBeforeNavigation(NotificationPreferencesForm)

export default function NotificationSettings({ loaderData, actionData }: Route.ComponentProps) {
  return <NotificationPreferencesForm preferences={loaderData.preferences} lastResult={actionData?.result} />
}

export function meta() {
  return [{ title: 'Notifications · Settings · Site Portal' }]
}
