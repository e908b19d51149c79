import { cx } from '~/components/ui/class-names'

export type FormErrorProps = {
  /** conform's `form.errorId`, which the form's `aria-describedby` points at. */
  id?: string
  errors?: readonly string[] | null
  className?: string
}

/** Errors of the whole form (not of one field), announced as an alert; nothing when empty. */
export function FormError({ id, errors, className }: FormErrorProps) {
  const messages = errors?.filter(Boolean) ?? []
  if (messages.length === 0) return null
  return (
    <div
      id={id}
      role="alert"
      className={cx('rounded-md border border-critical bg-critical-surface px-4 py-3 text-sm text-critical-strong', className)}
    >
      {messages.length === 1 ? (
        <p>{messages[0]}</p>
      ) : (
        <ul className="list-disc space-y-1 pl-5">
          {messages.map((message, index) => (
            <li key={`${index}-${message}`}>{message}</li>
          ))}
        </ul>
      )}
    </div>
  )
}
