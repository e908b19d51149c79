import { type ComponentProps, type ReactNode } from 'react'
import { cx } from '~/components/ui/class-names'
import { ErrorList } from '~/components/ui/error-list'
import { FieldHelp, FieldLabel, controlClasses, useFieldA11y } from '~/components/ui/field-parts'

export type FieldProps = {
  label: ReactNode
  /** Native input props; conform's `getInputProps(field, { type })` can be spread in as they are. */
  inputProps: ComponentProps<'input'>
  /** conform's `field.errors`. */
  errors?: readonly string[] | null
  help?: ReactNode
  className?: string
}

/** A labelled input with help text and errors, wired for assistive technology. */
export function Field({ label, inputProps, errors, help, className }: FieldProps) {
  // conform hands out `key` to reset the control; React refuses it inside a spread.
  const { key, id, className: inputClassName, 'aria-describedby': describedBy, 'aria-invalid': ariaInvalid, ...rest } = inputProps
  const a11y = useFieldA11y({ id, errors, hasHelp: Boolean(help), describedBy, invalid: ariaInvalid })
  return (
    <div className={cx('flex flex-col gap-1.5', className)}>
      <FieldLabel htmlFor={a11y.id}>{label}</FieldLabel>
      {help ? <FieldHelp id={a11y.helpId}>{help}</FieldHelp> : null}
      <ErrorList id={a11y.errorId} errors={errors} />
      <input key={key} {...rest} {...a11y.controlProps} className={cx(controlClasses(a11y.invalid), inputClassName)} />
    </div>
  )
}
