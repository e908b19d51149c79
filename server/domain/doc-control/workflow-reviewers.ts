import { and, eq, inArray, or, sql } from 'drizzle-orm'
import { memberships, users } from '#server/db/schema'
import { matrixEntries, partyMembers } from '#server/db/schema-doc-control'
import { documentFolders, documents } from '#server/db/schema-documents'
import type { RoleKey } from '#server/domain/tenancy/roles'
import { actorEntries, decide, entriesFor } from '#server/domain/documents/access'
import type { Actor, DomainContext } from '#server/domain/tenancy/context'
import type { FieldErrors } from '#server/http/problem'
import type { WorkflowStepDefinition } from '~/lib/doc-control/types'
import { atLeast } from '~/lib/documents/rules'
import type { PermissionLevel } from '~/lib/documents/types'
import { unprocessable } from './workflow-problems'

/**
 * Who reviews (docs/doc-control.md "Workflow"): a step's rules resolved to people — named people,
 * every active member of a role, the members of a party, or the members of the parties the
 * project's responsibility matrix names as reviewers of the documents' discipline and type — kept
 * to those who can take part: active members who are not read-only and may view every document
 * under review (anyone else would be answered 404 on the review's own page).
 */

/** What resolution needs of each document under review. */
export type ReviewDoc = { documentId: string; discipline: string; docType: string; folderPath: readonly string[] }

export type Person = { id: string; displayName: string; email: string }

/** The documents' discipline, type and folder path (one query). */
export async function reviewDocs(ctx: DomainContext, documentIds: readonly string[]): Promise<ReviewDoc[]> {
  if (documentIds.length === 0) return []
  const rows = await ctx.tx
    .select({ documentId: documents.id, discipline: documents.discipline, docType: documents.docType, folderPath: documentFolders.path })
    .from(documents)
    .leftJoin(documentFolders, and(eq(documentFolders.tenantId, documents.tenantId), eq(documentFolders.id, documents.folderId)))
    .where(and(eq(documents.tenantId, ctx.actor.tenantId), inArray(documents.id, [...documentIds])))
  return rows.map((row) => ({ ...row, folderPath: row.folderPath ?? [] }))
}

/** The caller's level on each document (one query for the entries). */
export async function callerLevels(ctx: DomainContext, projectId: string, docs: readonly ReviewDoc[]): Promise<Map<string, PermissionLevel>> {
  const entries = ctx.actor.roleKey === 'admin' ? [] : await actorEntries(ctx, projectId)
  return new Map(docs.map((doc) => [doc.documentId, decide(ctx.actor, entries, { projectId, folderPath: doc.folderPath, documentId: doc.documentId })]))
}

/** Of these people, those who may review the documents: active, not read-only, and at view or more on every document. */
export async function eligibleReviewers(ctx: DomainContext, projectId: string, userIds: readonly string[], docs: readonly ReviewDoc[]): Promise<Map<string, Person>> {
  const wanted = [...new Set(userIds)]
  if (wanted.length === 0) return new Map()
  const members = await ctx.tx
    .select({ id: users.id, displayName: users.displayName, email: users.email, roleKey: memberships.roleKey, status: memberships.status })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.tenantId, ctx.actor.tenantId), inArray(memberships.userId, wanted)))
  const candidates = members.filter((m) => m.status === 'active' && m.roleKey !== 'read-only')
  const entries = candidates.some((m) => m.roleKey !== 'admin') ? await entriesFor(ctx, { userIds: candidates.map((m) => m.id) }, projectId) : []
  const eligible = new Map<string, Person>()
  for (const member of candidates) {
    const actor: Actor = { tenantId: ctx.actor.tenantId, userId: member.id, roleKey: member.roleKey as RoleKey }
    const own = entries.filter((e) => (e.subjectKind === 'user' && e.subject === member.id) || (e.subjectKind === 'role' && e.subject === member.roleKey))
    const seesAll = docs.every((doc) => atLeast(decide(actor, own, { projectId, folderPath: doc.folderPath, documentId: doc.documentId }), 'view'))
    if (seesAll) eligible.set(member.id, { id: member.id, displayName: member.displayName, email: member.email })
  }
  return eligible
}

/** The people a step's rules name, in the rules' order, before the eligibility filter. */
async function candidatesOf(ctx: DomainContext, projectId: string, step: WorkflowStepDefinition, docs: readonly ReviewDoc[]): Promise<string[]> {
  const found: string[] = []
  for (const rule of step.reviewers) {
    if (rule.type === 'user') found.push(rule.userId)
    if (rule.type === 'role') {
      const rows = await ctx.tx
        .select({ id: memberships.userId })
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.userId))
        .where(and(eq(memberships.tenantId, ctx.actor.tenantId), eq(memberships.roleKey, rule.roleKey), eq(memberships.status, 'active')))
        .orderBy(sql`lower(${users.displayName})`)
      found.push(...rows.map((r) => r.id))
    }
    if (rule.type === 'party') found.push(...(await partyPeople(ctx, [rule.partyId])))
    if (rule.type === 'matrix') found.push(...(await partyPeople(ctx, await matrixReviewers(ctx, projectId, docs))))
  }
  return [...new Set(found)]
}

