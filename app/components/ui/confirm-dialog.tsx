import { type ReactNode, useId, useRef } from 'react'
import { Form } from 'react-router'
import { Button, buttonClasses, type ButtonVariant } from '~/components/ui/button'
import { cx } from '~/components/ui/class-names'
import { CsrfInput } from '~/components/ui/csrf-input'
import { SubmitButton } from '~/components/ui/submit-button'
import { useHydrated } from '~/components/ui/use-hydrated'

export type ConfirmDialogProps = {
  /** Opens the confirmation, e.g. "Delete project…". Keep it distinct from `confirmLabel`. */
  triggerLabel: string
  /** The question, e.g. "Delete Riverside Tower?". */
  title: string
  /** What happens and what cannot be undone. */
  children?: ReactNode
  /** Carries out the action, e.g. "Yes, delete project". */
  confirmLabel: string
  /** Shown on the confirm button while it submits, e.g. "Deleting…". */
  pendingLabel?: string
  /** The form's action; the current route when absent. */
  action?: string
  /** Sent as `intent` with the confirm button. */
  intent?: string
  /** Extra hidden fields, e.g. `{ id: project.id }`. */
  fields?: Readonly<Record<string, string>>
  /** `critical` for destructive actions (the default), `primary` for merely weighty ones. */
  tone?: Extract<ButtonVariant, 'critical' | 'primary'>
  className?: string
}

/**
 * Confirmation before a destructive action, without JavaScript: a `<details>` disclosure holding
 * the confirming POST form (CSRF field included). With JavaScript it also gets a Cancel button,
 * and Escape closes it; both hand focus back to the trigger.
 */
export function ConfirmDialog({
  triggerLabel,
  title,
  children,
  confirmLabel,
  pendingLabel,
  action,
  intent,
  fields,
  tone = 'critical',
  className,
}: ConfirmDialogProps) {
  const hydrated = useHydrated()
  const titleId = useId()
  const detailsRef = useRef<HTMLDetailsElement>(null)

  function close() {
    const details = detailsRef.current
    if (!details) return
    details.open = false
    details.querySelector('summary')?.focus()
  }

  return (
    <details
      ref={detailsRef}
      className={cx('group', className)}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && detailsRef.current?.open) {
          event.stopPropagation()
          close()
        }
      }}
    >
      <summary className={cx(buttonClasses({ variant: tone }), 'list-none [&::-webkit-details-marker]:hidden')}>
        {triggerLabel}
      </summary>
      <div
        role="group"
        aria-labelledby={titleId}
        className={cx('mt-3 max-w-md rounded-lg border-2 bg-surface p-4 shadow-sm', tone === 'critical' ? 'border-critical' : 'border-primary')}
      >
        <p id={titleId} className="font-semibold text-text">
          {title}
        </p>
        {children ? <div className="mt-2 text-sm text-muted">{children}</div> : null}
        <Form method="post" action={action} className="mt-4 flex flex-wrap gap-2">
          <CsrfInput />
          {Object.entries(fields ?? {}).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <SubmitButton variant={tone} intent={intent} action={action} pendingLabel={pendingLabel}>
            {confirmLabel}
          </SubmitButton>
          {hydrated ? (
            <Button variant="secondary" onClick={close}>
              Cancel
            </Button>
          ) : null}
        </Form>
      </div>
    </details>
  )
}
