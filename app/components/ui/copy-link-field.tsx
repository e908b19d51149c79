import { useId, useState } from 'react'
import { Button } from '~/components/ui/button'
import { useHydrated } from '~/components/ui/use-hydrated'

/**
 * A link to pass on by hand (an invite link when mail does not go out): a read-only field holding
 * it, selectable without JavaScript, and a "Copy invite link" button once scripts run.
 */
export function CopyLinkField({ label, link, buttonLabel = 'Copy invite link', testId }: { label: string; link: string; buttonLabel?: string; testId?: string }) {
  const id = useId()
  const hydrated = useHydrated()
  const [copied, setCopied] = useState(false)
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      <div className="flex min-w-0 flex-col gap-2 sm:flex-row">
        <input
          id={id}
          readOnly
          value={link}
          data-testid={testId}
          onFocus={(event) => event.currentTarget.select()}
          className="min-h-11 w-full min-w-0 rounded-md border border-border bg-surface px-3 font-mono text-sm text-text"
        />
        {hydrated ? (
          <Button
            type="button"
            variant="secondary"
            onClick={() => {
              void navigator.clipboard?.writeText(link).then(
                () => setCopied(true),
                () => setCopied(false),
              )
            }}
          >
            {buttonLabel}
          </Button>
        ) : null}
      </div>
      <p aria-live="polite" className="text-sm text-muted">
        {copied ? 'Copied.' : null}
      </p>
    </div>
  )
}
