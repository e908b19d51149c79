import { type ReactNode, useId } from 'react'
import { cx } from '~/components/ui/class-names'

/**
 * The accessibility wiring every field shares. Ids follow conform (`{id}-error`), so a control
 * spread from `getInputProps` and our own `ErrorList` agree; `aria-describedby` is rebuilt from
 * what is actually on screen: the help text, the errors when there are any, and any extra ids.
 */
export function useFieldA11y({
  id: givenId,
  errors,
  hasHelp,
  describedBy,
  invalid: givenInvalid,
}: {
  id: string | undefined
  errors: readonly string[] | null | undefined
  hasHelp: boolean
  describedBy: string | undefined
  invalid: boolean | 'true' | 'false' | 'grammar' | 'spelling' | undefined
}) {
  const generatedId = useId()
  const id = givenId ?? generatedId
  const errorId = `${id}-error`
  const helpId = `${id}-help`
  const invalid = (errors?.some(Boolean) ?? false) || givenInvalid === true || givenInvalid === 'true'
  const ids = new Set((describedBy ?? '').split(/\s+/).filter(Boolean))
  ids.delete(errorId)
  ids.delete(helpId)
  const ordered = [hasHelp ? helpId : null, invalid ? errorId : null, ...ids].filter((value): value is string => Boolean(value))
  return {
    id,
    errorId,
    helpId,
    invalid,
    controlProps: {
      id,
      'aria-invalid': invalid || undefined,
      'aria-describedby': ordered.length > 0 ? ordered.join(' ') : undefined,
    },
  }
}

export function FieldLabel({ htmlFor, children }: { htmlFor: string; children: ReactNode }) {
  return (
    <label htmlFor={htmlFor} className="text-sm font-medium text-text">
      {children}
    </label>
  )
}

export function FieldHelp({ id, children }: { id: string; children: ReactNode }) {
  return (
    <p id={id} className="text-sm text-muted">
      {children}
    </p>
  )
}

/** Text inputs, selects and textareas share one look; an invalid control gets a critical border. */
export function controlClasses(invalid: boolean) {
  return cx(
    'block w-full min-h-11 rounded-md border bg-surface px-3 py-2 text-base text-text placeholder:text-muted',
    'disabled:cursor-not-allowed disabled:bg-surface-muted',
    invalid ? 'border-critical border-2' : 'border-border-strong',
  )
}
