import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import { formFailure, invalidForm, noticeFailure, noticeOf, type ReportingActionData } from '~/components/reporting/report-action'
import { EMAIL_TEMPLATE_FORM, isEmailTemplateKey, type EmailTemplateDetail, type EmailTemplateKey, type EmailTemplatePreview, type EmailTemplateTestResult } from '~/lib/admin/email-templates'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { MESSAGES } from '~/lib/api/messages'
import { EmailTemplateFormSchema } from '~/lib/schemas/admin-email-templates'

/** /admin/email-templates/{key}: what it loads and its actions (docs/admin/email-templates.md). */

const EDIT_FORM = EMAIL_TEMPLATE_FORM

export type EmailTemplateActionData = ReportingActionData & {
  preview?: EmailTemplatePreview | undefined
  sent?: EmailTemplateTestResult | undefined
}

/** The template a URL names: one of the registry's keys, or the 404 screen (the API answers any other key 404 too). */
export function templateKey(key: string, headers: Headers): EmailTemplateKey {
  if (!isEmailTemplateKey(key)) throw data(null, { status: 404, statusText: MESSAGES.notFound, headers })
  return key
}

export async function loadTemplate(api: ApiClient, key: EmailTemplateKey, headers: Headers): Promise<EmailTemplateDetail> {
  const result = await api.GET('/api/admin/email-templates/{key}', { path: { key } })
  if (!result.ok) throw loadError(result.error, headers)
  return result.data
}

function parse(formData: FormData) {
  return parseWithZod(formData, { schema: EmailTemplateFormSchema })
}

export async function saveTemplate(api: ApiClient, key: EmailTemplateKey, formData: FormData, headers: Headers) {
  const submission = parse(formData)
  if (submission.status !== 'success') return invalidForm(EDIT_FORM, submission)
  const { subject, html, text, version } = submission.value
  const result = await api.PUT('/api/admin/email-templates/{key}', { path: { key }, body: { subject, html, text, version } })
  if (!result.ok) {
    // Saved by someone else meanwhile: what was typed stays in the form, the banner says what happened.
    if (result.error.status === 409)
      return data<EmailTemplateActionData>({ intent: EDIT_FORM, result: submission.reply(), notice: noticeOf(result.error) }, { status: 409, headers })
    return formFailure(EDIT_FORM, submission, result.error, headers)
  }
  await setFlash(headers, { tone: 'success', message: `“${result.data.title}” saved. Mail sent from now on uses it.` })
  throw redirect(`/admin/email-templates/${encodeURIComponent(key)}`, { headers })
}

export async function previewTemplate(api: ApiClient, key: EmailTemplateKey, formData: FormData, headers: Headers) {
  const submission = parse(formData)
  if (submission.status !== 'success') return invalidForm(EDIT_FORM, submission)
  const { subject, html, text } = submission.value
  const result = await api.POST('/api/admin/email-templates/{key}/preview', { path: { key }, body: { subject, html, text } })
  if (!result.ok) return formFailure(EDIT_FORM, submission, result.error, headers)
  return data<EmailTemplateActionData>({ intent: EDIT_FORM, result: submission.reply(), preview: result.data }, { headers })
}

export async function sendTest(api: ApiClient, key: EmailTemplateKey, formData: FormData, headers: Headers) {
  const submission = parse(formData)
  if (submission.status !== 'success') return invalidForm(EDIT_FORM, submission)
  const { subject, html, text, to } = submission.value
  if (!to)
    return data<EmailTemplateActionData>(
      { intent: EDIT_FORM, result: submission.reply({ fieldErrors: { to: ['Enter the e-mail address to send the test to.'] } }) },
      { status: 400, headers },
    )
  const result = await api.POST('/api/admin/email-templates/{key}/test', { path: { key }, body: { to, subject, html, text } })
  if (!result.ok) {
    if (result.error.status === 429)
      return data<EmailTemplateActionData>({ intent: EDIT_FORM, result: submission.reply(), notice: noticeOf(result.error) }, { status: 429, headers })
    return formFailure(EDIT_FORM, submission, result.error, headers)
  }
  return data<EmailTemplateActionData>({ intent: EDIT_FORM, result: submission.reply(), sent: result.data }, { headers })
}

export async function resetTemplate(api: ApiClient, key: EmailTemplateKey, headers: Headers) {
  const result = await api.DELETE('/api/admin/email-templates/{key}', { path: { key } })
  if (!result.ok) return noticeFailure('reset', result.error, headers)
  await setFlash(headers, { tone: 'success', message: `“${result.data.title}” is back to the default.` })
  throw redirect(`/admin/email-templates/${encodeURIComponent(key)}`, { headers })
}
