import { type SubmissionResult, getFormProps, getSelectProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { Badge } from '~/components/ui/badge'
import { CheckboxField } from '~/components/ui/checkbox-field'
import { CsrfInput } from '~/components/ui/csrf-input'
import { FormError } from '~/components/ui/form-error'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import type { Party } from '~/lib/doc-control/types'
import type { Member } from '~/lib/reporting/types'
import { PartyPersonSchema } from '~/lib/schemas/doc-control'

/** A party's people; a manager removes one (intent `remove-person`) or adds one of the organisation's members (intent `add-person`). */
export function PartyPeople({
  party,
  members,
  canManage,
  lastResult,
}: {
  party: Party
  members: readonly Member[]
  canManage: boolean
  lastResult: SubmissionResult<string[]> | undefined
}) {
  return (
    <div className="flex flex-col gap-3">
      {party.members.length === 0 ? (
        <p className="text-sm text-muted">No people yet.</p>
      ) : (
        <ul aria-label={`People of ${party.name}`} className="flex flex-col divide-y divide-border rounded-md border border-border">
          {party.members.map((person) => (
            <li key={person.userId} className="flex flex-wrap items-center justify-between gap-2 px-3 py-2">
              <span className="flex min-w-0 flex-wrap items-center gap-2">
                <span className="font-medium break-words">{person.displayName}</span>
                <span className="text-sm break-all text-muted">{person.email}</span>
                {person.lead ? <Badge tone="info">Lead</Badge> : null}
              </span>
              {canManage ? (
                <Form method="post">
                  <CsrfInput />
                  <input type="hidden" name="partyId" value={party.id} />
                  <input type="hidden" name="userId" value={person.userId} />
                  <SubmitButton intent="remove-person" variant="plain" size="sm" pendingLabel="Removing…" aria-label={`Remove ${person.displayName} from ${party.name}`}>
                    Remove
                  </SubmitButton>
                </Form>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {canManage ? <AddPersonForm party={party} members={members} lastResult={lastResult} /> : null}
    </div>
  )
}

function AddPersonForm({ party, members, lastResult }: { party: Party; members: readonly Member[]; lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm({
    id: `party-person-${party.id}`,
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(PartyPersonSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: PartyPersonSchema }),
  })
  const present = new Set(party.members.map((m) => m.userId))
  return (
    <Form method="post" {...getFormProps(form)} aria-label={`Add a person to ${party.name}`} className="flex flex-col gap-3 sm:flex-row sm:flex-wrap sm:items-end">
      <CsrfInput />
      <input type="hidden" name="partyId" value={party.id} />
      <FormError id={form.errorId} errors={form.errors} />
      <SelectField
        label="Person"
        className="sm:min-w-64"
        selectProps={{ ...getSelectProps(fields.userId), id: `party-person-${party.id}-user` }}
        placeholder="Choose a member"
        // Someone already in the party can be chosen again to make them (or stop them being) its lead.
        options={members.map((m) => ({ value: m.userId, label: present.has(m.userId) ? `${m.displayName} (in the party)` : m.displayName }))}
        errors={fields.userId.errors}
      />
      <CheckboxField label="Leads the party" className="sm:pb-3" inputProps={{ name: fields.lead.name, id: `party-person-${party.id}-lead` }} errors={fields.lead.errors} />
      <SubmitButton intent="add-person" variant="secondary" pendingLabel="Adding…">
        Add person
      </SubmitButton>
    </Form>
  )
}
