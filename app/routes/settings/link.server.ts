import type { SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { renderSVG } from 'uqr'
import { loadError } from '~/components/reporting/item-action'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { failureStatus, formMessageFor, replyWithApiError } from '~/lib/forms'
import { LinkStartFormSchema, VerifyFormSchema } from '~/lib/schemas/store'
import { STORE_NAMES, STORE_STATE_LABELS, type LinkCode } from '~/lib/store/types'

/** /settings/link (issue 16, docs/store-subscriptions.md): what it loads and its two forms. */

export type LinkActionData = {
  intent: 'start' | 'verify' | 'unknown'
  result?: SubmissionResult<string[]>
  /** The new code with its link drawn as a QR code, shown once: only its HMAC is stored. */
  code?: LinkCode & { qrSvg: string }
  notice?: { message: string; correlationId: string | null }
}

/** The overview for administrators; anyone else gets `forbidden` and a plain message, not an error screen. */
export async function loadLinkPage(api: ApiClient, request: Request, headers: Headers) {
  const overview = await api.GET('/api/iap/subscriptions')
  if (!overview.ok && overview.error.status !== 403) throw loadError(overview.error, headers)
  // The code's link opened in a browser instead of the app (not installed, or a desktop).
  const openedLink = new URL(request.url).searchParams.has('code')
  return { overview: overview.ok ? overview.data : null, requestKey: crypto.randomUUID(), openedLink }
}

export async function startLinkCode(api: ApiClient, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: LinkStartFormSchema })
  if (submission.status !== 'success') return data<LinkActionData>({ intent: 'start', result: submission.reply() }, { status: 400 })
  const started = await api.POST('/api/iap/link/start', { idempotencyKey: submission.value.requestKey })
  if (!started.ok) return data<LinkActionData>({ intent: 'start', result: replyWithApiError(submission, started.error) }, { status: failureStatus(started.error), headers })
  // Answered, not redirected: the code is shown this once. Sending the form again replays it.
  return data<LinkActionData>({ intent: 'start', code: { ...started.data, qrSvg: renderSVG(started.data.link, { border: 4 }) } }, { headers })
}

export async function checkSubscription(api: ApiClient, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: VerifyFormSchema })
  if (submission.status !== 'success') return data<LinkActionData>({ intent: 'verify', notice: { message: 'Choose a linked subscription.', correlationId: null } }, { status: 400 })
  const checked = await api.POST('/api/iap/verify', { body: submission.value })
  if (!checked.ok) {
    const notice = { message: formMessageFor(checked.error), correlationId: checked.error.correlationId ?? null }
    return data<LinkActionData>({ intent: 'verify', notice }, { status: failureStatus(checked.error), headers })
  }
  const { subscription, licenceApplied } = checked.data
  const licence = licenceApplied ? ' The organisation’s licence is updated.' : ''
  await setFlash(headers, { tone: 'success', message: `Checked with ${STORE_NAMES[subscription.store]}: ${STORE_STATE_LABELS[subscription.state]}.${licence}` })
  throw redirect('/settings/link', { headers })
}

export function unknownLinkIntent() {
  return data<LinkActionData>({ intent: 'unknown', notice: { message: 'That form is not known here. Reload the page and try again.', correlationId: null } }, { status: 400 })
}
