import { data, useActionData } from 'react-router'
import { SessionsCard } from '~/components/settings/sessions-card'
import { Banner } from '~/components/ui/banner'
import { createServerApi } from '~/lib/api.server'
import { useLocale } from '~/root'
import type { Route } from './+types/user'
import { createOrganisation, loadOrganisations, switchOrganisation } from './organisations.server'
import {
  cancelMfa,
  changeEmail,
  changePassword,
  confirmMfa,
  loadUserSettings,
  removeMfa,
  saveProfile,
  signOutOthers,
  signOutSession,
  startMfa,
  unknownIntent,
  type UserActionData,
} from './user.server'
import { deferred, partsBeforeNavigation } from '~/components/ui/deferred'

// The forms hydrate after the rest of the screen (app/components/ui/deferred.tsx), so the form
// library is not in the screen's first load.
const loadAppearanceCard = async () => (await import('~/components/settings/appearance-card')).AppearanceCard
const AppearanceCard = deferred(loadAppearanceCard, import.meta.env.SSR ? await loadAppearanceCard() : undefined)
const loadEmailCard = async () => (await import('~/components/settings/email-card')).EmailCard
const EmailCard = deferred(loadEmailCard, import.meta.env.SSR ? await loadEmailCard() : undefined)
const loadMfaCard = async () => (await import('~/components/settings/mfa-card')).MfaCard
const MfaCard = deferred(loadMfaCard, import.meta.env.SSR ? await loadMfaCard() : undefined)
const loadOrganisationsCard = async () => (await import('~/components/settings/organisations-card')).OrganisationsCard
const OrganisationsCard = deferred(loadOrganisationsCard, import.meta.env.SSR ? await loadOrganisationsCard() : undefined)
const loadPasswordCard = async () => (await import('~/components/settings/password-card')).PasswordCard
const PasswordCard = deferred(loadPasswordCard, import.meta.env.SSR ? await loadPasswordCard() : undefined)
const loadProfileCard = async () => (await import('~/components/settings/profile-card')).ProfileCard
const ProfileCard = deferred(loadProfileCard, import.meta.env.SSR ? await loadProfileCard() : undefined)
await partsBeforeNavigation(AppearanceCard, EmailCard, MfaCard, OrganisationsCard, PasswordCard, ProfileCard)

/**
 * /settings and /settings/user (issue 14, docs/settings.md "User"): your details, e-mail address,
 * password, two-factor authentication, sessions and devices, appearance, and your organisations
 * (switch, create one: issue 16).
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const [settings, organisations] = await Promise.all([loadUserSettings(api, responseHeaders), loadOrganisations(api)])
  return data({ ...settings, ...organisations }, { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const back = new URL(request.url).pathname
  switch (String(formData.get('intent') ?? '')) {
    case 'profile':
      return saveProfile(api, formData, responseHeaders, back)
    case 'email':
      return changeEmail(api, formData, responseHeaders, back)
    case 'password':
      return changePassword(api, formData, responseHeaders, back)
    case 'mfa-start':
      return startMfa(api, responseHeaders)
    case 'mfa-confirm':
      return confirmMfa(api, formData, responseHeaders, back)
    case 'mfa-cancel':
      return cancelMfa(api, responseHeaders, back)
    case 'mfa-remove':
      return removeMfa(api, formData, responseHeaders, back)
    case 'sessions-revoke-others':
      return signOutOthers(api, responseHeaders, back)
    case 'session-revoke':
      return signOutSession(api, formData, responseHeaders, back)
    case 'organisation-create':
      return createOrganisation(api, formData, responseHeaders, back)
    case 'organisation-switch':
      return switchOrganisation(api, formData, responseHeaders)
    default:
      return unknownIntent()
  }
}

export default function UserSettings({ loaderData }: Route.ComponentProps) {
  const { user, sessions, sessionsFailed, organisations, organisationsFailed, organisationKey } = loaderData
  const actionData = useActionData<typeof action>() as UserActionData | undefined
  const locale = useLocale()
  const resultOf = (intent: string) => (actionData?.intent === intent ? actionData.result : undefined)
  return (
    <div className="flex flex-col gap-6">
      {actionData?.notice ? (
        <Banner tone="critical" title="That did not work" correlationId={actionData.notice.correlationId}>
          {actionData.notice.message}
        </Banner>
      ) : null}
      <div className="grid gap-6 lg:grid-cols-2">
        <ProfileCard user={user} lastResult={resultOf('profile')} />
        <EmailCard user={user} lastResult={resultOf('email')} />
        <PasswordCard lastResult={resultOf('password')} />
        <MfaCard mfa={user.mfa} enrollment={actionData?.enrollment} confirmResult={resultOf('mfa-confirm')} removeResult={resultOf('mfa-remove')} />
        <SessionsCard sessions={sessions} failed={sessionsFailed} locale={locale} />
        <AppearanceCard />
        <OrganisationsCard organisations={organisations} failed={organisationsFailed} lastResult={resultOf('organisation-create')} idempotencyKey={organisationKey} />
      </div>
    </div>
  )
}

export function meta() {
  return [{ title: 'User settings · Site Portal' }]
}
