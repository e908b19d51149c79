import { data } from 'react-router'
import { createServerApi } from '~/lib/api.server'
import type { Route } from './+types/appearance'
import { resetAppearance, saveAppearance } from './appearance.server'
import { deferred, partsBeforeNavigation } from '~/components/ui/deferred'

// The forms hydrate after the rest of the screen (app/components/ui/deferred.tsx), so the form
// library is not in the screen's first load.
const loadAppearanceCard = async () => (await import('~/components/settings/appearance-card')).AppearanceCard
const AppearanceCard = deferred(loadAppearanceCard, import.meta.env.SSR ? await loadAppearanceCard() : undefined)
await partsBeforeNavigation(AppearanceCard)

/**
 * /settings/appearance: the appearance form's action (docs/settings-appearance-notifications.md).
 * The form sits on the user tab; this page shows it alone, which is also where a refused
 * submission lands with its errors and what was picked.
 */
export function loader() {
  return null
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  switch (formData.get('intent')) {
    case 'save':
      return saveAppearance(api, formData, request, responseHeaders)
    case 'reset':
      return resetAppearance(api, request, responseHeaders)
    default:
      throw data('Unknown form.', { status: 400 })
  }
}

export default function AppearanceSettings({ actionData }: Route.ComponentProps) {
  return (
    <div className="max-w-3xl">
      <AppearanceCard lastResult={actionData?.result} />
    </div>
  )
}

export function meta() {
  return [{ title: 'Appearance · Settings · Site Portal' }]
}
