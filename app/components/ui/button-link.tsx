import { Link, type LinkProps } from 'react-router'
import { buttonClasses, type ButtonSize, type ButtonVariant } from '~/components/ui/button'
import { cx } from '~/components/ui/class-names'

export type ButtonLinkProps = LinkProps & { variant?: ButtonVariant; size?: ButtonSize; className?: string }

/** A react-router `<Link>` that looks like a button: for navigation, never for actions. */
export function ButtonLink({ variant, size, className, ...props }: ButtonLinkProps) {
  return <Link className={cx(buttonClasses({ variant, size }), className)} {...props} />
}
