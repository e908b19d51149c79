import { useId } from 'react'
import { Form } from 'react-router'
import { Card } from '~/components/ui/card'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { CsrfInput } from '~/components/ui/csrf-input'
import { ErrorList } from '~/components/ui/error-list'
import { FieldHelp, FieldLabel } from '~/components/ui/field-parts'
import { SubmitButton } from '~/components/ui/submit-button'
import { LOGO_MAX_BYTES, type SiteSettings } from '~/lib/settings/settings'

/** The organisation's logo: preview, upload (replace) and remove, for administrators. */
export function LogoCard({ site, error }: { site: SiteSettings; error: string | undefined }) {
  const id = useId()
  return (
    <Card className="p-5" role="region" aria-label="Logo">
      <h2 className="mb-4 text-lg font-semibold">Logo</h2>
      <div className="mb-4 flex min-h-20 items-center justify-center rounded-md border border-dashed border-border bg-surface-muted p-3">
        {site.logo ? <img src={site.logo.url} alt={`${site.name} logo`} className="max-h-16 max-w-full object-contain" /> : <p className="text-sm text-muted">No logo yet.</p>}
      </div>
      <Form method="post" encType="multipart/form-data" className="flex flex-col gap-3">
        <CsrfInput />
        <input type="hidden" name="intent" value="logo" />
        <FieldLabel htmlFor={id}>{site.logo ? 'Replace the logo' : 'Upload a logo'}</FieldLabel>
        <FieldHelp id={`${id}-help`}>PNG, JPEG, WebP or GIF, at most {LOGO_MAX_BYTES / 1024} KB. It shows at most 64 pixels high.</FieldHelp>
        <ErrorList id={`${id}-error`} errors={error ? [error] : undefined} />
        <input
          id={id}
          name="logo"
          type="file"
          required
          accept="image/png,image/jpeg,image/webp,image/gif"
          aria-describedby={`${id}-help${error ? ` ${id}-error` : ''}`}
          aria-invalid={error ? true : undefined}
          className="text-sm"
        />
        <SubmitButton intent="logo" pendingLabel="Uploading…" className="self-start">
          Upload logo
        </SubmitButton>
      </Form>
      {site.logo ? (
        <ConfirmDialog triggerLabel="Remove logo…" title="Remove the logo?" confirmLabel="Yes, remove logo" pendingLabel="Removing…" intent="logo-remove" className="mt-4">
          Pages show the organisation’s name instead. You can upload a logo again at any time.
        </ConfirmDialog>
      ) : null}
    </Card>
  )
}
