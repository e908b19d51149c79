import { type ReactNode } from 'react'
import { useFormAction, useNavigation } from 'react-router'
import { Button, type ButtonProps } from '~/components/ui/button'

export type SubmitButtonProps = Omit<ButtonProps, 'type' | 'name' | 'value'> & {
  /** Shown while the form submits (with JavaScript only). Defaults to the normal label. */
  pendingLabel?: ReactNode
  /**
   * The form's intent: sent as the button's `name="intent"` value, and only a submission carrying
   * this intent counts as pending, so several forms on one route each get their own state.
   */
  intent?: string
  /** The `action` of the form this button belongs to, when it has one; else the current route. */
  action?: string
}

function pathOf(url: string) {
  return url.split(/[?#]/, 1)[0]
}

/** True while the form this button belongs to is submitting or its redirect is loading. */
function useIsSubmitting({ action, intent }: { action?: string; intent?: string }) {
  const navigation = useNavigation()
  const formAction = useFormAction(action)
  if (navigation.state === 'idle' || !navigation.formAction) return false
  if (pathOf(navigation.formAction) !== pathOf(formAction)) return false
  if (intent !== undefined && navigation.formData?.get('intent') !== intent) return false
  return true
}

/**
 * A submit button that shows `pendingLabel` while its form submits. Without JavaScript it is a
 * plain submit button; the browser's own navigation is the feedback.
 */
export function SubmitButton({ pendingLabel, intent, action, children, onClick, variant = 'primary', ...props }: SubmitButtonProps) {
  const pending = useIsSubmitting({ action, intent })
  return (
    <Button
      {...props}
      type="submit"
      variant={variant}
      name={intent === undefined ? undefined : 'intent'}
      value={intent}
      aria-disabled={pending || undefined}
      onClick={(event) => {
        // A second click while the first submission runs would cancel it and post again.
        if (pending) {
          event.preventDefault()
          return
        }
        onClick?.(event)
      }}
    >
      {pending ? (pendingLabel ?? children) : children}
    </Button>
  )
}
