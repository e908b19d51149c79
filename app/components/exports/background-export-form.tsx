import { Form, Link } from 'react-router'
import { CsrfInput } from '~/components/ui/csrf-input'
import { SubmitButton } from '~/components/ui/submit-button'
import { EXPORT_JOB_INTENT, exportJobIntent } from '~/lib/exports/intents'
import { type ExportEstimate, type ExportJobKind, exportUnit } from '~/lib/exports/types'

/**
 * docs/exports.md "Large exports as a job": where a screen offers an export that is too large to
 * stream, a form that starts it as a job (the action redirects to its progress page), with the
 * choice of a mail when it is ready. One button (`label`), or one per format (`formats`, each
 * button's intent naming its kind). Works without JavaScript: a plain POST.
 */
export function BackgroundExportForm({ label, estimate, formats }: { label: string; estimate: ExportEstimate; formats?: readonly { kind: ExportJobKind; label: string }[] }) {
  const size = `${estimate.items} ${exportUnit(estimate.kind, estimate.items)}${estimate.photos > 0 ? `, ${estimate.photos} ${estimate.photos === 1 ? 'photo' : 'photos'}` : ''}`
  return (
    <Form method="post" className="flex flex-wrap items-center gap-x-3 gap-y-1 rounded-md border border-border px-3 py-1.5 sm:max-w-md" aria-label={label}>
      <CsrfInput />
      {formats ? (
        formats.map((format) => (
          <SubmitButton key={format.kind} intent={exportJobIntent(format.kind)} variant="secondary" size="sm" pendingLabel="Starting…">
            {format.label}
          </SubmitButton>
        ))
      ) : (
        <SubmitButton intent={EXPORT_JOB_INTENT} variant="secondary" pendingLabel="Starting…">
          {label}
        </SubmitButton>
      )}
      <label className="flex items-center gap-2 text-sm text-text">
        <input type="checkbox" name="notify" value="on" className="size-4 accent-primary" />
        E-mail me when it is ready
      </label>
      <span className="w-full text-xs text-muted">
        {size}: prepared in the background, then offered for download in{' '}
        <Link to="/exports" className="text-primary-strong underline underline-offset-2">
          My exports
        </Link>
        .
      </span>
    </Form>
  )
}
