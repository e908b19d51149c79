import { getFormProps, getInputProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { Card } from '~/components/ui/card'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SubmitButton } from '~/components/ui/submit-button'
import { ProfileSchema } from '~/lib/schemas/settings'
import type { UserSettings } from '~/lib/settings/settings'

/** Your account: the name others see, first and last name, position. */
export function ProfileCard({ user, lastResult }: { user: UserSettings; lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm({
    id: 'profile',
    lastResult,
    defaultValue: { displayName: user.displayName, firstName: user.firstName ?? '', lastName: user.lastName ?? '', position: user.position ?? '' },
    defaultNoValidate: false,
    constraint: getZodConstraint(ProfileSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ProfileSchema }),
  })
  return (
    <Card className="p-5" role="region" aria-label="Your account">
      <h2 className="mb-4 text-lg font-semibold">Your account</h2>
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <CsrfInput />
        <input type="hidden" name="intent" value="profile" />
        <FormError id={form.errorId} errors={form.errors} />
        <Field
          label="Display name"
          help="How others see you in projects, items and mails."
          inputProps={{ ...getInputProps(fields.displayName, { type: 'text' }), autoComplete: 'name' }}
          errors={fields.displayName.errors}
        />
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label="First name" inputProps={{ ...getInputProps(fields.firstName, { type: 'text' }), autoComplete: 'given-name' }} errors={fields.firstName.errors} />
          <Field label="Last name" inputProps={{ ...getInputProps(fields.lastName, { type: 'text' }), autoComplete: 'family-name' }} errors={fields.lastName.errors} />
        </div>
        <Field
          label="Position"
          help="Your role, e.g. Site manager."
          inputProps={{ ...getInputProps(fields.position, { type: 'text' }), autoComplete: 'organization-title' }}
          errors={fields.position.errors}
        />
        <SubmitButton intent="profile" pendingLabel="Saving…" className="self-start">
          Save details
        </SubmitButton>
      </Form>
    </Card>
  )
}
