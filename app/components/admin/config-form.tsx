import { Form } from 'react-router'
import { ConfigField, shownValue } from '~/components/admin/config-field'
import { ConfigTests } from '~/components/admin/config-tests'
import { Banner } from '~/components/ui/banner'
import { CsrfInput } from '~/components/ui/csrf-input'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import type { ConfigCategorySchema, ConfigCategoryValues, ConfigConflict, ConfigFieldSchema, ConfigTestKind, ConfigTestResult } from '~/lib/admin/config'

/** The hidden field with the version the form was loaded with (named apart from any category field). */
export const FORM_VERSION_FIELD = 'formVersion'

/** What the form starts from after a submission: see ConfigActionData in configuration-category.server.ts. */
export type ConfigFormState = {
  formVersion?: number | undefined
  typed?: Record<string, string | boolean> | undefined
  secretsTyped?: string[] | undefined
  toEmail?: string | undefined
  errors?: Record<string, string[]> | undefined
  formErrors?: string[] | undefined
  conflict?: ConfigConflict | undefined
  test?: ConfigTestResult | undefined
}

/**
 * A category's settings as one plain HTML form drawn from its JSON Schema. After a failed save or
 * a test it starts from what was typed (secrets aside); after a conflict it shows the other
 * person's values beside each field that differs and carries their version, so saving again
 * replaces theirs with yours.
 */
export function ConfigForm({
  category,
  current,
  state,
  adminEmail,
  locale,
}: {
  category: ConfigCategorySchema
  current: ConfigCategoryValues
  state: ConfigFormState | undefined
  adminEmail: string
  locale: string
}) {
  const { properties, required = [] } = category.schema
  const names = Object.keys(properties)
  const errors = state?.errors ?? {}
  const firstInvalid = names.find((name) => (errors[name]?.length ?? 0) > 0)
  const conflict = state?.conflict
  const editable = names.some((name) => !properties[name]?.readOnly)
  const results: Partial<Record<ConfigTestKind, ConfigTestResult>> = {}
  if (current.lastTest) results[current.lastTest.kind] = current.lastTest
  if (state?.test) results[state.test.kind] = state.test
  return (
    <Form method="post" id={`config-${category.key}`} aria-label={`${category.title} settings`} className="flex max-w-2xl flex-col gap-6">
      <CsrfInput />
      <input type="hidden" name={FORM_VERSION_FIELD} value={state?.formVersion ?? current.version} />
      {conflict ? <ConflictBanner conflict={conflict} /> : null}
      <FormError errors={state?.formErrors} />
      {names.map((name) => {
        const field = properties[name] as ConfigFieldSchema
        return (
          <ConfigField
            key={name}
            name={name}
            field={field}
            required={required.includes(name)}
            value={startValue(field, name, current, state)}
            errors={errors[name]}
            secretSet={current.secrets[name]?.set ?? false}
            secretTyped={state?.secretsTyped?.includes(name)}
            theirs={conflict ? theirValue(field, name, conflict, state) : undefined}
            autoFocus={name === firstInvalid}
          />
        )
      })}
      {editable ? (
        <SubmitButton intent="save" pendingLabel="Saving…" className="self-start">
          {conflict ? 'Save my values over theirs' : 'Save'}
        </SubmitButton>
      ) : (
        <p className="text-sm text-muted">These settings come from the server’s environment and cannot be changed here.</p>
      )}
      <ConfigTests
        kinds={category.tests}
        results={results}
        toEmail={state?.toEmail ?? adminEmail}
        toEmailErrors={errors.toEmail}
        updatedAtUtc={current.updatedAtUtc}
        locale={locale}
      />
    </Form>
  )
}

function ConflictBanner({ conflict }: { conflict: ConfigConflict }) {
  return (
    <Banner tone="warning" title={`Someone else saved this category (version ${conflict.currentVersion}) while you edited version ${conflict.yourVersion}.`}>
      Your input is kept below, with their value beside each field where it differs. Save again to replace their version with yours, or reload the page to start from theirs.
    </Banner>
  )
}

/** The typed value after a submission, else the saved one, else the default; secrets never. */
function startValue(field: ConfigFieldSchema, name: string, current: ConfigCategoryValues, state: ConfigFormState | undefined): string | boolean | undefined {
  if (field['x-secret']) return undefined
  if (state?.typed && name in state.typed && !field.readOnly) return state.typed[name]
  const value = current.values[name] ?? field.default
  if (typeof value === 'boolean') return value
  if (value === undefined || value === null) return undefined
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** The other person's value of a field, in words, when it differs from what was typed. */
function theirValue(field: ConfigFieldSchema, name: string, conflict: ConfigConflict, state: ConfigFormState | undefined): string | undefined {
  // A secret's state is its badge, which shows the newest version's; its value is never shown.
  if (field.readOnly || field['x-secret']) return undefined
  const theirs = conflict.current.values[name]
  const mine = state?.typed?.[name]
  const same = typeof mine === 'boolean' ? mine === (theirs === true) : (mine ?? '').trim() === (theirs === undefined || theirs === null ? '' : String(theirs))
  return same ? undefined : shownValue(field, theirs)
}
