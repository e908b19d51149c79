import { data, Link, useActionData } from 'react-router'
import { ConfigForm } from '~/components/admin/config-form'
import { ConfigHistory } from '~/components/admin/config-history'
import { Badge } from '~/components/ui/badge'
import { Banner } from '~/components/ui/banner'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { createServerApi } from '~/lib/api.server'
import { formatDateTime } from '~/lib/format'
import { useLocale, useShellSession } from '~/root'
import type { Route } from './+types/configuration-category'
import { loadCategoryPage, restoreVersion, saveCategory, testCategory, type ConfigActionData } from './configuration-category.server'

/**
 * Administration › Configuration › one category (docs/admin/configuration-screens.md): the
 * category's settings as a form drawn on the server from its JSON Schema, its tests, and its
 * history with restore. Everything works without JavaScript.
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const page = await loadCategoryPage(api, params.category, responseHeaders)
  return data(page, { headers: responseHeaders })
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const intent = String(formData.get('intent') ?? '')
  if (intent === 'save') return saveCategory(api, params.category, formData, responseHeaders)
  if (intent === 'restore') return restoreVersion(api, params.category, formData, responseHeaders)
  if (intent.startsWith('test:')) return testCategory(api, params.category, intent.slice('test:'.length), formData, responseHeaders)
  throw data('Unknown intent', { status: 400 })
}

export default function ConfigurationCategory({ loaderData }: Route.ComponentProps) {
  const { category, current, versions } = loaderData
  const actionData = useActionData<typeof action>() as ConfigActionData | undefined
  const locale = useLocale()
  const adminEmail = useShellSession()?.email ?? ''
  const formState = actionData && actionData.intent !== 'restore' ? actionData : undefined
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-2 text-sm">
        <Link to="/admin/configuration">Configuration</Link>
      </nav>
      <PageHeader title={category.title} description={category.description} />
      {actionData?.notice ? (
        <Banner tone="critical" title="That did not work" correlationId={actionData.notice.correlationId} className="mb-6">
          {actionData.notice.message}
        </Banner>
      ) : null}
      <div className="flex flex-col gap-10">
        <Section title="Settings" description={savedLine(current, locale)}>
          {/* Drawn afresh from each answer, so the page shows what the server kept, with or without JavaScript. */}
          <ConfigForm
            key={formState?.submissionId ?? `version-${current.version}`}
            category={category}
            current={current}
            state={formState}
            adminEmail={adminEmail}
            locale={locale}
          />
        </Section>
        <Section title="History" description="Every save is a version. Restoring one saves its values again as the newest version.">
          <ConfigHistory versions={versions} currentVersion={current.version} schema={category.schema} locale={locale} />
        </Section>
      </div>
    </>
  )
}

function savedLine(current: Route.ComponentProps['loaderData']['current'], locale: string) {
  if (!current.configured || current.updatedAtUtc === null) {
    return (
      <>
        <Badge>Not configured</Badge> Never saved: the form shows the defaults.
      </>
    )
  }
  return (
    <>
      <Badge tone="success">Configured</Badge> Version {current.version}, saved {formatDateTime(current.updatedAtUtc, locale)}
      {current.updatedBy ? ` by ${current.updatedBy.displayName}` : ''}.
    </>
  )
}

export function meta({ loaderData }: Route.MetaArgs) {
  return [{ title: `${loaderData?.category.title ?? 'Configuration'} · Configuration · Site Portal` }]
}
