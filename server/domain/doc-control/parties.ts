import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import { memberships, users } from '#server/db/schema'
import { partyContacts, partyMembers, projectParties } from '#server/db/schema-doc-control'
import { recordAuditIn, type AuditAction } from '#server/domain/audit'
import { forbidden } from '#server/domain/documents/access'
import { ensureProjectActive, findProject, notFound, type ProjectRef } from '#server/domain/documents/places'
import type { DomainContext } from '#server/domain/tenancy/context'
import { refuseStaleWrite } from '#server/domain/tenancy/edit-conflict'
import { isUuid } from '~/lib/schemas/uuid'
import { Problem, problems, type FieldErrors } from '#server/http/problem'
import { atLeast } from '~/lib/documents/rules'
import { type Party, type PartyContact, type PartyMember, type PartyRole } from '~/lib/doc-control/types'

/**
 * The parties of a project (docs/doc-control.md; ISO 19650-2): one appointing party, lead appointed
 * parties, and task teams under a lead; each with its people, members of the organisation. Anyone
 * who reaches the project reads them; admins and members with `manage` at the project's top change
 * them (read-only members never do).
 */

export const PARTY_NAME_MAX = 120
/** An originator code, as the naming standard's Originator field takes it (ISO 19650-2 UK NA: 3–6). */
export const PARTY_CODE = /^[A-Z0-9]{3,6}$/

export type PartyInput = { name: string; code: string | null; role: PartyRole; parentId: string | null }

type PartyRow = { id: string; projectId: string; name: string; code: string | null; role: string; parentId: string | null; revision: number; updatedBy: string | null; createdAt: Date; updatedAt: Date }

const partyColumns = {
  id: projectParties.id,
  projectId: projectParties.projectId,
  name: projectParties.name,
  code: projectParties.code,
  role: projectParties.role,
  parentId: projectParties.parentId,
  revision: projectParties.revision,
  updatedBy: projectParties.updatedBy,
  createdAt: projectParties.createdAt,
  updatedAt: projectParties.updatedAt,
}

/** The project for reading (its top, or a way into it): an unknown or unreachable one is 404. */
export async function readableProject(ctx: DomainContext, projectId: string): Promise<ProjectRef> {
  return (await findProject(ctx, projectId)).project
}

/**
 * The project for changing its parties, matrix or deliverables: who cannot see it gets 404, who
 * sees it without `manage` at its top (or is read-only) 403, and an archived project 409.
 */
export async function managedProject(ctx: DomainContext, projectId: string): Promise<ProjectRef> {
  const { project, level } = await findProject(ctx, projectId)
  if (ctx.actor.roleKey === 'read-only' || !atLeast(level, 'manage')) throw forbidden('Only the project’s managers change its parties, matrix and deliverables.')
  ensureProjectActive(project)
  return project
}

export async function auditDocControl(ctx: DomainContext, action: AuditAction, targetType: string, targetId: string, data?: Record<string, unknown>): Promise<void> {
  await recordAuditIn(ctx.tx, { tenantId: ctx.actor.tenantId, actorUserId: ctx.actor.userId, action, targetType, targetId, data, at: ctx.now })
}

/** Appointing first, then each lead with its task teams under it, by name. */
function ordered(rows: PartyRow[]): PartyRow[] {
  const byName = (a: PartyRow, b: PartyRow) => a.name.localeCompare(b.name)
  const appointing = rows.filter((r) => r.role === 'appointing').sort(byName)
  const leads = rows.filter((r) => r.role === 'lead-appointed').sort(byName)
  const teams = rows.filter((r) => r.role === 'task-team').sort(byName)
  const placed = new Set<string>()
  const answer = [...appointing]
  for (const lead of leads) {
    answer.push(lead)
    for (const team of teams.filter((t) => t.parentId === lead.id)) {
      answer.push(team)
      placed.add(team.id)
    }
  }
  return [...answer, ...teams.filter((t) => !placed.has(t.id))]
}

