import { getFormProps, getInputProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { firstInvalidField } from '~/components/reporting/report-action'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { FOLDER_NAME_MAX, FolderCreateSchema } from '~/lib/schemas/documents'

/** "New folder" of /documents (intent `create-folder`): a folder inside the one on screen. */
export function FolderCreateForm({ parentId, parentName, lastResult }: { parentId: string | null; parentName: string; lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm({
    id: 'folder-create',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(FolderCreateSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: FolderCreateSchema }),
  })
  const focus = firstInvalidField(lastResult, ['name'])
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
      <CsrfInput />
      {parentId ? <input type="hidden" name="parentId" value={parentId} /> : null}
      <FormError id={form.errorId} errors={form.errors} />
      <Field
        label="Folder name"
        help={`Inside ${parentName}. At most ${FOLDER_NAME_MAX} characters.`}
        inputProps={{ ...getInputProps(fields.name, { type: 'text' }), autoComplete: 'off', autoFocus: focus === 'name' }}
        errors={fields.name.errors}
      />
      <SubmitButton intent="create-folder" pendingLabel="Creating…" variant="secondary" className="self-start">
        Create folder
      </SubmitButton>
    </Form>
  )
}
