import { revalidateAfterConflict } from '~/lib/revalidate-after-conflict'
import { data, useActionData } from 'react-router'
import { LogoCard } from '~/components/settings/logo-card'
import { SiteView } from '~/components/settings/site-view'
import { Banner } from '~/components/ui/banner'
import { createServerApi } from '~/lib/api.server'
import type { Route } from './+types/site'
import { deleteLogo, loadSite, saveSite, type SiteActionData, timeZones, unknownIntent, uploadLogo } from './site.server'
import { deferred, partsBeforeNavigation } from '~/components/ui/deferred'

// The forms hydrate after the rest of the screen (app/components/ui/deferred.tsx), so the form
// library is not in the screen's first load.
const loadSiteForm = async () => (await import('~/components/settings/site-form')).SiteForm
const SiteForm = deferred(loadSiteForm, import.meta.env.SSR ? await loadSiteForm() : undefined)
await partsBeforeNavigation(SiteForm)

/**
 * /settings/site (issue 14, docs/settings.md "Site"): the organisation's name, short name, logo,
 * language, time zone and working days. Administrators change them; everyone else reads them.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const site = await loadSite(api, responseHeaders)
  return data({ site, timeZones: site.canEdit ? timeZones() : [] }, { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  switch (String(formData.get('intent') ?? '')) {
    case 'site':
      return saveSite(api, formData, responseHeaders)
    case 'logo':
      return uploadLogo(api, formData, responseHeaders)
    case 'logo-remove':
      return deleteLogo(api, responseHeaders)
    default:
      return unknownIntent()
  }
}

export default function SiteSettings({ loaderData }: Route.ComponentProps) {
  const { site, timeZones } = loaderData
  const actionData = useActionData<typeof action>() as SiteActionData | undefined
  return (
    <div className="flex flex-col gap-6">
      {actionData?.notice ? (
        <Banner tone="critical" title="That did not work" correlationId={actionData.notice.correlationId}>
          {actionData.notice.message}
        </Banner>
      ) : null}
      {site.canEdit ? (
        <div className="grid gap-6 lg:grid-cols-[2fr_1fr]">
          <SiteForm
            site={site}
            revision={(actionData?.intent === 'site' ? actionData.revision : undefined) ?? site.revision}
            timeZones={timeZones}
            lastResult={actionData?.intent === 'site' ? actionData.result : undefined}
          />
          <LogoCard site={site} error={actionData?.intent === 'logo' ? actionData.logoError : undefined} />
        </div>
      ) : (
        <SiteView site={site} />
      )}
    </div>
  )
}

export function meta() {
  return [{ title: 'Site settings · Site Portal' }]
}

/** After a save refused as stale the screen reads its data again (app/lib/revalidate-after-conflict.ts). */
export const shouldRevalidate = revalidateAfterConflict
