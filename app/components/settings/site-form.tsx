import { getCollectionProps, getFormProps, getInputProps, getSelectProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { Card } from '~/components/ui/card'
import { CsrfInput } from '~/components/ui/csrf-input'
import { ErrorList } from '~/components/ui/error-list'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import { SiteSchema, WEEKDAYS } from '~/lib/schemas/settings'
import type { SiteSettings } from '~/lib/settings/settings'
import { RevisionInput } from '~/components/ui/revision-input'

/** Languages and regions offered as suggestions; any well-formed one (like pt-BR) may be typed. */
const COMMON_LOCALES = ['en-GB', 'en-US', 'en-AU', 'en-IE', 'de-DE', 'de-AT', 'de-CH', 'fr-FR', 'nl-NL', 'es-ES', 'it-IT', 'pl-PL', 'sv-SE', 'da-DK', 'nb-NO', 'fi-FI']

/** The organisation's site settings, for administrators. */
export function SiteForm({
  site,
  revision,
  timeZones,
  lastResult,
}: {
  site: SiteSettings
  /** The revision this form saves against (expectedRevision): the loaded one, or the current one after a conflict. */
  revision: number
  timeZones: string[]
  lastResult: SubmissionResult<string[]> | undefined
}) {
  const [form, fields] = useForm({
    id: 'site',
    lastResult,
    defaultValue: { name: site.name, slug: site.slug, locale: site.locale, timeZone: site.timeZone, workingDays: site.workingDays.map(String) },
    defaultNoValidate: false,
    constraint: getZodConstraint(SiteSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: SiteSchema }),
  })
  const zones = timeZones.includes(site.timeZone) ? timeZones : [site.timeZone, ...timeZones]
  const days = getCollectionProps(fields.workingDays, { type: 'checkbox', options: WEEKDAYS.map((d) => String(d.value)) })
  return (
    <Card className="p-5" role="region" aria-label="Organisation">
      <h2 className="mb-4 text-lg font-semibold">Organisation</h2>
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <CsrfInput />
        <RevisionInput revision={revision} />
        <input type="hidden" name="intent" value="site" />
        <FormError id={form.errorId} errors={form.errors} />
        <Field label="Name" inputProps={{ ...getInputProps(fields.name, { type: 'text' }), autoComplete: 'organization' }} errors={fields.name.errors} />
        <Field
          label="Short name"
          help="Lower-case letters, digits and hyphens; used in sign-in links. People who bookmarked the old one need the new one."
          inputProps={{ ...getInputProps(fields.slug, { type: 'text' }), autoComplete: 'off', spellCheck: false }}
          errors={fields.slug.errors}
        />
        <div className="grid gap-4 sm:grid-cols-2">
          <Field
            label="Language and region"
            help="Dates and numbers are shown this way to people who have not chosen otherwise."
            inputProps={{ ...getInputProps(fields.locale, { type: 'text' }), list: 'site-locales', autoComplete: 'off' }}
            errors={fields.locale.errors}
          />
          <datalist id="site-locales">
            {COMMON_LOCALES.map((l) => (
              <option key={l} value={l} />
            ))}
          </datalist>
          <SelectField
            label="Time zone"
            selectProps={getSelectProps(fields.timeZone)}
            options={zones.map((z) => ({ value: z, label: z.replaceAll('_', ' ') }))}
            errors={fields.timeZone.errors}
          />
        </div>
        <fieldset className="flex flex-col gap-2" aria-describedby={`${fields.workingDays.id}-help`}>
          <legend className="text-sm font-medium text-text">Working days</legend>
          <p id={`${fields.workingDays.id}-help`} className="text-sm text-muted">
            Due dates given as a number of days (review steps) count only these days.
          </p>
          <ErrorList id={fields.workingDays.errorId} errors={fields.workingDays.errors} />
          <div className="flex flex-wrap gap-x-5 gap-y-2">
            {days.map(({ key, ...props }, i) => (
              <label key={key} className="flex cursor-pointer items-center gap-2 text-sm">
                <input {...props} className="size-5 accent-primary" />
                {WEEKDAYS[i]?.label}
              </label>
            ))}
          </div>
        </fieldset>
        <SubmitButton intent="site" pendingLabel="Saving…" className="self-start">
          Save site settings
        </SubmitButton>
      </Form>
    </Card>
  )
}
