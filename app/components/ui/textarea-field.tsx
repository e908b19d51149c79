import { type ComponentProps, type ReactNode } from 'react'
import { cx } from '~/components/ui/class-names'
import { ErrorList } from '~/components/ui/error-list'
import { FieldHelp, FieldLabel, controlClasses, useFieldA11y } from '~/components/ui/field-parts'

export type TextareaFieldProps = {
  label: ReactNode
  /** Native textarea props; conform's `getTextareaProps(field)` can be spread in as they are. */
  textareaProps: ComponentProps<'textarea'>
  errors?: readonly string[] | null
  help?: ReactNode
  className?: string
}

export function TextareaField({ label, textareaProps, errors, help, className }: TextareaFieldProps) {
  const { key, id, className: textareaClassName, 'aria-describedby': describedBy, 'aria-invalid': ariaInvalid, rows = 4, ...rest } = textareaProps
  const a11y = useFieldA11y({ id, errors, hasHelp: Boolean(help), describedBy, invalid: ariaInvalid })
  return (
    <div className={cx('flex flex-col gap-1.5', className)}>
      <FieldLabel htmlFor={a11y.id}>{label}</FieldLabel>
      {help ? <FieldHelp id={a11y.helpId}>{help}</FieldHelp> : null}
      <ErrorList id={a11y.errorId} errors={errors} />
      <textarea key={key} rows={rows} {...rest} {...a11y.controlProps} className={cx(controlClasses(a11y.invalid), textareaClassName)} />
    </div>
  )
}