async function membersOf(ctx: DomainContext, partyIds: string[]): Promise<Map<string, PartyMember[]>> {
  const answer = new Map<string, PartyMember[]>()
  if (partyIds.length === 0) return answer
  const rows = await ctx.tx
    .select({ partyId: partyMembers.partyId, userId: partyMembers.userId, lead: partyMembers.lead, displayName: users.displayName, email: users.email })
    .from(partyMembers)
    .innerJoin(users, eq(users.id, partyMembers.userId))
    .where(and(eq(partyMembers.tenantId, ctx.actor.tenantId), inArray(partyMembers.partyId, partyIds)))
    .orderBy(asc(sql`lower(${users.displayName})`), asc(users.id))
  for (const row of rows) {
    const list = answer.get(row.partyId) ?? []
    list.push({ userId: row.userId, displayName: row.displayName, email: row.email, lead: row.lead })
    answer.set(row.partyId, list)
  }
  // Leads first, so a party reads "who leads it" at a glance.
  for (const list of answer.values()) list.sort((a, b) => Number(b.lead) - Number(a.lead))
  return answer
}

/** The outside contacts of parties (issue 32), by party, by name. */
async function contactsOf(ctx: DomainContext, partyIds: string[]): Promise<Map<string, PartyContact[]>> {
  const answer = new Map<string, PartyContact[]>()
  if (partyIds.length === 0) return answer
  const rows = await ctx.tx
    .select({ partyId: partyContacts.partyId, id: partyContacts.id, name: partyContacts.name, company: partyContacts.company, email: partyContacts.email })
    .from(partyContacts)
    .where(and(eq(partyContacts.tenantId, ctx.actor.tenantId), inArray(partyContacts.partyId, partyIds)))
    .orderBy(asc(sql`lower(${partyContacts.name})`), asc(partyContacts.id))
  for (const { partyId, ...contact } of rows) {
    const list = answer.get(partyId) ?? []
    list.push(contact)
    answer.set(partyId, list)
  }
  return answer
}

async function partyViews(ctx: DomainContext, rows: PartyRow[]): Promise<Party[]> {
  const ids = rows.map((r) => r.id)
  const members = await membersOf(ctx, ids)
  const contacts = await contactsOf(ctx, ids)
  return rows.map((row) => viewOf(row, members.get(row.id) ?? [], contacts.get(row.id) ?? []))
}

function viewOf(row: PartyRow, members: PartyMember[], contacts: PartyContact[]): Party {
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    code: row.code,
    role: row.role as PartyRole,
    parentId: row.parentId,
    members,
    contacts,
    revision: row.revision,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }
}

async function partyRows(ctx: DomainContext, projectId: string): Promise<PartyRow[]> {
  return ctx.tx
    .select(partyColumns)
    .from(projectParties)
    .where(and(eq(projectParties.tenantId, ctx.actor.tenantId), eq(projectParties.projectId, projectId)))
}

/** The parties of a project as rows (no people): for the matrix, deliverables and reviewer rules. */
export async function projectPartyRows(ctx: DomainContext, projectId: string): Promise<Array<Pick<PartyRow, 'id' | 'name' | 'code' | 'role' | 'parentId'>>> {
  return ordered(await partyRows(ctx, projectId))
}

/** GET /api/projects/{projectId}/parties */
export async function listParties(ctx: DomainContext, projectId: string): Promise<{ items: Party[] }> {
  await readableProject(ctx, projectId)
  return { items: await partyViews(ctx, ordered(await partyRows(ctx, projectId))) }
}

/** A party by id with its project's access checked: another tenant's or an unreachable one is 404. */
async function findParty(ctx: DomainContext, partyId: string, change: boolean, options: { lock?: boolean } = {}): Promise<PartyRow> {
  if (!isUuid(partyId)) throw notFound()
  const query = ctx.tx
    .select(partyColumns)
    .from(projectParties)
    .where(and(eq(projectParties.tenantId, ctx.actor.tenantId), eq(projectParties.id, partyId)))
    .limit(1)
  const [row] = options.lock ? await query.for('update') : await query
  if (!row) throw notFound()
  if (change) await managedProject(ctx, row.projectId)
  else await readableProject(ctx, row.projectId)
  return row
}

