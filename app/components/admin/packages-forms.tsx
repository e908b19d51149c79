import { type SubmissionResult, getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { ButtonLink } from '~/components/ui/button-link'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { type AdminPackage, PACKAGE_NAME_MAX } from '~/lib/admin/packages'
import { AddPackageFormSchema, RenamePackageFormSchema } from '~/lib/schemas/admin-packages'
import { RevisionInput } from '~/components/ui/revision-input'

/** The add and rename forms of /admin/packages: plain POSTs (intents `add` and `rename`), validated natively without JavaScript. */

export function AddPackageForm({ lastResult }: { lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm({
    id: 'package-add',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(AddPackageFormSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: AddPackageFormSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} aria-label="Add a package" className="flex flex-col gap-4">
      <CsrfInput />
      <FormError id={form.errorId} errors={form.errors} />
      <div className="grid gap-4 sm:grid-cols-3">
        <Field
          label="Name"
          help={`What people see, at most ${PACKAGE_NAME_MAX} characters.`}
          inputProps={{ ...getInputProps(fields.name, { type: 'text' }), autoComplete: 'off' }}
          errors={fields.name.errors}
        />
        <Field
          label="Key"
          help="Lower-case letters, digits and hyphens, e.g. glazing. Items store it: it cannot change later."
          inputProps={{ ...getInputProps(fields.key, { type: 'text' }), autoComplete: 'off', spellCheck: false, autoCapitalize: 'none' }}
          errors={fields.key.errors}
        />
        <Field
          label="Order (optional)"
          help="Lower comes first; empty puts it last."
          inputProps={{ ...getInputProps(fields.sortOrder, { type: 'number' }), inputMode: 'numeric' }}
          errors={fields.sortOrder.errors}
        />
      </div>
      <div>
        <SubmitButton intent="add" pendingLabel="Adding…">
          Add package
        </SubmitButton>
      </div>
    </Form>
  )
}

/** `revision`: the package list's revision this form saves against (expectedRevision), the loaded one or the current one after a conflict. */
export function RenamePackageForm({
  pkg,
  revision,
  lastResult,
  cancelTo,
}: {
  pkg: AdminPackage
  revision: number
  lastResult: SubmissionResult<string[]> | undefined
  cancelTo: string
}) {
  const [form, fields] = useForm({
    id: `package-rename-${pkg.key}`,
    lastResult,
    defaultValue: { key: pkg.key, name: pkg.name },
    defaultNoValidate: false,
    constraint: getZodConstraint(RenamePackageFormSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: RenamePackageFormSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} aria-label={`Rename ${pkg.name}`} className="flex flex-col gap-4">
      <CsrfInput />
      <input {...getInputProps(fields.key, { type: 'hidden' })} />
      <RevisionInput revision={revision} />
      <FormError id={form.errorId} errors={[...(form.errors ?? []), ...(fields.key.errors ?? [])]} />
      <Field
        label="New name"
        help={`The key stays ${pkg.key}; items show the new name.`}
        inputProps={{ ...getInputProps(fields.name, { type: 'text' }), autoComplete: 'off', autoFocus: true }}
        errors={fields.name.errors}
        className="max-w-md"
      />
      <div className="flex flex-wrap gap-2">
        <SubmitButton intent="rename" pendingLabel="Saving…">
          Save name
        </SubmitButton>
        <ButtonLink to={cancelTo} variant="secondary">
          Cancel
        </ButtonLink>
      </div>
    </Form>
  )
}
