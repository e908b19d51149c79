import { getFormProps, getInputProps, getSelectProps, getTextareaProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import { TextareaField } from '~/components/ui/textarea-field'
import { PRIORITY_LABELS } from '~/lib/reporting/labels'
import { type Item, ITEM_PRIORITIES, type Member, type PackageInfo } from '~/lib/reporting/types'
import { ItemFieldsSchema } from '~/lib/schemas/reporting-items'
import { RevisionInput } from '~/components/ui/revision-input'

/**
 * The item's fields. An emptied optional field clears it. Packages are those usable on the item's
 * project, plus the one it has if that was switched off since.
 */
export function ItemEditForm({
  item,
  revision,
  members,
  packages,
  lastResult,
}: {
  item: Item
  /** The revision to save against: the item's, or the one a refused save's answer named. */
  revision: number
  members: readonly Member[]
  packages: readonly PackageInfo[]
  lastResult: SubmissionResult<string[]> | undefined
}) {
  const [form, fields] = useForm({
    id: 'edit-item',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(ItemFieldsSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ItemFieldsSchema }),
    defaultValue: {
      title: item.title,
      description: item.description ?? '',
      priority: item.priority,
      assigneeUserId: item.assignee?.id ?? '',
      packageKey: item.packageKey ?? '',
      location: item.location ?? '',
      dueDate: item.dueDate ?? '',
    },
  })
  const assignees = members.map((m) => ({ value: m.userId, label: m.displayName }))
  // A former member stays selectable as the current assignee, so saving other fields keeps them.
  if (item.assignee && !assignees.some((a) => a.value === item.assignee?.id)) assignees.push({ value: item.assignee.id, label: item.assignee.displayName })
  const packageOptions = packages
    .filter((p) => p.active || p.key === item.packageKey)
    .map((p) => ({ value: p.key, label: p.active ? p.name : `${p.name} (no longer used on this project)` }))
  if (item.packageKey && !packageOptions.some((p) => p.value === item.packageKey)) packageOptions.push({ value: item.packageKey, label: item.packageKey })
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
      <CsrfInput />
      {/* The revision this form shows; a save after someone else's change is refused (409) with the typed values kept. */}
      <RevisionInput revision={revision} />
      <FormError id={form.errorId} errors={form.errors} />
      <Field label="Title" inputProps={{ ...getInputProps(fields.title, { type: 'text' }), autoComplete: 'off' }} errors={fields.title.errors} />
      <TextareaField label="Description" textareaProps={{ ...getTextareaProps(fields.description), rows: 4 }} errors={fields.description.errors} />
      <SelectField
        label="Priority"
        selectProps={getSelectProps(fields.priority)}
        options={ITEM_PRIORITIES.map((p) => ({ value: p, label: PRIORITY_LABELS[p] }))}
        errors={fields.priority.errors}
      />
      <SelectField label="Assignee" selectProps={getSelectProps(fields.assigneeUserId)} placeholder="Nobody yet" options={assignees} errors={fields.assigneeUserId.errors} />
      <SelectField label="Package" selectProps={getSelectProps(fields.packageKey)} placeholder="None" options={packageOptions} errors={fields.packageKey.errors} />
      <Field label="Location" help="Area, level or room." inputProps={{ ...getInputProps(fields.location, { type: 'text' }), autoComplete: 'off' }} errors={fields.location.errors} />
      <Field label="Due date" inputProps={getInputProps(fields.dueDate, { type: 'date' })} errors={fields.dueDate.errors} />
      <div>
        <SubmitButton intent="edit" pendingLabel="Saving…">
          Save changes
        </SubmitButton>
      </div>
    </Form>
  )
}
