import { type SubmissionResult, getFormProps, getInputProps, getSelectProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { firstInvalidField } from '~/components/reporting/report-action'
import { CheckboxField } from '~/components/ui/checkbox-field'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import { type AdminUser, ROLE_OPTIONS } from '~/lib/admin/users'
import { AddMemberSchema, RoleFormSchema, SetPasswordSchema, UserEditFormSchema } from '~/lib/schemas/admin-users'
import { RevisionInput } from '~/components/ui/revision-input'

/** The forms of Administration › Users (docs/admin/users.md). Each posts with its own `intent` and works without JavaScript. */

type Result = SubmissionResult<string[]> | undefined

/** "Add member": a person who already has an account, by e-mail, with a role. */
export function AddMemberForm({ organisationId, lastResult }: { organisationId: string; lastResult: Result }) {
  const [form, fields] = useForm({
    id: 'add-member',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(AddMemberSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: AddMemberSchema }),
  })
  const focus = firstInvalidField(lastResult, ['email', 'roleKey'])
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
      <CsrfInput />
      <input type="hidden" name="organisationId" value={organisationId} />
      <FormError id={form.errorId} errors={form.errors} />
      <Field
        label="E-mail address"
        help="They need a Site Portal account. No account yet? Send them an invite."
        inputProps={{ ...getInputProps(fields.email, { type: 'email' }), autoComplete: 'off', spellCheck: false, autoFocus: focus === 'email' }}
        errors={fields.email.errors}
      />
      <SelectField
        label="Role"
        selectProps={{ ...getSelectProps(fields.roleKey), autoFocus: focus === 'roleKey' }}
        options={ROLE_OPTIONS}
        placeholder="Choose a role"
        errors={fields.roleKey.errors}
      />
      <SubmitButton intent="add-member" pendingLabel="Adding…" className="self-start">
        Add member
      </SubmitButton>
    </Form>
  )
}

/** Names, position and MFA enforcement: the person's own, seen by every organisation they belong to. */
/** `revision`: the person's revision this form saves against (expectedRevision), the loaded one or the current one after a conflict. */
export function UserEditForm({ user, revision, lastResult }: { user: AdminUser; revision: number; lastResult: Result }) {
  const [form, fields] = useForm({
    id: `user-edit-${user.id}`,
    lastResult,
    defaultValue: {
      displayName: user.displayName,
      firstName: user.firstName ?? '',
      lastName: user.lastName ?? '',
      position: user.position ?? '',
      isMfaEnforced: user.isMfaEnforced ? 'on' : undefined,
    },
    defaultNoValidate: false,
    constraint: getZodConstraint(UserEditFormSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: UserEditFormSchema }),
  })
  const focus = firstInvalidField(lastResult, ['displayName', 'firstName', 'lastName', 'position'])
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
      <CsrfInput />
      <RevisionInput revision={revision} />
      <FormError id={form.errorId} errors={form.errors} />
      <Field
        label="Display name"
        inputProps={{ ...getInputProps(fields.displayName, { type: 'text' }), autoComplete: 'off', autoFocus: focus === 'displayName' }}
        errors={fields.displayName.errors}
      />
      <div className="grid gap-4 sm:grid-cols-2">
        <Field
          label="First name (optional)"
          inputProps={{ ...getInputProps(fields.firstName, { type: 'text' }), autoComplete: 'off', autoFocus: focus === 'firstName' }}
          errors={fields.firstName.errors}
        />
        <Field
          label="Last name (optional)"
          inputProps={{ ...getInputProps(fields.lastName, { type: 'text' }), autoComplete: 'off', autoFocus: focus === 'lastName' }}
          errors={fields.lastName.errors}
        />
      </div>
      <Field
        label="Position (optional)"
        inputProps={{ ...getInputProps(fields.position, { type: 'text' }), autoComplete: 'off', autoFocus: focus === 'position' }}
        errors={fields.position.errors}
      />
      <CheckboxField
        label="Require an authentication code at every sign-in"
        help="Applies to this person in every organisation they belong to."
        inputProps={getInputProps(fields.isMfaEnforced, { type: 'checkbox' })}
        errors={fields.isMfaEnforced.errors}
      />
      <SubmitButton intent="edit" pendingLabel="Saving…" className="self-start">
        Save details
      </SubmitButton>
    </Form>
  )
}

/** The role in this organisation. */
export function RoleForm({ user, roleKey, revision, lastResult }: { user: AdminUser; roleKey: string; revision: number; lastResult: Result }) {
  const [form, fields] = useForm({
    id: `user-role-${user.id}`,
    lastResult,
    defaultValue: { roleKey },
    constraint: getZodConstraint(RoleFormSchema),
    onValidate: ({ formData }) => parseWithZod(formData, { schema: RoleFormSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4 sm:flex-row sm:items-end">
      <CsrfInput />
      <RevisionInput revision={revision} />
      <FormError id={form.errorId} errors={form.errors} />
      <SelectField label="Role in this organisation" selectProps={getSelectProps(fields.roleKey)} options={ROLE_OPTIONS} errors={fields.roleKey.errors} />
      <SubmitButton intent="role" pendingLabel="Changing…" variant="secondary">
        Change role
      </SubmitButton>
    </Form>
  )
}

/** Sets the password directly; the person's other sessions end. The password never comes back in the page. */
export function SetPasswordForm({ user, lastResult }: { user: AdminUser; lastResult: Result }) {
  const [form, fields] = useForm({
    id: `user-password-${user.id}`,
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(SetPasswordSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: SetPasswordSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
      <CsrfInput />
      <FormError id={form.errorId} errors={form.errors} />
      <Field
        label="New password"
        help="At least 8 characters. Tell the person by a safe channel; they are signed out of their other sessions."
        inputProps={{ ...getInputProps(fields.password, { type: 'password' }), autoComplete: 'new-password', autoFocus: (fields.password.errors?.length ?? 0) > 0 }}
        errors={fields.password.errors}
      />
      <SubmitButton intent="set-password" pendingLabel="Setting…" variant="secondary" className="self-start">
        Set password
      </SubmitButton>
    </Form>
  )
}
