import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { formFailure, invalidForm, noticeFailure } from '~/components/reporting/report-action'
import type { ApiClient } from '~/lib/api/types'
import type { Party } from '~/lib/doc-control/types'
import { setFlash } from '~/lib/flash.server'
import { revisionFromForm } from '~/lib/schemas/edit-conflict'
import { PartyContactFormSchema, PartyContactRefSchema, PartyEditSchema, PartyPersonSchema, PartyRefSchema, PartySchema } from '~/lib/schemas/doc-control'

/** The actions of /doc-control/parties, one function per intent (docs/doc-control.md "Screens"). */


export async function createParty(api: ApiClient, projectId: string, formData: FormData, headers: Headers, back: string) {
  const submission = parseWithZod(formData, { schema: PartySchema })
  if (submission.status !== 'success') return invalidForm('create-party', submission)
  const { name, code, role, parentId } = submission.value
  const result = await api.POST('/api/projects/{id}/parties', { path: { id: projectId }, body: { name, code: code ?? null, role, parentId: parentId || null }, idempotencyKey: true })
  if (!result.ok) return formFailure('create-party', submission, result.error, headers)
  await setFlash(headers, { tone: 'success', message: `Party “${result.data.name}” added.` })
  throw redirect(back, { headers })
}

export async function updateParty(api: ApiClient, formData: FormData, headers: Headers, back: string) {
  const submission = parseWithZod(formData, { schema: PartyEditSchema })
  if (submission.status !== 'success') return invalidForm('update-party', submission)
  const { partyId, name, code, role, parentId } = submission.value
  // An emptied code or lead clears it. Saved against the revision the form was drawn with: a change by someone else since is a conflict, the typed values kept.
  const result = await api.PATCH('/api/parties/{id}', {
    path: { id: partyId },
    body: { name, code: code ?? null, role, parentId: parentId || null, expectedRevision: revisionFromForm(formData.get('expectedRevision')) },
  })
  if (!result.ok) return formFailure('update-party', submission, result.error, headers, partyId)
  await setFlash(headers, { tone: 'success', message: `Party “${result.data.name}” saved.` })
  throw redirect(back, { headers })
}

export async function deleteParty(api: ApiClient, formData: FormData, headers: Headers, back: string) {
  const submission = parseWithZod(formData, { schema: PartyRefSchema })
  if (submission.status !== 'success') throw data('The party is missing.', { status: 400 })
  const result = await api.DELETE('/api/parties/{id}', { path: { id: submission.value.partyId } })
  if (!result.ok) return noticeFailure('delete-party', result.error, headers, submission.value.partyId)
  await setFlash(headers, { tone: 'success', message: 'Party removed.' })
  throw redirect(back, { headers })
}

/** The party's people as the API has them now, for a change of one person (the API replaces the whole list). */
async function currentParty(api: ApiClient, projectId: string, partyId: string): Promise<Party | null> {
  const parties = await api.GET('/api/projects/{id}/parties', { path: { id: projectId } })
  return parties.ok ? (parties.data.items.find((p) => p.id === partyId) ?? null) : null
}

/** Adds a member to the party, or changes whether they lead it when they are in it already. */
export async function addPerson(api: ApiClient, projectId: string, formData: FormData, headers: Headers, back: string) {
  const submission = parseWithZod(formData, { schema: PartyPersonSchema })
  const partyId = String(formData.get('partyId') ?? '')
  if (submission.status !== 'success') return invalidForm('add-person', submission, partyId)
  const { userId, lead } = submission.value
  const party = await currentParty(api, projectId, partyId)
  if (!party) throw data(null, { status: 404, headers })
  const members = [...party.members.filter((m) => m.userId !== userId).map((m) => ({ userId: m.userId, lead: m.lead })), { userId, lead }]
  // The list was read just now and one person changes: a save by someone else in between is a conflict, not lost.
  const result = await api.PUT('/api/parties/{id}/members', { path: { id: partyId }, body: { members, expectedRevision: party.revision } })
  if (!result.ok) return formFailure('add-person', submission, result.error, headers, partyId)
  const person = result.data.members.find((m) => m.userId === userId)
  await setFlash(headers, { tone: 'success', message: `${person?.displayName ?? 'The person'} is in ${result.data.name}${lead ? ' and leads it' : ''}.` })
  throw redirect(back, { headers })
}

export async function removePerson(api: ApiClient, projectId: string, formData: FormData, headers: Headers, back: string) {
  const partyId = String(formData.get('partyId') ?? '')
  const userId = String(formData.get('userId') ?? '')
  const party = await currentParty(api, projectId, partyId)
  if (!party) throw data(null, { status: 404, headers })
  const person = party.members.find((m) => m.userId === userId)
  const members = party.members.filter((m) => m.userId !== userId).map((m) => ({ userId: m.userId, lead: m.lead }))
  const result = await api.PUT('/api/parties/{id}/members', { path: { id: partyId }, body: { members, expectedRevision: party.revision } })
  if (!result.ok) return noticeFailure('remove-person', result.error, headers, partyId)
  await setFlash(headers, { tone: 'success', message: `${person?.displayName ?? 'The person'} removed from ${party.name}.` })
  throw redirect(back, { headers })
}

/** An outside contact joins the party (issue 32): no member, no seat; transmittals reach them by link. */
export async function addContact(api: ApiClient, formData: FormData, headers: Headers, back: string) {
  const submission = parseWithZod(formData, { schema: PartyContactFormSchema })
  const partyId = String(formData.get('partyId') ?? '')
  if (submission.status !== 'success') return invalidForm('add-contact', submission, partyId)
  const { name, company, email } = submission.value
  const result = await api.POST('/api/parties/{id}/contacts', { path: { id: partyId }, body: { name, company, email }, idempotencyKey: true })
  if (!result.ok) return formFailure('add-contact', submission, result.error, headers, partyId)
  await setFlash(headers, { tone: 'success', message: `${name} is an outside contact of ${result.data.name}; transmittals to the party reach them by a link in a mail.` })
  throw redirect(back, { headers })
}

export async function removeContact(api: ApiClient, formData: FormData, headers: Headers, back: string) {
  const submission = parseWithZod(formData, { schema: PartyContactRefSchema })
  if (submission.status !== 'success') throw data('The contact is missing.', { status: 400 })
  const { partyId, contactId } = submission.value
  const result = await api.DELETE('/api/parties/{id}/contacts/{contactId}', { path: { id: partyId, contactId } })
  if (!result.ok) return noticeFailure('remove-contact', result.error, headers, partyId)
  await setFlash(headers, { tone: 'success', message: `Contact removed from ${result.data.name}.` })
  throw redirect(back, { headers })
}
