import { type SubmissionResult, getFormProps, getInputProps, getSelectProps, getTextareaProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { firstInvalidField } from '~/components/reporting/report-action'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import { TextareaField } from '~/components/ui/textarea-field'
import { PRIORITY_LABELS } from '~/lib/reporting/labels'
import { ITEM_PRIORITIES, type Member, type PackageInfo } from '~/lib/reporting/types'
import { DESCRIPTION_MAX, ItemCreateSchema } from '~/lib/schemas/reporting-projects'

export type ReportAddItemFormProps = {
  /** The organisation's active members: who an item can be assigned to. */
  members: readonly Member[]
  /** The packages usable on the report's project (active ones only). */
  packages: readonly PackageInfo[]
  lastResult: SubmissionResult<string[]> | undefined
}

/** The fields in the order they are on screen. */
const FIELD_ORDER = ['title', 'description', 'priority', 'assigneeUserId', 'packageKey', 'dueDate', 'location'] as const

/** The "Add item" form of a report's page (intent `add-item`). Only the title is required. */
export function ReportAddItemForm({ members, packages, lastResult }: ReportAddItemFormProps) {
  const [form, fields] = useForm({
    id: 'report-add-item',
    lastResult,
    defaultValue: { priority: 'medium' },
    defaultNoValidate: false,
    constraint: getZodConstraint(ItemCreateSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ItemCreateSchema }),
  })
  const focus = firstInvalidField(lastResult, FIELD_ORDER)
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
      <CsrfInput />
      <FormError id={form.errorId} errors={form.errors} />
      <Field
        label="Title"
        help="What is wrong, in a few words, e.g. “Cracked tile at lift lobby”."
        inputProps={{ ...getInputProps(fields.title, { type: 'text' }), autoComplete: 'off', autoFocus: focus === 'title' }}
        errors={fields.title.errors}
      />
      <TextareaField
        label="Description (optional)"
        help={`What needs doing, and anything that helps find it. At most ${DESCRIPTION_MAX} characters.`}
        textareaProps={{ ...getTextareaProps(fields.description), rows: 3, autoFocus: focus === 'description' }}
        errors={fields.description.errors}
      />
      <div className="grid gap-4 sm:grid-cols-2">
        <SelectField
          label="Priority"
          selectProps={{ ...getSelectProps(fields.priority), autoFocus: focus === 'priority' }}
          options={ITEM_PRIORITIES.map((priority) => ({ value: priority, label: PRIORITY_LABELS[priority] }))}
          errors={fields.priority.errors}
        />
        <SelectField
          label="Assignee (optional)"
          placeholder="Nobody yet"
          selectProps={{ ...getSelectProps(fields.assigneeUserId), autoFocus: focus === 'assigneeUserId' }}
          options={members.map((member) => ({ value: member.userId, label: member.displayName }))}
          errors={fields.assigneeUserId.errors}
        />
        <SelectField
          label="Package (optional)"
          placeholder="No package"
          selectProps={{ ...getSelectProps(fields.packageKey), autoFocus: focus === 'packageKey' }}
          options={packages.map((pkg) => ({ value: pkg.key, label: pkg.name }))}
          errors={fields.packageKey.errors}
        />
        <Field
          label="Due date (optional)"
          inputProps={{ ...getInputProps(fields.dueDate, { type: 'date' }), autoFocus: focus === 'dueDate' }}
          errors={fields.dueDate.errors}
        />
      </div>
      <Field
        label="Location (optional)"
        help="Area, level or room, e.g. “Level 3, grid C4”."
        inputProps={{ ...getInputProps(fields.location, { type: 'text' }), autoComplete: 'off', autoFocus: focus === 'location' }}
        errors={fields.location.errors}
      />
      <SubmitButton intent="add-item" pendingLabel="Adding…" className="self-start">
        Add item
      </SubmitButton>
    </Form>
  )
}
