import { getFormProps, getInputProps, getSelectProps, getTextareaProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { firstInvalidField } from '~/components/reporting/report-action'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import { TextareaField } from '~/components/ui/textarea-field'
import type { DocumentSet } from '~/lib/doc-control/types'
import { PUBLISH_MESSAGE_MAX, SET_DESCRIPTION_MAX, SET_NAME_MAX, SetCreateSchema, SetDeriveSchema, SetPublishSchema } from '~/lib/schemas/sets'
import { PURPOSE_OPTIONS } from './transmittal-labels'
import { RevisionInput } from '~/components/ui/revision-input'

type LastResult = SubmissionResult<string[]> | undefined

/**
 * A set's name and description: "New set" on the list (intent `create`), "Edit details" on a draft
 * (intent `edit`). Both use SetCreateSchema (the name required; its revisions are not on the form).
 */
/** `revision`: when editing, the revision this form saves against (expectedRevision), the loaded one or the current one after a conflict. */
export function SetDetailsForm({ intent, set, revision, lastResult }: { intent: 'create' | 'edit'; set?: DocumentSet; revision?: number | undefined; lastResult: LastResult }) {
  const [form, fields] = useForm({
    id: `set-${intent}`,
    lastResult,
    defaultValue: set ? { name: set.name, description: set.description ?? '' } : undefined,
    defaultNoValidate: false,
    constraint: getZodConstraint(SetCreateSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: SetCreateSchema }),
  })
  const focus = firstInvalidField(lastResult, ['name', 'description'])
  return (
    <Form method="post" {...getFormProps(form)} aria-label={intent === 'create' ? 'New set' : 'Edit details'} className="flex max-w-2xl flex-col gap-4">
      <CsrfInput />
      {intent === 'edit' && set ? <RevisionInput revision={revision ?? set.revision} /> : null}
      <FormError id={form.errorId} errors={form.errors} />
      <Field
        label="Name"
        help={intent === 'create' ? 'For example “Tender issue” or “For construction, package 3”.' : undefined}
        inputProps={{ ...getInputProps(fields.name, { type: 'text' }), maxLength: SET_NAME_MAX, autoComplete: 'off', autoFocus: focus === 'name' }}
        errors={fields.name.errors}
      />
      <TextareaField
        label="Description (optional)"
        textareaProps={{ ...getTextareaProps(fields.description), maxLength: SET_DESCRIPTION_MAX, rows: 3, autoFocus: focus === 'description' }}
        errors={fields.description.errors}
      />
      <SubmitButton intent={intent} variant={intent === 'create' ? 'primary' : 'secondary'} pendingLabel="Saving…" className="self-start">
        {intent === 'create' ? 'Create set' : 'Save details'}
      </SubmitButton>
    </Form>
  )
}

/**
 * Publishing (the set publish body, spec §3: a message and the purpose), behind a disclosure that
 * says what it does first: it freezes the set and stamps its revisions Published, for good. Open
 * again when it came back with a problem, so the reloaded page (without JavaScript) shows it.
 */
export function SetPublishForm({ set, lastResult }: { set: DocumentSet; lastResult: LastResult }) {
  const [form, fields] = useForm({
    id: 'set-publish',
    lastResult,
    defaultValue: { purpose: 'for-construction' },
    defaultNoValidate: false,
    constraint: getZodConstraint(SetPublishSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: SetPublishSchema }),
  })
  const focus = firstInvalidField(lastResult, ['message', 'purpose'])
  const count = set.revisions.length
  return (
    <details open={lastResult !== undefined} className="group">
      <summary className="inline-flex min-h-11 cursor-pointer list-none items-center rounded-md border border-transparent bg-primary px-4 text-sm font-medium text-white hover:bg-primary-strong [&::-webkit-details-marker]:hidden">
        Publish…
      </summary>
      <Form method="post" {...getFormProps(form)} aria-label="Publish set" className="mt-3 flex max-w-2xl flex-col gap-4 rounded-lg border-2 border-primary bg-surface p-4">
        <CsrfInput />
        <p className="font-semibold text-text">Publish “{set.name}”?</p>
        <p className="text-sm text-muted">
          Publishing freezes the set: its {count === 1 ? 'revision is' : `${count} revisions are`} stamped Published, with your name and the time, and the set can no longer change.
          A new set can be derived from it later.
        </p>
        <FormError id={form.errorId} errors={form.errors} />
        <SelectField label="Purpose" selectProps={{ ...getSelectProps(fields.purpose), autoFocus: focus === 'purpose' }} options={PURPOSE_OPTIONS} errors={fields.purpose.errors} />
        <TextareaField
          label="Message"
          help="What this issue is and who it is for; it stays with the set."
          textareaProps={{ ...getTextareaProps(fields.message), maxLength: PUBLISH_MESSAGE_MAX, rows: 4, autoFocus: focus === 'message' }}
          errors={fields.message.errors}
        />
        <SubmitButton intent="publish" pendingLabel="Publishing…" className="self-start">
          Yes, publish and freeze
        </SubmitButton>
      </Form>
    </details>
  )
}

/** "Derive new set": a new draft with the same revisions, to change and publish again. */
export function SetDeriveForm({ set, lastResult }: { set: DocumentSet; lastResult: LastResult }) {
  const [form, fields] = useForm({
    id: 'set-derive',
    lastResult,
    defaultValue: { name: `${set.name} (next)`.slice(0, SET_NAME_MAX) },
    defaultNoValidate: false,
    constraint: getZodConstraint(SetDeriveSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: SetDeriveSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} aria-label="Derive new set" className="flex max-w-2xl flex-col gap-3 sm:flex-row sm:items-end">
      <CsrfInput />
      <FormError id={form.errorId} errors={form.errors} />
      <Field
        label="Name of the new set"
        className="sm:min-w-80"
        inputProps={{ ...getInputProps(fields.name, { type: 'text' }), maxLength: SET_NAME_MAX, autoComplete: 'off', autoFocus: Boolean(fields.name.errors?.length) }}
        errors={fields.name.errors}
      />
      <SubmitButton intent="derive" variant="secondary" pendingLabel="Deriving…">
        Derive new set
      </SubmitButton>
    </Form>
  )
}
