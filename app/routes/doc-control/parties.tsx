import { revalidateAfterConflict } from '~/lib/revalidate-after-conflict'
import { data, useActionData, useLocation } from 'react-router'
import { PartyForm } from '~/components/doc-control/parties-form'
import { useCanManage } from '~/components/doc-control/parties-abilities'
import { PartyPeople } from '~/components/doc-control/parties-people'
import { PartyContacts } from '~/components/doc-control/party-contacts'
import { loadProjectChoice } from '~/components/doc-control/project-choice.server'
import { noticeOf, type ReportingActionData, resultFor, revisionFor } from '~/components/reporting/report-action'
import { Badge } from '~/components/ui/badge'
import { Banner } from '~/components/ui/banner'
import { ButtonLink } from '~/components/ui/button-link'
import { Card } from '~/components/ui/card'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { EmptyState } from '~/components/ui/empty-state'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { createServerApi } from '~/lib/api.server'
import type { Party } from '~/lib/doc-control/types'
import type { Member } from '~/lib/reporting/types'
import { projectTitle } from '~/lib/reporting/types'
import { PARTY_ROLE_LABELS } from '~/lib/schemas/doc-control'
import type { Route } from './+types/parties'
import { addContact, addPerson, createParty, deleteParty, removeContact, removePerson, updateParty } from './parties.server'
import { projectAccess, requireProjectId } from './registers.server'

