import { getFormProps, getInputProps, getSelectProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form, Link } from 'react-router'
import { Badge } from '~/components/ui/badge'
import { buttonClasses } from '~/components/ui/button'
import { cx } from '~/components/ui/class-names'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import type { SavedView } from '~/lib/reporting/types'
import { SaveViewSchema } from '~/lib/schemas/reporting-items'

export type SavedViewsProps = {
  /** null: the list could not be loaded. */
  personal: readonly SavedView[] | null
  shared: readonly SavedView[] | null
  /** The current view's query, to mark the view that is open. */
  currentQuery: string
  /** Read-write members and administrators may share views. */
  canShare: boolean
  userId: string | null
  isAdmin: boolean
  lastResult: SubmissionResult<string[]> | undefined
  /** Opens the disclosure, e.g. after a failed save. */
  open: boolean
}

/**
 * Saved views: a name for the current filters and display, for oneself or the organisation. A view
 * is a link to /items with its query; deleting one asks first.
 */
export function ItemSavedViews({ personal, shared, currentQuery, canShare, userId, isAdmin, lastResult, open }: SavedViewsProps) {
  const count = (personal?.length ?? 0) + (shared?.length ?? 0)
  return (
    <details className="group rounded-lg border border-border bg-surface" open={open || undefined}>
      <summary className={cx(buttonClasses({ variant: 'plain' }), 'w-full justify-start px-4 list-none [&::-webkit-details-marker]:hidden')}>
        <span aria-hidden="true" className="inline-block transition-transform group-open:rotate-90">
          ▸
        </span>
        Saved views{count > 0 ? ` (${count})` : ''}
      </summary>
      <div className="grid gap-6 border-t border-border p-4 md:grid-cols-2 xl:grid-cols-3">
        <ViewList title="Your views" empty="You have no saved views yet." views={personal} currentQuery={currentQuery} canDelete={() => true} />
        <ViewList
          title="Shared views"
          empty="Nobody has shared a view yet."
          views={shared}
          currentQuery={currentQuery}
          canDelete={(view) => isAdmin || (canShare && view.owner?.id === userId)}
        />
        <SaveViewForm canShare={canShare} lastResult={lastResult} />
      </div>
    </details>
  )
}

function ViewList({
  title,
  empty,
  views,
  currentQuery,
  canDelete,
}: {
  title: string
  empty: string
  views: readonly SavedView[] | null
  currentQuery: string
  canDelete: (view: SavedView) => boolean
}) {
  return (
    <div className="flex flex-col gap-2">
      <h2 className="text-base font-semibold text-text">{title}</h2>
      {views === null ? <p className="text-sm text-muted">These views could not be loaded. Reload the page to try again.</p> : null}
      {views?.length === 0 ? <p className="text-sm text-muted">{empty}</p> : null}
      {views && views.length > 0 ? (
        <ul className="flex flex-col gap-3">
          {views.map((view) => {
            const current = view.query === currentQuery
            return (
              <li key={view.id} className="flex flex-col gap-2 border-b border-border pb-3 last:border-b-0">
                <div className="flex flex-wrap items-center gap-2">
                  <Link
                    to={view.query ? `/items?${view.query}` : '/items'}
                    aria-current={current ? 'page' : undefined}
                    className="font-medium break-words text-primary-strong underline underline-offset-2"
                  >
                    {view.name}
                  </Link>
                  {current ? <Badge tone="info">Showing</Badge> : null}
                  {view.scope === 'shared' && view.owner ? <span className="text-sm text-muted">by {view.owner.displayName}</span> : null}
                </div>
                {canDelete(view) ? (
                  <ConfirmDialog
                    triggerLabel={`Delete view “${view.name}”…`}
                    title={`Delete the view “${view.name}”?`}
                    confirmLabel="Yes, delete view"
                    pendingLabel="Deleting…"
                    intent="delete-view"
                    fields={{ id: view.id }}
                  >
                    {view.scope === 'shared' ? 'Nobody in your organisation will see it any more.' : 'Only the view goes; the items stay as they are.'}
                  </ConfirmDialog>
                ) : null}
              </li>
            )
          })}
        </ul>
      ) : null}
    </div>
  )
}

function SaveViewForm({ canShare, lastResult }: { canShare: boolean; lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm({
    id: 'save-view',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(SaveViewSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: SaveViewSchema }),
    defaultValue: { scope: 'personal' },
  })
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-3">
      <h2 className="text-base font-semibold text-text">Save this view</h2>
      <p className="text-sm text-muted">Keeps the filters, columns, grouping and layout shown now.</p>
      <CsrfInput />
      <FormError id={form.errorId} errors={form.errors} />
      <Field label="View name" inputProps={{ ...getInputProps(fields.name, { type: 'text' }), autoComplete: 'off' }} errors={fields.name.errors} />
      {canShare ? (
        <SelectField
          label="Who sees it"
          selectProps={getSelectProps(fields.scope)}
          options={[
            { value: 'personal', label: 'Only me' },
            { value: 'shared', label: 'Everyone in my organisation' },
          ]}
          errors={fields.scope.errors}
        />
      ) : (
        <input type="hidden" name="scope" value="personal" />
      )}
      <div>
        <SubmitButton intent="save-view" pendingLabel="Saving…">
          Save view
        </SubmitButton>
      </div>
    </Form>
  )
}
