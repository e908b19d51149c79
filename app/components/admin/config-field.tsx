import { type ComponentProps, type ReactNode } from 'react'
import { Badge } from '~/components/ui/badge'
import { CheckboxField } from '~/components/ui/checkbox-field'
import { cx } from '~/components/ui/class-names'
import { ErrorList } from '~/components/ui/error-list'
import { FieldHelp, FieldLabel, controlClasses, useFieldA11y } from '~/components/ui/field-parts'
import { SelectField } from '~/components/ui/select-field'
import type { ConfigApplies, ConfigFieldSchema } from '~/lib/admin/config'

/**
 * One field of a configuration category, drawn from its JSON Schema on the server: the input type
 * from type/format/enum, the HTML constraints the schema implies (so the browser checks before
 * sending, with or without JavaScript), help from the description, the default, when a change
 * takes effect, and for a secret whether one is set.
 */
export type ConfigFieldProps = {
  name: string
  field: ConfigFieldSchema
  required: boolean
  /** What the input starts with: the typed or saved value (never a secret). */
  value: string | boolean | undefined
  errors?: string[] | undefined
  /** Secrets only: whether a value is saved. */
  secretSet?: boolean | undefined
  /** Secrets only: a value was typed, and the failed submission did not send it back. */
  secretTyped?: boolean | undefined
  /** After a conflict: the value the other person saved, in words. */
  theirs?: string | undefined
  autoFocus?: boolean | undefined
}

const APPLIES: Record<ConfigApplies, string> = {
  immediately: 'A change takes effect immediately.',
  'new-sessions': 'A change takes effect for sessions started after it; signed-in people keep the old setting until they sign in again.',
  restart: 'A change takes effect after the server restarts.',
}

export function ConfigField({ name, field, required, value, errors, secretSet, secretTyped, theirs, autoFocus }: ConfigFieldProps) {
  const label = (
    <>
      {field.title ?? name}
      {required && field.type !== 'boolean' ? <span className="font-normal text-muted"> (required)</span> : null}
    </>
  )
  const help = helpFor(field, { secretSet, secretTyped, theirs })
  if (field.readOnly) {
    return (
      <div className="flex flex-col gap-1.5">
        <p className="text-sm font-medium text-text">{field.title ?? name}</p>
        <p className="text-base text-text">
          {shownValue(field, value)} <Badge>read-only</Badge>
        </p>
        {help ? <p className="text-sm text-muted">{help}</p> : null}
      </div>
    )
  }
  if (field.type === 'boolean') {
    return <CheckboxField label={field.title ?? name} help={help} errors={errors} inputProps={{ id: `config-${name}`, name, defaultChecked: value === true, autoFocus }} />
  }
  if (field.enum) {
    const labels = field['x-enum-labels'] ?? []
    return (
      <SelectField
        label={label}
        help={help}
        errors={errors}
        placeholder={required || field.default !== undefined ? undefined : 'Not set'}
        options={field.enum.map((option, index) => ({ value: String(option), label: labels[index] ?? String(option) }))}
        selectProps={{ id: `config-${name}`, name, required, defaultValue: typeof value === 'string' ? value : '', autoFocus }}
      />
    )
  }
  // A saved secret left blank is kept, so the browser only insists on one that is not set yet.
  const mustType = required && !(field['x-secret'] && secretSet)
  return (
    <ConfigInput
      name={name}
      label={label}
      help={help}
      errors={errors}
      inputProps={{ ...inputConstraints(field, mustType), name, autoFocus }}
      value={value}
      unit={field['x-unit']}
    />
  )
}