export async function getParty(ctx: DomainContext, partyId: string): Promise<Party> {
  const row = await findParty(ctx, partyId, false)
  const [view] = await partyViews(ctx, [row])
  if (!view) throw new Error('party view not made')
  return view
}

/** A save of the party (its fields or its people): the revision goes one up and names who saved. */
function savedBy(ctx: DomainContext) {
  return { revision: sql`${projectParties.revision} + 1`, updatedBy: ctx.actor.userId, updatedAt: ctx.now }
}

/** The rules a party's fields follow among the project's others; every problem at once, as field errors. */
function checkParty(input: PartyInput, others: PartyRow[], self: PartyRow | null): void {
  const errors: FieldErrors = {}
  const add = (field: string, message: string) => (errors[field] ??= []).push(message)
  if (others.some((o) => o.name.toLowerCase() === input.name.toLowerCase())) add('name', `“${input.name}” is already a party of this project.`)
  if (input.code !== null && others.some((o) => o.code === input.code)) add('code', `The code ${input.code} is already another party’s.`)
  if (input.role === 'appointing' && others.some((o) => o.role === 'appointing')) add('role', 'A project has one appointing party, and it has one already.')
  if (input.role === 'task-team') {
    const parent = others.find((o) => o.id === input.parentId)
    if (!input.parentId) add('parentId', 'Choose the lead appointed party this task team works for.')
    else if (!parent || parent.role !== 'lead-appointed') add('parentId', 'A task team works for a lead appointed party of this project.')
  } else if (input.parentId) add('parentId', 'Only a task team works under another party.')
  if (self && self.role === 'lead-appointed' && input.role !== 'lead-appointed' && others.some((o) => o.parentId === self.id))
    add('role', 'Task teams work under this party: move or remove them before it stops being a lead appointed party.')
  if (Object.keys(errors).length > 0) throw new Problem(problems.badRequest('The party has problems.', errors))
}

/** POST /api/projects/{projectId}/parties */
export async function createParty(ctx: DomainContext, projectId: string, input: PartyInput): Promise<Party> {
  await managedProject(ctx, projectId)
  checkParty(input, await partyRows(ctx, projectId), null)
  const [row] = await ctx.tx
    .insert(projectParties)
    .values({ tenantId: ctx.actor.tenantId, projectId, ...input, createdAt: ctx.now, updatedAt: ctx.now })
    .returning(partyColumns)
  if (!row) throw new Error('party not stored')
  await auditDocControl(ctx, 'doc-control.party.changed', 'ProjectParty', row.id, { change: 'created', ...input })
  return viewOf(row, [], [])
}

/** PATCH /api/parties/{partyId} */
export async function updateParty(ctx: DomainContext, partyId: string, patch: Partial<PartyInput> & { expectedRevision?: number | undefined }): Promise<Party> {
  const row = await findParty(ctx, partyId, true, { lock: true })
  await refuseStaleWrite(ctx, { ...row, what: 'party' }, patch.expectedRevision, () => getParty(ctx, row.id))
  const next: PartyInput = {
    name: patch.name ?? row.name,
    code: patch.code === undefined ? row.code : patch.code,
    role: patch.role ?? (row.role as PartyRole),
    parentId: patch.parentId === undefined ? row.parentId : patch.parentId,
  }
  // Leaving task team: no parent any more, unless the call names one (which the check refuses).
  if (next.role !== 'task-team' && patch.parentId === undefined) next.parentId = null
  const { expectedRevision: _, ...changes } = patch
  checkParty(
    next,
    (await partyRows(ctx, row.projectId)).filter((o) => o.id !== row.id),
    row,
  )
  await ctx.tx
    .update(projectParties)
    .set({ ...next, ...savedBy(ctx) })
    .where(and(eq(projectParties.tenantId, ctx.actor.tenantId), eq(projectParties.id, row.id)))
  await auditDocControl(ctx, 'doc-control.party.changed', 'ProjectParty', row.id, { change: 'updated', ...changes })
  return getParty(ctx, row.id)
}

