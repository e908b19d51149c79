import { getFormProps, getInputProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { Card } from '~/components/ui/card'
import { CheckboxField } from '~/components/ui/checkbox-field'
import { CsrfInput } from '~/components/ui/csrf-input'
import { ErrorList } from '~/components/ui/error-list'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { IN_APP_FIELDS, NotificationPreferencesFormSchema } from '~/lib/schemas/notification-preferences'
import { IN_APP_EVENTS, IN_APP_LABELS, NOTIFICATION_EVENTS, NOTIFICATION_LABELS, type NotificationPreferences } from '~/lib/settings/notifications'

const DIGEST_OPTIONS = [
  { value: 'daily', label: 'Daily', help: 'Once a day, a list of the open items assigned to you, overdue first. Nothing is sent on a day you have none.' },
  { value: 'off', label: 'Off', help: '' },
] as const

/** The one form of /settings/notifications (app/routes/settings/notifications.tsx): its own chunk, so the form library is not in the screen's first load. */
export function NotificationPreferencesForm({ preferences, lastResult }: { preferences: NotificationPreferences; lastResult: SubmissionResult<string[]> | null | undefined }) {
  const [form, fields] = useForm({
    id: 'notification-preferences',
    lastResult,
    defaultValue: {
      ...Object.fromEntries(NOTIFICATION_EVENTS.map((event) => [event, preferences[event] ? 'on' : undefined])),
      ...Object.fromEntries(IN_APP_EVENTS.map((event) => [IN_APP_FIELDS[event], preferences.inApp[event] ? 'on' : undefined])),
      digest: preferences.digest,
    },
    defaultNoValidate: false,
    constraint: getZodConstraint(NotificationPreferencesFormSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: NotificationPreferencesFormSchema }),
  })
  return (
    <Card className="max-w-2xl p-5">
      <h2 className="mb-1 text-lg font-semibold">Notifications</h2>
      <p className="mb-4 text-sm text-muted">
        Which events send you an email, and which show under the bell at the top of every page, in this organisation. Tick both for both. You are never told about
        what you did yourself.
      </p>
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-5">
        <CsrfInput />
        <FormError id={form.errorId} errors={form.errors} />
        <fieldset className="flex flex-col gap-4">
          <legend className="mb-2 text-sm font-medium text-text">Email me when</legend>
          {NOTIFICATION_EVENTS.map((event) => (
            <CheckboxField
              key={event}
              label={NOTIFICATION_LABELS[event].label}
              help={NOTIFICATION_LABELS[event].help}
              inputProps={getInputProps(fields[event], { type: 'checkbox' })}
              errors={fields[event].errors}
            />
          ))}
        </fieldset>
        <fieldset className="flex flex-col gap-4">
          <legend className="mb-2 text-sm font-medium text-text">Show in the app when</legend>
          {IN_APP_EVENTS.map((event) => (
            <CheckboxField
              key={event}
              label={IN_APP_LABELS[event].label}
              help={IN_APP_LABELS[event].help}
              inputProps={getInputProps(fields[IN_APP_FIELDS[event]], { type: 'checkbox' })}
              errors={fields[IN_APP_FIELDS[event]].errors}
            />
          ))}
        </fieldset>
        <fieldset className="flex flex-col gap-2">
          <legend className="mb-2 text-sm font-medium text-text">Digest of my open items</legend>
          <ErrorList id={fields.digest.errorId} errors={fields.digest.errors} />
          {DIGEST_OPTIONS.map((option) => {
            const { key, ...props } = getInputProps(fields.digest, { type: 'radio', value: option.value })
            return (
              <label key={key ?? option.value} className="flex cursor-pointer items-start gap-3">
                <input {...props} id={`${fields.digest.id}-${option.value}`} className="mt-0.5 size-5 shrink-0 accent-primary" />
                <span className="flex flex-col">
                  <span className="text-sm font-medium text-text">{option.label}</span>
                  {option.help ? <span className="text-sm text-muted">{option.help}</span> : null}
                </span>
              </label>
            )
          })}
        </fieldset>
        <SubmitButton intent="save" pendingLabel="Saving…" className="self-start">
          Save notification settings
        </SubmitButton>
      </Form>
    </Card>
  )
}
