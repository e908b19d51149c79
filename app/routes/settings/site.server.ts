import type { SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import { conflictRevision } from '~/components/reporting/report-action'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, formMessageFor, replyWithApiError } from '~/lib/forms'
import { revisionFromForm } from '~/lib/schemas/edit-conflict'
import { SiteSchema } from '~/lib/schemas/settings'

/** /settings/site (issue 14, docs/settings.md "Site"): what it loads and its forms (administrators). */

export type SiteActionData = {
  intent: string
  result?: SubmissionResult<string[]>
  /** The logo form's error (it has one field). */
  logoError?: string
  notice?: { message: string; correlationId: string | null }
  /** After a stale save (409 KR_EDIT_CONFLICT): the settings' revision now, for the kept form's next save. */
  revision?: number | undefined
}

export async function loadSite(api: ApiClient, headers: Headers) {
  const site = await api.GET('/api/settings/site')
  if (!site.ok) throw loadError(site.error, headers)
  return site.data
}

export async function saveSite(api: ApiClient, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: SiteSchema })
  if (submission.status !== 'success') return data<SiteActionData>({ intent: 'site', result: submission.reply() }, { status: 400 })
  // Saved against the settings as the page showed them: a save by another administrator since is a conflict, the typed values kept.
  const result = await api.PATCH('/api/settings/site', { body: { ...submission.value, expectedRevision: revisionFromForm(formData.get('expectedRevision')) } })
  if (!result.ok) {
    const reply = { intent: 'site', result: replyWithApiError(submission, result.error), revision: conflictRevision(result.error) }
    return data<SiteActionData>(reply, { status: failureStatus(result.error), headers })
  }
  await setFlash(headers, { tone: 'success', message: 'The site settings are saved.' })
  throw redirect('/settings/site', { headers })
}

export async function uploadLogo(api: ApiClient, formData: FormData, headers: Headers) {
  const file = formData.get('logo')
  if (!(file instanceof File) || file.size === 0) return data<SiteActionData>({ intent: 'logo', logoError: 'Choose an image file.' }, { status: 400 })
  const body = new FormData()
  body.append('logo', file, file.name || 'logo')
  const result = await api.POST('/api/settings/site/logo', { body })
  if (!result.ok) {
    const message = result.error.problem?.errors?.logo?.[0] ?? formMessageFor(result.error)
    return data<SiteActionData>({ intent: 'logo', logoError: message }, { status: failureStatus(result.error), headers })
  }
  await setFlash(headers, { tone: 'success', message: 'The logo is saved.' })
  throw redirect('/settings/site', { headers })
}

export async function deleteLogo(api: ApiClient, headers: Headers) {
  const result = await api.DELETE('/api/settings/site/logo')
  if (!result.ok) {
    return data<SiteActionData>(
      { intent: 'logo-remove', notice: { message: formMessageFor(result.error), correlationId: result.error.correlationId ?? null } },
      { status: failureStatus(result.error), headers },
    )
  }
  await setFlash(headers, { tone: 'success', message: 'The logo is removed.' })
  throw redirect('/settings/site', { headers })
}

export function unknownIntent() {
  return data<SiteActionData>({ intent: 'unknown', notice: { message: 'That form is not known here. Reload the page and try again.', correlationId: null } }, { status: 400 })
}

/** The time zones a browser knows (IANA), UTC included, for the select. */
export function timeZones(): string[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []
  return zones.includes('UTC') ? zones : ['UTC', ...zones]
}