/**
 * DELETE /api/parties/{partyId}: its people and matrix cells go with it, deliverables keep their
 * number without a responsible party. A lead with task teams is refused (409) until they are moved
 * or removed: a task team without its lead means nothing.
 */
export async function deleteParty(ctx: DomainContext, partyId: string): Promise<void> {
  const row = await findParty(ctx, partyId, true, { lock: true })
  const teams = (await partyRows(ctx, row.projectId)).filter((o) => o.parentId === row.id)
  if (teams.length > 0)
    throw new Problem({
      status: 409,
      title: 'Conflict',
      detail: `Task teams work under ${row.name} (${teams.map((t) => t.name).join(', ')}): remove them first.`,
      code: 'KR_CONFLICT',
    })
  await ctx.tx.delete(projectParties).where(and(eq(projectParties.tenantId, ctx.actor.tenantId), eq(projectParties.id, row.id)))
  await auditDocControl(ctx, 'doc-control.party.changed', 'ProjectParty', row.id, { change: 'deleted', name: row.name })
}

/**
 * PUT /api/parties/{partyId}/members: replaces the party's people. Each must be an active member of
 * the organisation; anyone else (another organisation's user, an unknown id) is 404 like every id
 * the caller cannot see.
 */
export async function putPartyMembers(ctx: DomainContext, partyId: string, members: Array<{ userId: string; lead: boolean }>, expectedRevision?: number): Promise<Party> {
  const row = await findParty(ctx, partyId, true, { lock: true })
  await refuseStaleWrite(ctx, { ...row, what: 'party' }, expectedRevision, () => getParty(ctx, row.id))
  const byUser = new Map<string, boolean>()
  for (const member of members) byUser.set(member.userId, (byUser.get(member.userId) ?? false) || member.lead)
  const ids = [...byUser.keys()]
  if (ids.some((id) => !isUuid(id))) throw notFound()
  if (ids.length > 0) {
    const found = await ctx.tx
      .select({ userId: memberships.userId })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.tenantId, ctx.actor.tenantId), eq(memberships.status, 'active'), eq(users.status, 'active'), inArray(memberships.userId, ids)))
    if (found.length !== ids.length) throw notFound()
  }
  await ctx.tx.delete(partyMembers).where(and(eq(partyMembers.tenantId, ctx.actor.tenantId), eq(partyMembers.partyId, row.id)))
  if (ids.length > 0) await ctx.tx.insert(partyMembers).values(ids.map((userId) => ({ tenantId: ctx.actor.tenantId, partyId: row.id, userId, lead: byUser.get(userId) ?? false })))
  await ctx.tx
    .update(projectParties)
    .set(savedBy(ctx))
    .where(and(eq(projectParties.tenantId, ctx.actor.tenantId), eq(projectParties.id, row.id)))
  await auditDocControl(ctx, 'doc-control.party.changed', 'ProjectParty', row.id, { change: 'members', members: ids.map((userId) => ({ userId, lead: byUser.get(userId) })) })
  return getParty(ctx, row.id)
}

/** The people of some parties (for reviewers named by party or by the matrix), without duplicates. */
export async function peopleOfParties(ctx: DomainContext, partyIds: readonly string[]): Promise<string[]> {
  if (partyIds.length === 0) return []
  const rows = await ctx.tx
    .select({ userId: partyMembers.userId })
    .from(partyMembers)
    .innerJoin(memberships, and(eq(memberships.tenantId, partyMembers.tenantId), eq(memberships.userId, partyMembers.userId)))
    .where(and(eq(partyMembers.tenantId, ctx.actor.tenantId), inArray(partyMembers.partyId, [...partyIds]), eq(memberships.status, 'active')))
  return [...new Set(rows.map((r) => r.userId))]
}

