import { useId } from 'react'
import { Form } from 'react-router'
import { CsrfInput } from '~/components/ui/csrf-input'
import { ErrorList } from '~/components/ui/error-list'
import { type Party, type PartyRole } from '~/lib/doc-control/types'
import type { Member } from '~/lib/reporting/types'
import { WizardButtons } from './wizard-buttons'

const ROLE_LABELS: Record<PartyRole, string> = { appointing: 'Appointing party', 'lead-appointed': 'Lead appointed party', 'task-team': 'Task team' }

/**
 * Step 2: who receives it. People one by one, and parties (everyone in them when it is sent).
 * Checkboxes in one form: Next saves them and moves on, Back saves them and goes back.
 */
export function WizardRecipientsStep({
  members,
  parties,
  chosen,
  errors,
  revision,
}: {
  members: readonly Member[]
  parties: readonly Party[]
  chosen: { userIds: readonly string[]; partyIds: readonly string[] }
  errors: readonly string[] | undefined
  /** The draft's revision the ticks are saved against. */
  revision: number
}) {
  const errorId = useId()
  const users = new Set(chosen.userIds)
  const chosenParties = new Set(chosen.partyIds)
  const describedBy = errors?.length ? errorId : undefined
  return (
    <Form method="post" aria-label="Recipients" className="flex flex-col gap-6">
      <CsrfInput />
      <ErrorList id={errorId} errors={errors} />
      <fieldset aria-describedby={describedBy} className="flex min-w-0 flex-col gap-3">
        <legend className="mb-2 text-lg font-semibold text-text">People</legend>
        {members.length === 0 ? <p className="text-sm text-muted">No members could be listed.</p> : null}
        <ul className="grid gap-2 sm:grid-cols-2">
          {members.map((member) => (
            <li key={member.userId}>
              <label className="flex cursor-pointer items-start gap-3 rounded-md border border-border bg-surface px-3 py-2">
                <input type="checkbox" name="userIds" value={member.userId} defaultChecked={users.has(member.userId)} className="mt-0.5 size-5 shrink-0 accent-primary" />
                <span className="flex min-w-0 flex-col">
                  <span className="text-sm font-medium text-text">{member.displayName}</span>
                  <span className="text-xs break-all text-muted">{member.email}</span>
                </span>
              </label>
            </li>
          ))}
        </ul>
      </fieldset>
      <fieldset aria-describedby={describedBy} className="flex min-w-0 flex-col gap-3">
        <legend className="mb-2 text-lg font-semibold text-text">Parties</legend>
        {parties.length === 0 ? <p className="text-sm text-muted">This project has no parties yet. They are set up under Parties.</p> : null}
        <ul className="grid gap-2 sm:grid-cols-2">
          {parties.map((party) => (
            <li key={party.id}>
              <label className="flex cursor-pointer items-start gap-3 rounded-md border border-border bg-surface px-3 py-2">
                <input type="checkbox" name="partyIds" value={party.id} defaultChecked={chosenParties.has(party.id)} className="mt-0.5 size-5 shrink-0 accent-primary" />
                <span className="flex min-w-0 flex-col">
                  <span className="text-sm font-medium text-text">
                    {party.name}
                    {party.code ? <span className="font-mono text-muted"> {party.code}</span> : null}
                  </span>
                  <span className="text-xs text-muted">
                    {ROLE_LABELS[party.role] ?? party.role}, {party.members.length === 1 ? '1 person' : `${party.members.length} people`}
                    {party.contacts.length > 0 ? `, ${party.contacts.length === 1 ? '1 outside contact' : `${party.contacts.length} outside contacts`} (by a link in a mail)` : ''}
                  </span>
                </span>
              </label>
            </li>
          ))}
        </ul>
      </fieldset>
      <WizardButtons step="recipients" revision={revision} />
    </Form>
  )
}