/** Text, e-mail, address, number or password input, with the unit after it. */
function ConfigInput({
  name,
  label,
  help,
  errors,
  inputProps,
  value,
  unit,
}: {
  name: string
  label: ReactNode
  help: ReactNode
  errors: string[] | undefined
  inputProps: ComponentProps<'input'>
  value: string | boolean | undefined
  unit: string | undefined
}) {
  const unitId = `config-${name}-unit`
  const a11y = useFieldA11y({ id: `config-${name}`, errors, hasHelp: Boolean(help), describedBy: unit ? unitId : undefined, invalid: undefined })
  const narrow = inputProps.type === 'number'
  return (
    <div className="flex flex-col gap-1.5">
      <FieldLabel htmlFor={a11y.id}>{label}</FieldLabel>
      {help ? <FieldHelp id={a11y.helpId}>{help}</FieldHelp> : null}
      <ErrorList id={a11y.errorId} errors={errors} />
      <div className="flex items-center gap-2">
        <input
          {...inputProps}
          {...a11y.controlProps}
          defaultValue={inputProps.type === 'password' || typeof value !== 'string' ? undefined : value}
          className={cx(controlClasses(a11y.invalid), narrow ? 'max-w-48' : undefined)}
        />
        {unit ? (
          <span id={unitId} className="text-sm text-muted">
            {unit}
          </span>
        ) : null}
      </div>
    </div>
  )
}

/** The HTML constraints a JSON Schema property implies. */
export function inputConstraints(field: ConfigFieldSchema, required: boolean): ComponentProps<'input'> {
  if (field['x-secret']) {
    return { type: 'password', autoComplete: 'new-password', required, minLength: field.minLength, maxLength: field.maxLength }
  }
  if (field.type === 'integer' || field.type === 'number') {
    return {
      type: 'number',
      inputMode: field.type === 'integer' ? 'numeric' : 'decimal',
      step: field.type === 'integer' ? 1 : 'any',
      min: field.minimum,
      max: field.maximum,
      required,
    }
  }
  const type = field.format === 'email' ? 'email' : field.format === 'uri' || field.format === 'url' ? 'url' : 'text'
  return { type, required, minLength: field.minLength, maxLength: field.maxLength, pattern: htmlPattern(field.pattern), spellCheck: type === 'text' ? undefined : false }
}

/**
 * Browsers compile `pattern` with the `v` flag and ignore (and log) one that does not compile so;
 * such a pattern is left to the server's check.
 */
function htmlPattern(pattern: string | undefined): string | undefined {
  if (!pattern) return undefined
  try {
    new RegExp(pattern, 'v')
    return pattern
  } catch {
    return undefined
  }
}

function helpFor(field: ConfigFieldSchema, state: { secretSet: boolean | undefined; secretTyped: boolean | undefined; theirs: string | undefined }): ReactNode {
  const parts: ReactNode[] = []
  if (field.description) parts.push(<span key="description">{field.description}</span>)
  if (field['x-secret']) {
    parts.push(
      <span key="secret">
        {' '}
        <Badge tone={state.secretSet ? 'success' : 'neutral'}>{state.secretSet ? 'set' : 'not set'}</Badge>{' '}
        {state.secretSet ? (/leave blank/i.test(field.description ?? '') ? '' : 'Leave blank to keep the saved value.') : 'Nothing is saved yet.'}
      </span>,
    )
  } else if (field.default !== undefined && field.default !== null && field.default !== '') {
    parts.push(<span key="default"> Default: {shownValue(field, field.default)}.</span>)
  }
  if (field['x-applies']) parts.push(<span key="applies"> {APPLIES[field['x-applies']]}</span>)
  if (state.secretTyped) {
    parts.push(
      <strong key="again" className="block font-medium text-warning">
        You typed a new value, which is never sent back to the page: type it again.
      </strong>,
    )
  }
  if (state.theirs !== undefined) {
    parts.push(
      <span key="theirs" className="mt-1 block rounded-md border border-warning/40 bg-warning-surface px-2 py-1 text-text">
        Saved by the other person: <span className="font-medium">{state.theirs}</span>
      </span>,
    )
  }
  return parts.length > 0 ? parts : null
}

/** A value in words: checkboxes as On/Off, an enum by its label, nothing as "(empty)". */
export function shownValue(field: ConfigFieldSchema | undefined, value: unknown): string {
  if (value === undefined || value === null || value === '') return '(empty)'
  if (typeof value === 'boolean') return value ? 'On' : 'Off'
  if (field?.enum) {
    const index = field.enum.findIndex((option) => option === value)
    const label = index >= 0 ? field['x-enum-labels']?.[index] : undefined
    if (label) return label
  }
  const unit = field?.['x-unit'] && typeof value === 'number' ? ` ${field['x-unit']}` : ''
  return `${typeof value === 'string' ? value : JSON.stringify(value)}${unit}`
}
