import { type ComponentProps, type ReactNode } from 'react'
import { cx } from '~/components/ui/class-names'
import { ErrorList } from '~/components/ui/error-list'
import { FieldHelp, useFieldA11y } from '~/components/ui/field-parts'

export type CheckboxFieldProps = {
  label: ReactNode
  /** Native input props; conform's `getInputProps(field, { type: 'checkbox' })` can be spread in. */
  inputProps: Omit<ComponentProps<'input'>, 'type'> & { type?: 'checkbox' }
  errors?: readonly string[] | null
  help?: ReactNode
  className?: string
}

/** A checkbox with its label beside it; the whole label is the click target. */
export function CheckboxField({ label, inputProps, errors, help, className }: CheckboxFieldProps) {
  const { key, id, className: inputClassName, 'aria-describedby': describedBy, 'aria-invalid': ariaInvalid, type: _type, ...rest } = inputProps
  const a11y = useFieldA11y({ id, errors, hasHelp: Boolean(help), describedBy, invalid: ariaInvalid })
  return (
    <div className={cx('flex flex-col gap-1.5', className)}>
      <ErrorList id={a11y.errorId} errors={errors} />
      <div className="flex items-start gap-3">
        <input
          key={key}
          type="checkbox"
          {...rest}
          {...a11y.controlProps}
          className={cx('mt-0.5 size-5 shrink-0 cursor-pointer accent-primary', inputClassName)}
        />
        <div className="flex flex-col gap-0.5">
          <label htmlFor={a11y.id} className="cursor-pointer text-sm font-medium text-text">
            {label}
          </label>
          {help ? <FieldHelp id={a11y.helpId}>{help}</FieldHelp> : null}
        </div>
      </div>
    </div>
  )
}
