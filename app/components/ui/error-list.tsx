export type ErrorListProps = {
  /** The id the control's `aria-describedby` points at (conform's `field.errorId`). */
  id?: string
  errors?: readonly string[] | null
}

/** A field's error messages; renders nothing when there are none. */
export function ErrorList({ id, errors }: ErrorListProps) {
  const messages = errors?.filter(Boolean) ?? []
  if (messages.length === 0) return null
  const className = 'text-sm font-medium text-critical'
  if (messages.length === 1) {
    return (
      <p id={id} className={className}>
        <span className="sr-only">Error: </span>
        {messages[0]}
      </p>
    )
  }
  return (
    <ul id={id} className={`${className} flex flex-col gap-1`}>
      {messages.map((message, index) => (
        <li key={`${index}-${message}`}>
          <span className="sr-only">Error: </span>
          {message}
        </li>
      ))}
    </ul>
  )
}
