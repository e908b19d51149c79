import { type ComponentProps } from 'react'
import { cx } from '~/components/ui/class-names'

export type ButtonVariant = 'primary' | 'secondary' | 'critical' | 'plain'
export type ButtonSize = 'sm' | 'md' | 'lg'

const base =
  'inline-flex items-center justify-center gap-2 rounded-md border font-medium whitespace-nowrap no-underline transition-colors select-none cursor-pointer disabled:cursor-not-allowed disabled:opacity-60 aria-disabled:cursor-progress'

const variants: Record<ButtonVariant, string> = {
  primary: 'border-transparent bg-primary text-white hover:bg-primary-strong',
  secondary: 'border-border-strong bg-surface text-text hover:bg-surface-muted',
  critical: 'border-transparent bg-critical text-white hover:bg-critical-strong',
  plain: 'border-transparent bg-transparent text-primary-strong underline-offset-4 hover:underline',
}

// md and lg meet the 44 px touch target; sm is for dense tables and still above WCAG 2.5.8's 24 px.
const sizes: Record<ButtonSize, string> = {
  sm: 'min-h-9 px-3 text-sm',
  md: 'min-h-11 px-4 text-sm',
  lg: 'min-h-12 px-5 text-base',
}

/** The classes of a button, shared by `Button`, `ButtonLink` and disclosure summaries. */
export function buttonClasses({ variant = 'primary', size = 'md' }: { variant?: ButtonVariant; size?: ButtonSize } = {}) {
  return cx(base, variants[variant], sizes[size])
}

export type ButtonProps = ComponentProps<'button'> & { variant?: ButtonVariant; size?: ButtonSize }

/** A native button. `type` defaults to "button" so it never submits a form by accident. */
export function Button({ variant, size, className, type = 'button', ...props }: ButtonProps) {
  return <button type={type} className={cx(buttonClasses({ variant, size }), className)} {...props} />
}