/**
 * Parties (docs/doc-control.md "Screens"): the organisations and teams on a project (the appointing
 * party, lead appointed parties, task teams under a lead) and their people. Managers add, change
 * and remove them; everyone who reaches the project reads them. `?edit={partyId}` opens a party's
 * form.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const choice = await loadProjectChoice(api, request, responseHeaders)
  const editId = new URL(request.url).searchParams.get('edit')
  if (!choice.project) return data({ ...choice, parties: null, access: null, members: [] as Member[], editId: null, loadNotice: null }, { headers: responseHeaders })
  const [parties, access, members] = await Promise.all([
    api.GET('/api/projects/{id}/parties', { path: { id: choice.project.id } }),
    projectAccess(api, choice.project.id),
    api.GET('/api/members'),
  ])
  return data(
    {
      ...choice,
      parties: parties.ok ? parties.data.items : null,
      access,
      members: members.ok ? members.data.items : [],
      editId,
      loadNotice: parties.ok ? null : noticeOf(parties.error),
    },
    { headers: responseHeaders },
  )
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const projectId = requireProjectId(request)
  const back = `/doc-control/parties?${new URLSearchParams({ projectId })}`
  const intent = String(formData.get('intent') ?? '')
  switch (intent) {
    case 'create-party':
      return createParty(api, projectId, formData, responseHeaders, back)
    case 'update-party':
      return updateParty(api, formData, responseHeaders, back)
    case 'delete-party':
      return deleteParty(api, formData, responseHeaders, back)
    case 'add-person':
      return addPerson(api, projectId, formData, responseHeaders, back)
    case 'remove-person':
      return removePerson(api, projectId, formData, responseHeaders, back)
    case 'add-contact':
      return addContact(api, formData, responseHeaders, back)
    case 'remove-contact':
      return removeContact(api, formData, responseHeaders, back)
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

export default function Parties({ loaderData }: Route.ComponentProps) {
  const { project, parties, access, members, editId, loadNotice } = loaderData
  const actionData = useActionData<typeof action>() as ReportingActionData | undefined
  const location = useLocation()
  const canManage = useCanManage(access)
  const notice = actionData?.notice ?? loadNotice
  const list = parties ?? []
  const leads = list.filter((p) => p.role === 'lead-appointed')
  const editing = canManage && editId ? list.find((p) => p.id === editId) : undefined
  const here = project ? `/doc-control/parties?${new URLSearchParams({ projectId: project.id })}` : '/doc-control/parties'
  return (
    <>
      <PageHeader title="Parties" description="The organisations and teams on a project, and their people (ISO 19650: appointing party, lead appointed parties, task teams)." />
      {!project ? (
        <EmptyState heading="Choose a project">Its parties are listed here once you open it.</EmptyState>
      ) : (
        <>
          {notice ? (
            <Banner tone="critical" title="That did not work" correlationId={notice.correlationId} className="mb-6">
              {notice.message}
            </Banner>
          ) : null}
          {editing ? (
            <Card className="mb-6">
              <h2 className="mb-4 text-lg font-semibold break-words">Change “{editing.name}”</h2>
              <PartyForm
                key={editing.id}
                party={editing}
                leads={leads}
                revision={revisionFor(actionData, 'update-party', editing.id, editing.revision)}
                lastResult={resultFor(actionData, 'update-party')}
                cancelTo={here}
              />
            </Card>
          ) : null}
          <div className="grid gap-8 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
            <div className="flex min-w-0 flex-col gap-6">
              <h2 className="sr-only">Parties of {projectTitle(project.title)}</h2>
              {list.length === 0 ? (
                <EmptyState heading="No parties yet">
                  {canManage ? 'Add the appointing party and the lead appointed parties with the “Add a party” form.' : 'A project manager adds the parties of this project.'}
                </EmptyState>
              ) : (
                list.map((party) => (
                  <Card key={party.id} className={party.role === 'task-team' ? 'sm:ml-6' : undefined}>
                    <Section
                      title={party.name}
                      description={<PartyFacts party={party} parent={list.find((p) => p.id === party.parentId)} />}
                      actions={
                        canManage ? (
                          <PartyActions party={party} editTo={`${here}&${new URLSearchParams({ edit: party.id })}`} hasTeams={list.some((p) => p.parentId === party.id)} />
                        ) : undefined
                      }
                    >
                      <PartyPeople
                        key={`${party.id}-${location.key}`}
                        party={party}
                        members={members}
                        canManage={canManage}
                        lastResult={resultFor(actionData, 'add-person', party.id)}
                      />
                      <div className="mt-4">
                        <PartyContacts key={`${party.id}-contacts-${location.key}`} party={party} canManage={canManage} lastResult={resultFor(actionData, 'add-contact', party.id)} />
                      </div>
                    </Section>
                  </Card>
                ))
              )}
            </div>
            {canManage ? (
              <Section title="Add a party" description="An organisation or team on this project.">
                <PartyForm key={location.key} leads={leads} lastResult={resultFor(actionData, 'create-party')} />
              </Section>
            ) : null}
          </div>
        </>
      )}
    </>
  )
}

function PartyFacts({ party, parent }: { party: Party; parent: Party | undefined }) {
  return (
    <span className="flex flex-wrap items-center gap-2">
      <Badge tone={party.role === 'appointing' ? 'info' : 'neutral'}>{PARTY_ROLE_LABELS[party.role]}</Badge>
      {party.code ? <span>Code {party.code}</span> : null}
      {parent ? <span>Works for {parent.name}</span> : null}
    </span>
  )
}

function PartyActions({ party, editTo, hasTeams }: { party: Party; editTo: string; hasTeams: boolean }) {
  return (
    <>
      <ButtonLink to={editTo} variant="secondary" size="sm" aria-label={`Change ${party.name}`}>
        Change
      </ButtonLink>
      <ConfirmDialog
        triggerLabel="Remove…"
        title={`Remove “${party.name}” from the project?`}
        confirmLabel="Yes, remove party"
        pendingLabel="Removing…"
        intent="delete-party"
        fields={{ partyId: party.id }}
      >
        {hasTeams
          ? 'Task teams work under it: remove them first, or the project refuses.'
          : 'Its people and its cells of the responsibility matrix go with it; its deliverables stay, without a responsible party.'}
      </ConfirmDialog>
    </>
  )
}

export function meta() {
  return [{ title: 'Parties · Document control · Site Portal' }]
}

/** After a save refused as stale the screen reads its data again (app/lib/revalidate-after-conflict.ts). */
export const shouldRevalidate = revalidateAfterConflict
