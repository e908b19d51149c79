import { type SubmissionResult, getFormProps, getInputProps, getSelectProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { firstInvalidField } from '~/components/reporting/report-action'
import { ButtonLink } from '~/components/ui/button-link'
import { CsrfInput } from '~/components/ui/csrf-input'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import { PARTY_ROLES, type Party } from '~/lib/doc-control/types'
import { PARTY_NAME_MAX, PARTY_ROLE_LABELS, PartyEditSchema, PartySchema } from '~/lib/schemas/doc-control'
import { RevisionInput } from '~/components/ui/revision-input'

export type PartyFormProps = {
  /** The party being changed (intent `update-party`); absent: a new one (intent `create-party`). */
  party?: Party | undefined
  /** The lead appointed parties a task team may work for. */
  leads: ReadonlyArray<Pick<Party, 'id' | 'name'>>
  /** When changing: the revision this form saves against (expectedRevision), the loaded one or the current one after a conflict. */
  revision?: number | undefined
  lastResult: SubmissionResult<string[]> | undefined
  /** Where Cancel goes when editing (the screen without `?edit=`). */
  cancelTo?: string | undefined
}

/** Adds or changes a party of the project: its name, originator code, role and, for a task team, its lead. */
export function PartyForm({ party, leads, revision, lastResult, cancelTo }: PartyFormProps) {
  const editing = party !== undefined
  const schema = editing ? PartyEditSchema : PartySchema
  const defaultValue: { name?: string; code?: string; role?: string; parentId?: string } = editing
    ? { name: party.name, code: party.code ?? '', role: party.role, parentId: party.parentId ?? '' }
    : { role: 'lead-appointed' }
  const [form, fields] = useForm({
    id: editing ? `party-edit-${party.id}` : 'party-create',
    lastResult,
    defaultValue,
    defaultNoValidate: false,
    constraint: getZodConstraint(schema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  })
  const focus = firstInvalidField(lastResult, ['name', 'code', 'role', 'parentId'])
  const choices = leads.filter((lead) => lead.id !== party?.id)
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
      <CsrfInput />
      {editing ? <input type="hidden" name="partyId" value={party.id} /> : null}
      {editing ? <RevisionInput revision={revision ?? party.revision} /> : null}
      <FormError id={form.errorId} errors={form.errors} />
      <div className="grid gap-4 sm:grid-cols-2">
        <Field
          label="Name"
          help={`The organisation or team, at most ${PARTY_NAME_MAX} characters.`}
          inputProps={{ ...getInputProps(fields.name, { type: 'text' }), autoComplete: 'organization', autoFocus: editing || focus === 'name' }}
          errors={fields.name.errors}
        />
        <Field
          label="Originator code (optional)"
          help="The Originator field of its document numbers, e.g. ARC."
          inputProps={{ ...getInputProps(fields.code, { type: 'text' }), autoComplete: 'off', spellCheck: false, autoFocus: focus === 'code' }}
          errors={fields.code.errors}
        />
        <SelectField
          label="Role on the project"
          selectProps={{ ...getSelectProps(fields.role), autoFocus: focus === 'role' }}
          options={PARTY_ROLES.map((role) => ({ value: role, label: PARTY_ROLE_LABELS[role] }))}
          errors={fields.role.errors}
        />
        <SelectField
          label="Works for (task teams)"
          help="A task team works for one lead appointed party."
          selectProps={{ ...getSelectProps(fields.parentId), autoFocus: focus === 'parentId' }}
          placeholder="No lead (not a task team)"
          options={choices.map((lead) => ({ value: lead.id, label: lead.name }))}
          errors={fields.parentId.errors}
        />
      </div>
      <div className="flex flex-wrap gap-2">
        <SubmitButton intent={editing ? 'update-party' : 'create-party'} pendingLabel="Saving…" variant={editing ? 'primary' : 'secondary'}>
          {editing ? 'Save party' : 'Add party'}
        </SubmitButton>
        {editing && cancelTo ? (
          <ButtonLink to={cancelTo} variant="secondary">
            Cancel
          </ButtonLink>
        ) : null}
      </div>
    </Form>
  )
}
