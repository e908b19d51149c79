import { data } from 'react-router'
import { ConfigStatusList } from '~/components/admin/config-status-list'
import { PageHeader } from '~/components/ui/page-header'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { createServerApi } from '~/lib/api.server'
import { useLocale } from '~/root'
import type { Route } from './+types/configuration'
import { loadConfigurationPage } from './configuration.server'

/**
 * Administration › Configuration (docs/admin/configuration-screens.md): the organisation's
 * configuration categories with their status (configured, last change, last test), each leading
 * to its own page.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const page = await loadConfigurationPage(api, responseHeaders)
  return data(page, { headers: responseHeaders })
}

export default function Configuration({ loaderData }: Route.ComponentProps) {
  const locale = useLocale()
  useLiveRevalidation((change) => change.entityType === 'AdminConfig')
  return (
    <>
      <PageHeader
        title="Configuration"
        description="How this organisation’s portal works: its name and address, sign-in rules, mail, storage and more. Each category is saved, tested and versioned on its own."
      />
      <ConfigStatusList categories={loaderData.categories} descriptions={loaderData.descriptions} locale={locale} />
    </>
  )
}

export function meta() {
  return [{ title: 'Configuration · Site Portal' }]
}