export type ContactInput = { name: string; company: string; email: string }

/**
 * POST /api/parties/{partyId}/contacts (issue 32): an outside contact joins the party. They are no
 * member of the organisation and take no seat; a transmittal to the party reaches them by a signed
 * link. An e-mail address is once per party (400 under `email`).
 */
export async function addPartyContact(ctx: DomainContext, partyId: string, input: ContactInput): Promise<Party> {
  const row = await findParty(ctx, partyId, true, { lock: true })
  const email = input.email.trim().toLowerCase()
  const [taken] = await ctx.tx
    .select({ id: partyContacts.id })
    .from(partyContacts)
    .where(and(eq(partyContacts.tenantId, ctx.actor.tenantId), eq(partyContacts.partyId, row.id), sql`lower(${partyContacts.email}) = ${email}`))
    .limit(1)
  if (taken) throw new Problem(problems.badRequest('The contact has problems.', { email: [`${email} is already a contact of ${row.name}.`] }))
  const [contact] = await ctx.tx
    .insert(partyContacts)
    .values({ tenantId: ctx.actor.tenantId, partyId: row.id, name: input.name, company: input.company, email, createdAt: ctx.now, updatedAt: ctx.now })
    .returning({ id: partyContacts.id })
  if (!contact) throw new Error('contact not stored')
  await touchParty(ctx, row.id)
  await auditDocControl(ctx, 'doc-control.party.changed', 'ProjectParty', row.id, { change: 'contact-added', contactId: contact.id, name: input.name, company: input.company, email })
  return getParty(ctx, row.id)
}

/** DELETE /api/parties/{partyId}/contacts/{contactId}: what was sent to them stays sent (their links keep working until they expire or are revoked). */
export async function removePartyContact(ctx: DomainContext, partyId: string, contactId: string): Promise<Party> {
  const row = await findParty(ctx, partyId, true, { lock: true })
  if (!isUuid(contactId)) throw notFound()
  const removed = await ctx.tx
    .delete(partyContacts)
    .where(and(eq(partyContacts.tenantId, ctx.actor.tenantId), eq(partyContacts.partyId, row.id), eq(partyContacts.id, contactId)))
    .returning({ email: partyContacts.email })
  if (removed.length === 0) throw notFound()
  await touchParty(ctx, row.id)
  await auditDocControl(ctx, 'doc-control.party.changed', 'ProjectParty', row.id, { change: 'contact-removed', contactId, email: removed[0]?.email })
  return getParty(ctx, row.id)
}

async function touchParty(ctx: DomainContext, partyId: string): Promise<void> {
  await ctx.tx
    .update(projectParties)
    .set({ updatedAt: ctx.now })
    .where(and(eq(projectParties.tenantId, ctx.actor.tenantId), eq(projectParties.id, partyId)))
}

/** The outside contacts of some parties, each once (the first party it is in), for a transmittal's recipients. */
export async function contactsOfParties(ctx: DomainContext, partyIds: readonly string[]): Promise<Array<ContactInput & { id: string; partyId: string }>> {
  if (partyIds.length === 0) return []
  const rows = await ctx.tx
    .select({ id: partyContacts.id, partyId: partyContacts.partyId, name: partyContacts.name, company: partyContacts.company, email: partyContacts.email })
    .from(partyContacts)
    .where(and(eq(partyContacts.tenantId, ctx.actor.tenantId), inArray(partyContacts.partyId, [...partyIds])))
  const seen = new Set<string>()
  const answer: Array<ContactInput & { id: string; partyId: string }> = []
  for (const partyId of partyIds) {
    for (const row of rows) {
      if (row.partyId !== partyId || seen.has(row.email.toLowerCase())) continue
      seen.add(row.email.toLowerCase())
      answer.push(row)
    }
  }
  return answer
}
