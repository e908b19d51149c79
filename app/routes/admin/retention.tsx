import { revalidateAfterConflict } from '~/lib/revalidate-after-conflict'
import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data, Form, redirect, useActionData } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import { firstInvalidField, formFailure, invalidForm, type ReportingActionData, revisionFor } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { CheckboxField } from '~/components/ui/checkbox-field'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { SubmitButton } from '~/components/ui/submit-button'
import { createServerApi } from '~/lib/api.server'
import { setFlash } from '~/lib/flash.server'
import { revisionFromForm } from '~/lib/schemas/edit-conflict'
import { formatDateTime, formatNumber } from '~/lib/format'
import { ARCHIVE_AFTER_DAYS_MAX, PURGE_AFTER_DAYS_MAX, RetentionFormSchema } from '~/lib/schemas/admin-retention'
import { useLocale } from '~/root'
import type { Route } from './+types/retention'
import { RevisionInput } from '~/components/ui/revision-input'

/**
 * Administration › Retention (docs/admin/shell-and-retention.md "Retention"): the organisation's
 * policy (archive closed items after N days, purge after M) and its health. The form works without
 * JavaScript and keeps what was typed when it is refused.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const [policy, health] = await Promise.all([api.GET('/api/admin/retention'), api.GET('/api/admin/retention/health')])
  if (!policy.ok) throw loadError(policy.error, responseHeaders)
  if (!health.ok) throw loadError(health.error, responseHeaders)
  return data({ policy: policy.data, health: health.data }, { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const submission = parseWithZod(formData, { schema: RetentionFormSchema })
  if (submission.status !== 'success') return invalidForm('save', submission)
  const { enabled, archiveAfterDays, purgeAfterDays } = submission.value
  // Saved against the policy as the page showed it: a save by someone else since is a conflict, the typed values kept.
  const expectedRevision = revisionFromForm(formData.get('expectedRevision'))
  const result = await api.PUT('/api/admin/retention', { body: { enabled: enabled ?? false, archiveAfterDays, purgeAfterDays, expectedRevision } })
  if (!result.ok) return formFailure('save', submission, result.error, responseHeaders)
  await setFlash(responseHeaders, {
    tone: 'success',
    message: result.data.enabled
      ? `Retention policy saved: closed items are archived after ${result.data.archiveAfterDays} days and purged after ${result.data.purgeAfterDays}.`
      : 'Retention policy saved. It is switched off: nothing is archived or purged.',
  })
  throw redirect('/admin/retention', { headers: responseHeaders })
}

export default function Retention({ loaderData }: Route.ComponentProps) {
  const { policy, health } = loaderData
  const actionData = useActionData<typeof action>() as ReportingActionData | undefined
  const locale = useLocale()
  const lastResult = actionData?.intent === 'save' ? actionData.result : undefined
  const [form, fields] = useForm({
    id: 'retention-policy',
    lastResult,
    defaultValue: { enabled: policy.enabled ? 'on' : undefined, archiveAfterDays: String(policy.archiveAfterDays), purgeAfterDays: String(policy.purgeAfterDays) },
    defaultNoValidate: false,
    constraint: getZodConstraint(RetentionFormSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: RetentionFormSchema }),
  })
  const focus = firstInvalidField(lastResult, ['archiveAfterDays', 'purgeAfterDays'])
  const n = (value: number) => formatNumber(value, locale)
  const figures: Array<{ label: string; value: string }> = [
    { label: 'Active items', value: n(health.activeCount) },
    { label: 'Archived items', value: n(health.archivedCount) },
    { label: 'Purged so far', value: n(health.purgedCount) },
    { label: 'Due now', value: n(health.dueCount) },
    { label: 'Next due', value: health.nextDueAtUtc ? formatDateTime(health.nextDueAtUtc, locale) : 'Nothing waiting' },
  ]
  return (
    <>
      <PageHeader
        title="Retention"
        description="How long closed items are kept. A daily job archives them after the first period and deletes them, with their photos and thread, after the second."
      />
      {actionData?.notice ? (
        <Banner tone="critical" title="That did not work" correlationId={actionData.notice.correlationId} className="mb-6">
          {actionData.notice.message}
        </Banner>
      ) : null}
      <div className="flex flex-col gap-10">
        <Section
          title="Health"
          description={
            policy.lastRunAtUtc ? `The job last worked through this organisation ${formatDateTime(policy.lastRunAtUtc, locale)}.` : 'The job has not run for this organisation yet.'
          }
        >
          <dl className="grid grid-cols-2 gap-4 sm:grid-cols-3 lg:grid-cols-5">
            {figures.map((figure) => (
              <div key={figure.label} className="rounded-lg border border-border bg-surface p-4">
                <dt className="text-sm text-muted">{figure.label}</dt>
                <dd className="mt-1 text-xl font-semibold text-text">{figure.value}</dd>
              </div>
            ))}
          </dl>
        </Section>
        <Section title="Policy" description="Purging cannot be undone. Archived reports with no item left are purged too, after the second period.">
          <Form method="post" {...getFormProps(form)} className="flex max-w-xl flex-col gap-4">
            <CsrfInput />
            <RevisionInput revision={revisionFor(actionData, 'save', undefined, policy.revision)} />
            <FormError id={form.errorId} errors={form.errors} />
            <CheckboxField
              label="Apply this policy"
              help="While it is off, nothing is archived or purged."
              inputProps={getInputProps(fields.enabled, { type: 'checkbox' })}
              errors={fields.enabled.errors}
            />
            <Field
              label="Archive closed items after (days)"
              help={`Counted from the day an item was closed. 1 to ${n(ARCHIVE_AFTER_DAYS_MAX)}.`}
              inputProps={{ ...getInputProps(fields.archiveAfterDays, { type: 'number' }), inputMode: 'numeric', autoFocus: focus === 'archiveAfterDays' }}
              errors={fields.archiveAfterDays.errors}
            />
            <Field
              label="Purge archived items after (days)"
              help={`Also counted from closing; more than the archive period, at most ${n(PURGE_AFTER_DAYS_MAX)}.`}
              inputProps={{ ...getInputProps(fields.purgeAfterDays, { type: 'number' }), inputMode: 'numeric', autoFocus: focus === 'purgeAfterDays' }}
              errors={fields.purgeAfterDays.errors}
            />
            <SubmitButton intent="save" pendingLabel="Saving…" className="self-start">
              Save policy
            </SubmitButton>
          </Form>
        </Section>
      </div>
    </>
  )
}

export function meta() {
  return [{ title: 'Retention · Site Portal' }]
}

/** After a save refused as stale the screen reads its data again (app/lib/revalidate-after-conflict.ts). */
export const shouldRevalidate = revalidateAfterConflict
