import { useId } from 'react'
import { controlClasses } from '~/components/ui/field-parts'
import type { NamingField } from '~/lib/documents/types'
import { NUMBER_SEPARATOR } from '~/lib/documents/rules'

/** The builder's inputs are named `numberPart.<field key>`, one per naming field, in the standard's order. */
export const NUMBER_PART = 'numberPart.'

/**
 * The number built from the builder's parts, in the order they were posted (the standard's), or
 * null when none was chosen. Posted without JavaScript, it stands in for a blank Number; the
 * naming check then says which part is missing or wrong, as for a typed number.
 */
export function numberFromParts(formData: FormData): string | null {
  const parts: string[] = []
  for (const [name, value] of formData) if (name.startsWith(NUMBER_PART) && typeof value === 'string') parts.push(value.trim().toUpperCase())
  return parts.some((p) => p !== '') ? parts.join(NUMBER_SEPARATOR) : null
}

/** What the builder was last sent with, so a form that comes back keeps the choices. */
export function sentParts(initialValue: Record<string, unknown> | undefined): Record<string, string> {
  const sent = initialValue?.numberPart
  if (typeof sent !== 'object' || sent === null || Array.isArray(sent)) return {}
  return Object.fromEntries(Object.entries(sent).filter((e): e is [string, string] => typeof e[1] === 'string'))
}

export type NumberBuilderProps = {
  fields: readonly NamingField[]
  sent: Readonly<Record<string, string>>
  /** With JavaScript: the parts as they are now, to write the number as they change. */
  onParts?: ((number: string) => void) | undefined
}

/**
 * "Build the number" (docs/documents.md "Naming"): one select per naming field with the project's
 * codes, a text box for a field without a list (the serial). Plain controls: without JavaScript
 * the server builds the number from them when Number is left blank; with it, Number follows them.
 */
export function NumberBuilder({ fields, sent, onParts }: NumberBuilderProps) {
  const id = useId()
  if (fields.length === 0) return null
  const changed = (event: React.FormEvent<HTMLFieldSetElement>) => {
    if (!onParts) return
    const set = event.currentTarget
    const values = fields.map((f) => {
      const control = set.elements.namedItem(`${NUMBER_PART}${f.key}`)
      return control instanceof HTMLSelectElement || control instanceof HTMLInputElement ? control.value.trim().toUpperCase() : ''
    })
    onParts(values.every((v) => v === '') ? '' : values.join(NUMBER_SEPARATOR))
  }
  return (
    <fieldset className="flex flex-col gap-2 rounded-md border border-border p-3" onChange={changed} onInput={changed}>
      <legend className="px-1 text-sm font-medium text-text">Or build the number from the project’s codes</legend>
      <p className="text-sm text-muted">Leave Number blank and choose each part; the number is made from them when you upload or check it.</p>
      <div className="grid grid-cols-2 gap-3 sm:grid-cols-4">
        {fields.map((field) => {
          const controlId = `${id}-${field.key}`
          const name = `${NUMBER_PART}${field.key}`
          return (
            <div key={field.key} className="flex min-w-0 flex-col gap-1">
              <label htmlFor={controlId} className="text-sm font-medium text-text">
                {/* Named apart from the form's own Number field for assistive technology. */}
                <span className="sr-only">Number part: </span>
                {field.label}
              </label>
              {field.codes ? (
                <select id={controlId} name={name} defaultValue={sent[field.key] ?? ''} className={controlClasses(false)}>
                  <option value="">Choose</option>
                  {field.codes.map((code) => (
                    <option key={code.code} value={code.code}>
                      {code.code} · {code.description}
                    </option>
                  ))}
                </select>
              ) : (
                <input
                  id={controlId}
                  name={name}
                  type="text"
                  defaultValue={sent[field.key] ?? ''}
                  inputMode={field.charset === 'digits' ? 'numeric' : 'text'}
                  maxLength={field.maxLength}
                  placeholder={field.charset === 'digits' ? '0'.repeat(field.minLength) : ''}
                  autoComplete="off"
                  spellCheck={false}
                  className={`${controlClasses(false)} font-mono`}
                />
              )}
            </div>
          )
        })}
      </div>
    </fieldset>
  )
}
