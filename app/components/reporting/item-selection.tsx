import type { SubmissionResult } from '@conform-to/react'
import { type ReactNode, useRef } from 'react'
import { Form, useLocation } from 'react-router'
import { Banner } from '~/components/ui/banner'
import { ButtonLink } from '~/components/ui/button-link'
import { cx } from '~/components/ui/class-names'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import { COMPARE_MAX, COMPARE_MIN } from '~/lib/reporting/items-query'
import type { Item, Member, PackageInfo } from '~/lib/reporting/types'

export const SELECTION_FORM_ID = 'item-selection'

export type ItemSelectionFormProps = {
  /** Whether the user may change items (bulk actions); anyone may compare. */
  canWrite: boolean
  members: readonly Member[]
  packages: readonly PackageInfo[]
  lastResult: SubmissionResult<string[]> | undefined
  /** The list, with a checkbox per item named `ids`. */
  children: ReactNode
}

/**
 * The selection form around the list: one action for the checked items (assign, package, request
 * close, delete) or a side-by-side comparison. Deleting asks first: with script a native
 * confirmation, without it a second step the action answers with (ItemDeleteConfirmation).
 */
export function ItemSelectionForm({ canWrite, members, packages, lastResult, children }: ItemSelectionFormProps) {
  const confirmed = useRef<HTMLInputElement>(null)
  // No form library here, so the items screen's first load is without one (issue 37,
  // docs/performance.md): the action checks the selection (ItemSelectionSchema), and its reply's
  // errors and the typed note come back through lastResult, with JavaScript or without.
  const errors = lastResult?.error ?? {}
  const formErrors = [...(errors[''] ?? []), ...(errors.ids ?? [])]
  const operationErrors = errors.operation ?? undefined
  const bodyErrors = errors.body ?? undefined
  const typed = (lastResult?.initialValue ?? {}) as { operation?: unknown; body?: unknown }
  const hasErrors = formErrors.length > 0 || Boolean(operationErrors?.length) || Boolean(bodyErrors?.length)
  const errorId = `${SELECTION_FORM_ID}-form-error`
  return (
    <Form
      method="post"
      id={SELECTION_FORM_ID}
      aria-invalid={formErrors.length > 0 || undefined}
      aria-describedby={formErrors.length > 0 ? errorId : undefined}
      onSubmit={(event) => {
        const submitter = (event.nativeEvent as SubmitEvent).submitter
        const values = new FormData(event.currentTarget)
        if (submitter?.getAttribute('value') !== 'bulk' || values.get('operation') !== 'delete') return
        const count = values.getAll('ids').length
        if (!window.confirm(`Delete ${count === 1 ? 'the selected item' : `${count} items`}? This cannot be undone.`)) {
          event.preventDefault()
          return
        }
        if (confirmed.current) confirmed.current.value = 'yes'
      }}
      className="group/selection flex flex-col gap-4"
    >
      <CsrfInput />
      <input ref={confirmed} type="hidden" name="confirmed" defaultValue="" />
      {children}
      <p className="text-sm text-muted group-has-[input:checked]/selection:hidden">
        Tick items in the list to {canWrite ? 'act on them, or to ' : ''}compare {COMPARE_MIN} to {COMPARE_MAX} of them side by side.
      </p>
      {/*
        The actions show once an item is ticked (CSS :has, so without JavaScript too), or when the
        last submission came back with an error; they stay in view at the bottom of the screen,
        above a phone's navigation bar, while the list scrolls. The list itself starts on the first screen.
      */}
      <div
        className={cx(
          'sticky bottom-16 z-10 flex-col gap-3 rounded-lg border border-border bg-surface p-4 shadow-lg sm:bottom-4',
          hasErrors ? 'flex' : 'hidden group-has-[input:checked]/selection:flex',
        )}
      >
        <h2 className="text-sm font-semibold text-text">With the ticked items</h2>
        <FormError id={errorId} errors={formErrors} />
        {canWrite ? (
          <div className="grid gap-3 md:grid-cols-2">
            <SelectField
              label="With the selected items"
              selectProps={{ id: `${SELECTION_FORM_ID}-operation`, name: 'operation', defaultValue: typeof typed.operation === 'string' ? typed.operation : '' }}
              placeholder="Choose an action"
              errors={operationErrors}
            >
              <optgroup label="Assign to">
                {members.map((member) => (
                  <option key={member.userId} value={`assign:${member.userId}`}>
                    Assign to {member.displayName}
                  </option>
                ))}
              </optgroup>
              <optgroup label="Change package to">
                {packages
                  .filter((p) => p.active)
                  .map((p) => (
                    <option key={p.key} value={`package:${p.key}`}>
                      Change package to {p.name}
                    </option>
                  ))}
              </optgroup>
              <optgroup label="Status">
                <option value="request-close">Request close</option>
              </optgroup>
              <optgroup label="Remove">
                <option value="delete">Delete</option>
              </optgroup>
            </SelectField>
            <Field
              label="Note for a close request"
              help="Goes into each item's thread."
              inputProps={{ id: `${SELECTION_FORM_ID}-body`, name: 'body', type: 'text', defaultValue: typeof typed.body === 'string' ? typed.body : '' }}
              errors={bodyErrors}
            />
          </div>
        ) : null}
        <div className="flex flex-wrap gap-2">
          {canWrite ? (
            <SubmitButton intent="bulk" pendingLabel="Applying…">
              Apply to selected
            </SubmitButton>
          ) : null}
          <SubmitButton intent="compare" variant="secondary" formNoValidate pendingLabel="Opening…">
            Compare selected
          </SubmitButton>
        </div>
      </div>
    </Form>
  )
}

