import { getFormProps, getInputProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { Card } from '~/components/ui/card'
import { CheckboxField } from '~/components/ui/checkbox-field'
import { CsrfInput } from '~/components/ui/csrf-input'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { AdminSettingsFormSchema } from '~/lib/schemas/settings'
import type { AdminSettings } from '~/lib/settings/settings'
import { RevisionInput } from '~/components/ui/revision-input'

/** The organisation-wide switches of /settings/admin: licensing and diagnostics. */
export function AdminSettingsForm({
  settings,
  revision,
  lastResult,
  seatSummary,
}: {
  settings: AdminSettings
  /** The revision this form saves against (expectedRevision): the loaded one, or the current one after a conflict. */
  revision: number
  lastResult: SubmissionResult<string[]> | undefined
  /** The seats as licensing answers them, in the same words as the control panel and Entitlements. */
  seatSummary?: string
}) {
  const [form, fields] = useForm({
    id: 'admin-settings',
    lastResult,
    defaultValue: {
      licensing: { enforceSeatLimit: on(settings.licensing.enforceSeatLimit), warnNearSeatLimit: on(settings.licensing.warnNearSeatLimit) },
      diagnostics: {
        collectFrontendErrors: on(settings.diagnostics.collectFrontendErrors),
        collectUsageTelemetry: on(settings.diagnostics.collectUsageTelemetry),
        identifyUsersInReports: on(settings.diagnostics.identifyUsersInReports),
      },
    },
    constraint: getZodConstraint(AdminSettingsFormSchema),
    onValidate: ({ formData }) => parseWithZod(formData, { schema: AdminSettingsFormSchema }),
  })
  const licensing = fields.licensing.getFieldset()
  const diagnostics = fields.diagnostics.getFieldset()
  const box = (field: typeof licensing.enforceSeatLimit) => getInputProps(field, { type: 'checkbox' })
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-6">
      <CsrfInput />
      <RevisionInput revision={revision} />
      <FormError id={form.errorId} errors={form.errors} />
      <Card className="p-5" role="region" aria-label="Licensing">
        <fieldset className="flex flex-col gap-4">
          <legend className="mb-2 text-lg font-semibold">Licensing</legend>
          {seatSummary ? <p className="text-sm text-text">Now: {seatSummary}</p> : null}
          <CheckboxField
            label="Refuse invitations when every seat is taken"
            help="Off: invitations and activations beyond the seats go through with a warning."
            inputProps={box(licensing.enforceSeatLimit)}
            errors={licensing.enforceSeatLimit.errors}
          />
          <CheckboxField
            label="E-mail administrators when nine in ten seats are taken"
            help="A heads-up before invitations start to be refused."
            inputProps={box(licensing.warnNearSeatLimit)}
            errors={licensing.warnNearSeatLimit.errors}
          />
        </fieldset>
      </Card>
      <Card className="p-5" role="region" aria-label="Diagnostics">
        <fieldset className="flex flex-col gap-4">
          <legend className="mb-2 text-lg font-semibold">Diagnostics</legend>
          <CheckboxField
            label="Collect errors from people’s browsers"
            help="Errors that happen on a page are sent to Administration › Frontend errors, so you can see what went wrong."
            inputProps={box(diagnostics.collectFrontendErrors)}
            errors={diagnostics.collectFrontendErrors.errors}
          />
          <CheckboxField
            label="Collect usage telemetry"
            help="Which screens and steps people use, to find what slows them down. Sent only when the telemetry configuration is on too."
            inputProps={box(diagnostics.collectUsageTelemetry)}
            errors={diagnostics.collectUsageTelemetry.errors}
          />
          <CheckboxField
            label="Name the person in error reports"
            help="Off: error reports are anonymous."
            inputProps={box(diagnostics.identifyUsersInReports)}
            errors={diagnostics.identifyUsersInReports.errors}
          />
        </fieldset>
      </Card>
      <SubmitButton intent="admin" pendingLabel="Saving…" className="self-start">
        Save organisation defaults
      </SubmitButton>
    </Form>
  )
}

function on(value: boolean): string | undefined {
  return value ? 'on' : undefined
}
