import { revalidateAfterConflict } from '~/lib/revalidate-after-conflict'
import type { SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import { AdminSettingsForm } from '~/components/settings/admin-settings-form'
import { createServerApi } from '~/lib/api.server'
import { seatStandingWords } from '~/lib/licensing/seats'
import { setFlash } from '~/lib/flash.server'
import { conflictRevision } from '~/components/reporting/report-action'
import { failureStatus, replyWithApiError } from '~/lib/forms'
import { revisionFromForm } from '~/lib/schemas/edit-conflict'
import { AdminSettingsFormSchema } from '~/lib/schemas/settings'
import { useLocale } from '~/root'
import type { Route } from './+types/admin'

/**
 * /settings/admin (issue 14, docs/settings.md "Admin"): organisation-wide defaults, the licensing
 * and diagnostics switches. Administrators only: the root loader's admin guard sends anyone else
 * to the forbidden page, and the backend refuses them too (403).
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const [settings, entitlements] = await Promise.all([api.GET('/api/settings/admin'), api.GET('/api/entitlements/me')])
  if (!settings.ok) throw loadError(settings.error, responseHeaders)
  if (!entitlements.ok) throw loadError(entitlements.error, responseHeaders)
  return data({ settings: settings.data, entitlements: entitlements.data }, { headers: responseHeaders })
}

/** The form's reply; after a stale save (409 KR_EDIT_CONFLICT) also the switches' revision now, for the next save. */
type AdminActionData = { result: SubmissionResult<string[]> | undefined; revision?: number | undefined }

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  if (formData.get('intent') !== 'admin') return data<AdminActionData>({ result: undefined }, { status: 400 })
  const submission = parseWithZod(formData, { schema: AdminSettingsFormSchema })
  if (submission.status !== 'success') return data<AdminActionData>({ result: submission.reply() }, { status: 400 })
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  // Saved against the switches as the page showed them: a change by someone else since is a conflict, the ticks kept.
  const result = await api.PATCH('/api/settings/admin', { body: { ...submission.value, expectedRevision: revisionFromForm(formData.get('expectedRevision')) } })
  if (!result.ok) {
    const reply = { result: replyWithApiError(submission, result.error), revision: conflictRevision(result.error) }
    return data<AdminActionData>(reply, { status: failureStatus(result.error), headers: responseHeaders })
  }
  await setFlash(responseHeaders, { tone: 'success', message: 'The organisation defaults are saved.' })
  throw redirect('/settings/admin', { headers: responseHeaders })
}

export default function AdminSettingsPage({ loaderData, actionData }: Route.ComponentProps) {
  const locale = useLocale()
  const me = loaderData.entitlements
  const seatWords = seatStandingWords({ ...me.seats, plan: me.plan, planName: me.planName, lapsed: me.lapsed }, locale)
  return (
    <div className="flex flex-col gap-4">
      <p className="text-sm text-muted">Defaults for the whole organisation. Only administrators see this tab.</p>
      <AdminSettingsForm
        settings={loaderData.settings}
        revision={actionData?.revision ?? loaderData.settings.revision}
        lastResult={actionData?.result}
        seatSummary={`${seatWords.detail} ${seatWords.limit}`} />
    </div>
  )
}

export function meta() {
  return [{ title: 'Admin settings · Site Portal' }]
}

/** After a save refused as stale the screen reads its data again (app/lib/revalidate-after-conflict.ts). */
export const shouldRevalidate = revalidateAfterConflict