async function partyPeople(ctx: DomainContext, partyIds: readonly string[]): Promise<string[]> {
  if (partyIds.length === 0) return []
  const rows = await ctx.tx
    .select({ id: partyMembers.userId })
    .from(partyMembers)
    .innerJoin(users, eq(users.id, partyMembers.userId))
    .where(and(eq(partyMembers.tenantId, ctx.actor.tenantId), inArray(partyMembers.partyId, [...partyIds])))
    .orderBy(sql`${partyMembers.lead} desc`, sql`lower(${users.displayName})`)
  return rows.map((r) => r.id)
}

/** The parties the matrix names as reviewers of any of the documents: their discipline, and their type or any type (''). */
async function matrixReviewers(ctx: DomainContext, projectId: string, docs: readonly ReviewDoc[]): Promise<string[]> {
  if (docs.length === 0) return []
  const rows = await ctx.tx
    .selectDistinct({ partyId: matrixEntries.partyId })
    .from(matrixEntries)
    .where(
      and(
        eq(matrixEntries.tenantId, ctx.actor.tenantId),
        eq(matrixEntries.projectId, projectId),
        eq(matrixEntries.responsibility, 'review'),
        or(...docs.map((doc) => and(eq(matrixEntries.discipline, doc.discipline), inArray(matrixEntries.docType, [doc.docType, ''])))),
      ),
    )
  return rows.map((r) => r.partyId)
}

export type ProposedStep = { step: number; name: string; reviewers: Person[]; problem: string | null }

/** Each step's reviewers from its rules (the proposal), with why a step has nobody. */
export async function proposeSteps(ctx: DomainContext, projectId: string, steps: readonly WorkflowStepDefinition[], docs: readonly ReviewDoc[]): Promise<ProposedStep[]> {
  // One after another: they share the transaction's connection.
  const candidates: string[][] = []
  for (const step of steps) candidates.push(await candidatesOf(ctx, projectId, step, docs))
  const eligible = await eligibleReviewers(ctx, projectId, candidates.flat(), docs)
  return steps.map((step, index) => {
    const named = candidates[index] ?? []
    const people = named.flatMap((id) => eligible.get(id) ?? [])
    const problem =
      people.length > 0
        ? null
        : named.length === 0
          ? step.reviewers.some((r) => r.type === 'matrix')
            ? 'Nobody: the responsibility matrix names no reviewing party (with members) for these documents.'
            : 'Nobody: the step’s reviewers name no one.'
          : 'Nobody who may review: the people named are read-only, inactive, or may not see every document.'
    return { step: index, name: step.name, reviewers: people, problem }
  })
}

/**
 * Who reviews at each step of a new review: the people chosen for a step (`overrides`, by step
 * index) or its rules' people. A chosen person who cannot review, a step number the template does
 * not have, and a step left with nobody are 422, each under `reviewers.{step}`.
 */
export async function planReviewers(
  ctx: DomainContext,
  projectId: string,
  steps: readonly WorkflowStepDefinition[],
  docs: readonly ReviewDoc[],
  overrides: Record<string, string[]> = {},
): Promise<string[][]> {
  const errors: FieldErrors = {}
  for (const key of Object.keys(overrides)) {
    if (Number(key) >= steps.length) errors[`reviewers.${key}`] = [`The template has ${steps.length} step${steps.length === 1 ? '' : 's'}, numbered from 0.`]
  }
  const chosen = Object.values(overrides).flat()
  const eligibleChosen = await eligibleReviewers(ctx, projectId, chosen, docs)
  const proposed = await proposeSteps(ctx, projectId, steps, docs)
  const plan = steps.map((step, index) => {
    const override = overrides[String(index)]
    if (override) {
      const refused = override.filter((id) => !eligibleChosen.has(id))
      if (refused.length > 0)
        errors[`reviewers.${index}`] = [
          `${refused.length === 1 ? 'One person' : `${refused.length} people`} chosen for “${step.name}” cannot review: not an active member who may see every document, or read-only.`,
        ]
      return [...new Set(override)]
    }
    const found = proposed[index]
    if (!found || found.reviewers.length === 0) errors[`reviewers.${index}`] = [`Step ${index + 1} “${step.name}” has nobody to review it. ${found?.problem ?? ''}`.trim()]
    return found?.reviewers.map((p) => p.id) ?? []
  })
  if (Object.keys(errors).length > 0) throw unprocessable('Some steps have nobody who can review them: see each step.', errors)
  return plan
}
