import { type ComponentProps, type ReactNode } from 'react'
import { cx } from '~/components/ui/class-names'
import { ErrorList } from '~/components/ui/error-list'
import { FieldHelp, FieldLabel, controlClasses, useFieldA11y } from '~/components/ui/field-parts'

export type SelectOption = { value: string; label: string; disabled?: boolean }

export type SelectFieldProps = {
  label: ReactNode
  /** Native select props; conform's `getSelectProps(field)` can be spread in as they are. */
  selectProps: ComponentProps<'select'>
  /** The choices; or pass `<option>` children instead (e.g. for `<optgroup>`). */
  options?: readonly SelectOption[]
  /** A first, empty choice ("Choose a role"), so a required select starts unanswered. */
  placeholder?: string
  children?: ReactNode
  errors?: readonly string[] | null
  help?: ReactNode
  className?: string
}

export function SelectField({ label, selectProps, options, placeholder, children, errors, help, className }: SelectFieldProps) {
  const { key, id, className: selectClassName, 'aria-describedby': describedBy, 'aria-invalid': ariaInvalid, ...rest } = selectProps
  const a11y = useFieldA11y({ id, errors, hasHelp: Boolean(help), describedBy, invalid: ariaInvalid })
  return (
    <div className={cx('flex flex-col gap-1.5', className)}>
      <FieldLabel htmlFor={a11y.id}>{label}</FieldLabel>
      {help ? <FieldHelp id={a11y.helpId}>{help}</FieldHelp> : null}
      <ErrorList id={a11y.errorId} errors={errors} />
      <select key={key} {...rest} {...a11y.controlProps} className={cx(controlClasses(a11y.invalid), selectClassName)}>
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {options?.map((option) => (
          <option key={option.value} value={option.value} disabled={option.disabled}>
            {option.label}
          </option>
        ))}
        {children}
      </select>
    </div>
  )
}
