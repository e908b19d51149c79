import { type ComponentProps } from 'react'
import { cx } from '~/components/ui/class-names'

/** A white box on the page background. */
export function Card({ className, ...props }: ComponentProps<'div'>) {
  return <div className={cx('rounded-lg border border-border bg-surface p-4 shadow-sm sm:p-6', className)} {...props} />
}
