import { type ReactNode, useId } from 'react'
import { cx } from '~/components/ui/class-names'

export type SectionProps = {
  title: ReactNode
  description?: ReactNode
  /** Actions for this section only (e.g. "Add member"), beside its heading. */
  actions?: ReactNode
  children?: ReactNode
  className?: string
}

/** A titled part of a page: a `<section>` named by its `h2`. */
export function Section({ title, description, actions, children, className }: SectionProps) {
  const headingId = useId()
  return (
    <section aria-labelledby={headingId} className={cx('flex flex-col gap-4', className)}>
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0">
          <h2 id={headingId} className="text-lg font-semibold text-text">
            {title}
          </h2>
          {description ? <p className="mt-1 text-sm text-muted">{description}</p> : null}
        </div>
        {actions ? <div className="flex shrink-0 flex-wrap gap-2">{actions}</div> : null}
      </div>
      {children}
    </section>
  )
}
