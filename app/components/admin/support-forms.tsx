import { getFormProps, getInputProps, getSelectProps, getTextareaProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import { TextareaField } from '~/components/ui/textarea-field'
import {
  SUPPORT_ADMIN_STATUS_LABELS,
  SUPPORT_ATTACHMENT_ACCEPT,
  SUPPORT_ATTACHMENT_MAX_MB,
  SUPPORT_BODY_MAX,
  SUPPORT_STATUSES,
  SUPPORT_SUBJECT_MAX,
  type SupportAssignee,
  type SupportStatus,
} from '~/lib/admin/support'
import { NewTicketSchema, SupportReplySchema, TicketChangeFormSchema } from '~/lib/schemas/admin-support'
import { RevisionInput } from '~/components/ui/revision-input'

/**
 * The support screens' forms (docs/admin/support.md "Screens"). Each posts to its route's action
 * with an `intent`; without JavaScript they work the same, files going as multipart. What the
 * backend refuses comes back next to its field, with what was typed kept.
 */

const FILE_HELP = `Optional. Images, PDF, text files or ZIP archives, up to ${SUPPORT_ATTACHMENT_MAX_MB} MB.`

function FileInput({
  errors,
  label = 'Attachment',
  multiple = true,
  help = FILE_HELP,
}: {
  errors?: readonly string[] | null | undefined
  label?: string
  multiple?: boolean
  help?: string
}) {
  return <Field label={label} help={help} errors={errors ?? null} inputProps={{ id: 'support-file', name: 'file', type: 'file', accept: SUPPORT_ATTACHMENT_ACCEPT, multiple }} />
}

/** Settings › Support: "New ticket" (intent `open`): subject, what is wrong, and files. */
export function NewTicketForm({ lastResult, fileErrors }: { lastResult: SubmissionResult<string[]> | undefined; fileErrors?: string[] | undefined }) {
  const [form, fields] = useForm({
    id: 'support-new',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(NewTicketSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: NewTicketSchema }),
  })
  return (
    <Form method="post" encType="multipart/form-data" {...getFormProps(form)} className="flex flex-col gap-4">
      <CsrfInput />
      <FormError id={form.errorId} errors={form.errors} />
      <Field label="Subject" help={`At most ${SUPPORT_SUBJECT_MAX} characters.`} inputProps={getInputProps(fields.subject, { type: 'text' })} errors={fields.subject.errors} />
      <TextareaField
        label="What do you need help with?"
        help="Say what you did, what you expected and what happened instead."
        textareaProps={{ ...getTextareaProps(fields.body), rows: 6, maxLength: SUPPORT_BODY_MAX }}
        errors={fields.body.errors}
      />
      <FileInput errors={fileErrors} />
      <div>
        <SubmitButton intent="open" pendingLabel="Sending…">
          Open ticket
        </SubmitButton>
      </div>
    </Form>
  )
}

/** A reply on the thread (intent `reply`), on either side. */
export function ReplyForm({ lastResult, label, disabledReason }: { lastResult: SubmissionResult<string[]> | undefined; label: string; disabledReason?: string | undefined }) {
  const [form, fields] = useForm({
    id: 'support-reply',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(SupportReplySchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: SupportReplySchema }),
  })
  if (disabledReason) return <p className="text-sm text-muted">{disabledReason}</p>
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
      <CsrfInput />
      <FormError id={form.errorId} errors={form.errors} />
      <TextareaField label={label} textareaProps={{ ...getTextareaProps(fields.body), rows: 5, maxLength: SUPPORT_BODY_MAX }} errors={fields.body.errors} />
      <div>
        <SubmitButton intent="reply" pendingLabel="Sending…">
          Send reply
        </SubmitButton>
      </div>
    </Form>
  )
}

/** Files added to a ticket (intent `attach`). */
export function AttachForm({ fileErrors }: { fileErrors?: string[] | undefined }) {
  return (
    <Form method="post" encType="multipart/form-data" aria-label="Attach files" className="flex flex-col gap-4">
      <CsrfInput />
      <FileInput errors={fileErrors} label="Files to attach" help={`Images, PDF, text files or ZIP archives, up to ${SUPPORT_ATTACHMENT_MAX_MB} MB.`} />
      <div>
        <SubmitButton intent="attach" variant="secondary" pendingLabel="Uploading…">
          Attach
        </SubmitButton>
      </div>
    </Form>
  )
}

/** The admin side's status and assignee (intent `change`). */
export function TicketChangeForm({
  lastResult,
  revision,
  status,
  assigneeId,
  assignees,
}: {
  lastResult: SubmissionResult<string[]> | undefined
  /** The ticket's revision this form saves against (expectedRevision): the loaded one, or the current one after a conflict. */
  revision: number
  status: SupportStatus
  assigneeId: string | null
  assignees: readonly SupportAssignee[]
}) {
  const [form, fields] = useForm({
    id: 'support-change',
    lastResult,
    defaultValue: { status, assigneeId: assigneeId ?? '' },
    defaultNoValidate: false,
    constraint: getZodConstraint(TicketChangeFormSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: TicketChangeFormSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
      <CsrfInput />
      <RevisionInput revision={revision} />
      <FormError id={form.errorId} errors={form.errors} />
      <SelectField
        label="Status"
        selectProps={getSelectProps(fields.status)}
        options={SUPPORT_STATUSES.map((value) => ({ value, label: SUPPORT_ADMIN_STATUS_LABELS[value] }))}
        errors={fields.status.errors}
      />
      <SelectField
        label="Assignee"
        selectProps={getSelectProps(fields.assigneeId)}
        options={[{ value: '', label: 'Nobody' }, ...assignees.map((a) => ({ value: a.id, label: a.displayName }))]}
        errors={fields.assigneeId.errors}
      />
      <div>
        <SubmitButton intent="change" pendingLabel="Saving…">
          Save
        </SubmitButton>
      </div>
    </Form>
  )
}
