import { useState } from 'react'
import { useRouteLoaderData } from 'react-router'
import { cx } from '~/components/ui/class-names'
import { useHydrated } from '~/components/ui/use-hydrated'

export type ToastTone = 'info' | 'success' | 'warning' | 'critical'

/** A flash message set by an action before its redirect and read once by the root loader. */
export type Flash = {
  message: string
  tone?: ToastTone
  /** Tells two flashes with the same text apart, so a dismissed one does not hide the next. */
  id?: string
}

const tones: Record<ToastTone, string> = {
  info: 'border-info bg-info-surface',
  success: 'border-success bg-success-surface',
  warning: 'border-warning bg-warning-surface',
  critical: 'border-critical bg-critical-surface',
}

function isFlash(value: unknown): value is Flash {
  return typeof value === 'object' && value !== null && 'message' in value && typeof value.message === 'string'
}

/** The root loader's `flash`, if any. */
export function useFlash(): Flash | undefined {
  const data: unknown = useRouteLoaderData('root')
  if (typeof data !== 'object' || data === null || !('flash' in data)) return undefined
  return isFlash(data.flash) ? data.flash : undefined
}

/**
 * A flash message in a status region that is always in the page, so a message arriving with a
 * client-side navigation is announced. It stays until dismissed (nothing times out, WCAG 2.2.1);
 * the dismiss button exists only with JavaScript, without it this is just a status message.
 */
export function Toast({ flash, className }: { flash: Flash | null | undefined; className?: string }) {
  const hydrated = useHydrated()
  const [dismissed, setDismissed] = useState<string | null>(null)
  const flashKey = flash ? (flash.id ?? flash.message) : null
  const visible = flash && flashKey !== dismissed ? flash : null
  return (
    <div role="status" aria-live="polite" aria-atomic="true" className={cx(visible ? 'mb-4' : undefined, className)}>
      {visible ? (
        <div className={cx('flex items-start gap-3 rounded-md border-l-4 px-4 py-3 text-sm text-text shadow-sm', tones[visible.tone ?? 'success'])}>
          <p className="min-w-0 flex-1 py-1 break-words">{visible.message}</p>
          {hydrated ? (
            <button
              type="button"
              onClick={() => {
                setDismissed(flashKey)
                document.getElementById('main')?.focus()
              }}
              className="-my-1 -mr-2 inline-flex size-9 shrink-0 cursor-pointer items-center justify-center rounded-md text-muted hover:bg-surface-muted hover:text-text"
            >
              <span aria-hidden="true" className="text-lg leading-none">
                ×
              </span>
              <span className="sr-only">Dismiss message</span>
            </button>
          ) : null}
        </div>
      ) : null}
    </div>
  )
}

/** The root loader's flash message as a `Toast`. */
export function FlashToast({ className }: { className?: string }) {
  return <Toast flash={useFlash()} className={className} />
}
