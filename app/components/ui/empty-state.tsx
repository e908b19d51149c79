import { type ReactNode } from 'react'
import { cx } from '~/components/ui/class-names'

export type EmptyStateProps = {
  heading: ReactNode
  children?: ReactNode
  /** What the user can do about it, e.g. a `ButtonLink` to create the first item. */
  action?: ReactNode
  /** 2 on its own under the page title; 3 inside a `Section`. */
  headingLevel?: 2 | 3
  className?: string
}

/** What a list shows when it has nothing in it. */
export function EmptyState({ heading, children, action, headingLevel = 2, className }: EmptyStateProps) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3'
  return (
    <div className={cx('flex flex-col items-center gap-2 rounded-lg border border-dashed border-border-strong bg-surface px-4 py-10 text-center', className)}>
      <Heading className="text-base font-semibold text-text">{heading}</Heading>
      {children ? <div className="max-w-prose text-sm text-muted">{children}</div> : null}
      {action ? <div className="mt-2">{action}</div> : null}
    </div>
  )
}