/**
 * Without script, "Delete" comes back here first: the items, and a form that deletes them.
 */
export function ItemDeleteConfirmation({ ids, items }: { ids: readonly string[]; items: readonly Item[] }) {
  const location = useLocation()
  const named = ids.map((id) => items.find((item) => item.id === id))
  const count = ids.length
  return (
    <Banner tone="warning" title={count === 1 ? 'Delete the selected item?' : `Delete ${count} items?`} className="mb-4">
      <p>This cannot be undone. Their activity stays on record.</p>
      <ul className="mt-2 list-disc pl-5">
        {named.map((item, index) => (
          <li key={ids[index]}>{item ? `#${item.number} ${item.title}` : 'An item not on this page'}</li>
        ))}
      </ul>
      <Form method="post" className="mt-3 flex flex-wrap gap-2">
        <CsrfInput />
        {ids.map((id) => (
          <input key={id} type="hidden" name="ids" value={id} />
        ))}
        <input type="hidden" name="operation" value="delete" />
        <input type="hidden" name="confirmed" value="yes" />
        <SubmitButton intent="bulk" variant="critical" pendingLabel="Deleting…">
          {count === 1 ? 'Yes, delete the item' : `Yes, delete ${count} items`}
        </SubmitButton>
        <ButtonLink to={`${location.pathname}${location.search}`} variant="secondary">
          Cancel
        </ButtonLink>
      </Form>
    </Banner>
  )
}

/** Why one item of a bulk action was not changed, from the problem code the API gave it. */
const BULK_ERRORS: Record<string, string> = {
  KR_NOT_FOUND: 'it no longer exists',
  KR_FORBIDDEN: 'you may not change it',
  KR_VALIDATION: 'the change does not apply to it',
  KR_ARCHIVED: 'its report or project is archived',
  KR_ITEM_CLOSED: 'it is closed',
  KR_ITEM_STATE: 'its status does not allow it',
}

/**
 * The flash after a bulk action, e.g. "3 items assigned to Alex Admin." or "2 of 3 items
 * deleted. Not changed: #14 (you may not change it)."
 */
export function bulkSummary(
  done: string,
  results: ReadonlyArray<{ id: string; ok: boolean; error?: string | undefined }>,
  numberOf: (id: string) => number | undefined,
): { tone: 'success' | 'warning' | 'critical'; message: string } {
  const ok = results.filter((r) => r.ok).length
  const failed = results.filter((r) => !r.ok)
  const items = (n: number) => (n === 1 ? '1 item' : `${n} items`)
  if (failed.length === 0) return { tone: 'success', message: `${items(ok)} ${done}.` }
  const reasons = failed
    .map((r) => {
      const number = numberOf(r.id)
      return `${number === undefined ? 'an item' : `#${number}`} (${BULK_ERRORS[r.error ?? ''] ?? 'it could not be changed'})`
    })
    .join(', ')
  if (ok === 0) return { tone: 'critical', message: `No items were changed. Not changed: ${reasons}.` }
  return { tone: 'warning', message: `${ok} of ${items(results.length)} ${done}. Not changed: ${reasons}.` }
}
