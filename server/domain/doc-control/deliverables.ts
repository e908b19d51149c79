import { and, eq, inArray, sql } from 'drizzle-orm'
import { deliverables, projectParties } from '#server/db/schema-doc-control'
import { rowsOf } from '#server/db/tenancy'
import { actorEntries, decide } from '#server/domain/documents/access'
import { notFound } from '#server/domain/documents/places'
import type { DomainContext } from '#server/domain/tenancy/context'
import { refuseStaleWrite } from '#server/domain/tenancy/edit-conflict'
import { isUuid } from '~/lib/schemas/uuid'
import { Problem, problems, type FieldErrors } from '#server/http/problem'
import { SUITABILITY, atLeast } from '~/lib/documents/rules'
import { DELIVERABLE_FLAGS, type Deliverable, type DeliverableFlag, type DeliverablePage, type Milestone } from '~/lib/doc-control/types'
import { auditDocControl, managedProject, readableProject } from './parties'

/**
 * The deliverables register (MIDP/TIDP; docs/doc-control.md "Deliverables"): what each party must
 * produce and by when, against what was actually issued. A deliverable matches the project's
 * document of the same number (case-insensitive); it counts as issued on the first date a revision
 * of that document was published (approved by a review, published in a set, or uploaded with an
 * A/B/CR code) or sent in a transmittal.
 *
 * Its due date is its earliest milestone's planned date. Flags:
 * - issued: a revision was issued (whenever: the register shows the date against the plan);
 * - on-track: not issued yet, and due today or later (or no milestone dates);
 * - late: not issued, due before today, and the document exists (it is being worked on);
 * - missing: not issued, due before today, and no document has its number at all.
 */

export const DELIVERABLE_TITLE_MAX = 200
export const DELIVERABLE_NUMBER_MAX = 100
export const MILESTONE_NAME_MAX = 60
export const MILESTONES_MAX = 20

export type DeliverableInput = { number: string; title: string; partyId: string | null; milestones: Milestone[] }

export type DeliverableRow = {
  id: string
  projectId: string
  number: string
  title: string
  partyId: string | null
  milestones: Milestone[]
  revision: number
  updatedBy: string | null
  createdAt: Date
  updatedAt: Date
}

const columns = {
  id: deliverables.id,
  projectId: deliverables.projectId,
  number: deliverables.number,
  title: deliverables.title,
  partyId: deliverables.partyId,
  milestones: deliverables.milestones,
  revision: deliverables.revision,
  updatedBy: deliverables.updatedBy,
  createdAt: deliverables.createdAt,
  updatedAt: deliverables.updatedAt,
}

const PUBLISHED_CODES = SUITABILITY.filter((s) => s.state === 'Published').map((s) => s.code)

/** The earliest planned date of a deliverable's milestones, or null. */
export function dueDateOf(milestones: readonly Milestone[]): string | null {
  return milestones.reduce<string | null>((min, m) => (min === null || m.plannedDate < min ? m.plannedDate : min), null)
}

/** The flag of the rules above; `today` is the UTC date (YYYY-MM-DD). */
export function flagOf(milestones: readonly Milestone[], fact: { exists: boolean; firstIssuedAt: Date | null }, today: string): DeliverableFlag {
  if (fact.firstIssuedAt) return 'issued'
  const due = dueDateOf(milestones)
  if (due === null || due >= today) return 'on-track'
  return fact.exists ? 'late' : 'missing'
}

export type IssueFact = { documentId: string; folderPath: string[]; firstIssuedAt: Date | null }

/**
 * What was issued of each planned number of a project, by upper-cased number: the document and the
 * first time a revision of it was published or transmitted. One query for the whole register.
 */
export async function issueFacts(ctx: DomainContext, projectId: string): Promise<Map<string, IssueFact>> {
  const tenantId = ctx.actor.tenantId
  const published = sql.join(
    PUBLISHED_CODES.map((code) => sql`${code}`),
    sql`, `,
  )
  const result = await ctx.tx.execute(sql`
    select d.id as document_id, upper(d.number) as number, f.path as folder_path,
      (extract(epoch from least(
        (select min(coalesce(least(
            (select min(w.completed_at) from workflow_revisions wr
              join workflows w on w.tenant_id = wr.tenant_id and w.id = wr.workflow_id
              where wr.tenant_id = r.tenant_id and wr.revision_id = r.id and w.status = 'approved'),
            (select min(s.published_at) from document_set_revisions sr
              join document_sets s on s.tenant_id = sr.tenant_id and s.id = sr.set_id
              where sr.tenant_id = r.tenant_id and sr.revision_id = r.id and s.status = 'published')
          ), r.created_at))
          from document_revisions r
          where r.tenant_id = d.tenant_id and r.document_id = d.id and r.status in (${published})),
        (select min(t.sent_at) from transmittal_revisions tr
          join transmittals t on t.tenant_id = tr.tenant_id and t.id = tr.transmittal_id
          where tr.tenant_id = d.tenant_id and tr.document_id = d.id and t.sent_at is not null)
      )) * 1000)::float8 as first_issued_ms
    from documents d
    left join document_folders f on f.tenant_id = d.tenant_id and f.id = d.folder_id
    where d.tenant_id = ${tenantId} and d.project_id = ${projectId}
      and upper(d.number) in (select upper(number) from deliverables where tenant_id = ${tenantId} and project_id = ${projectId})`)
  const rows = rowsOf<{ document_id: string; number: string; folder_path: string[] | string | null; first_issued_ms: number | string | null }>(result)
  return new Map(
    rows.map((row) => [
      row.number,
      {
        documentId: row.document_id,
        folderPath: pathOf(row.folder_path),
        firstIssuedAt: row.first_issued_ms === null ? null : new Date(Number(row.first_issued_ms)),
      },
    ]),
  )
}

/** A uuid[] column read through a raw query: an array, or its text form `{a,b}` on drivers that do not parse it. */
function pathOf(value: string[] | string | null): string[] {
  if (value === null) return []
  if (Array.isArray(value)) return value
  const inner = value.replace(/^\{|\}$/g, '')
  return inner === '' ? [] : inner.split(',')
}

export function todayOf(now: Date): string {
  return now.toISOString().slice(0, 10)
}

/** The register with its facts and flags, ordered by number. The matching document is named only to who may view it. */
export async function registerOf(ctx: DomainContext, projectId: string): Promise<Deliverable[]> {
  const rows = await ctx.tx
    .select(columns)
    .from(deliverables)
    .where(and(eq(deliverables.tenantId, ctx.actor.tenantId), eq(deliverables.projectId, projectId)))
    .orderBy(sql`upper(${deliverables.number})`)
  if (rows.length === 0) return []
  const facts = await issueFacts(ctx, projectId)
  const entries = ctx.actor.roleKey === 'admin' ? [] : await actorEntries(ctx, projectId)
  const today = todayOf(ctx.now)
  return rows.map((row) => {
    const fact = facts.get(row.number.toUpperCase())
    const visible = fact ? atLeast(decide(ctx.actor, entries, { projectId, folderPath: fact.folderPath, documentId: fact.documentId }), 'view') : false
    return viewOf(row, fact ?? null, visible, today)
  })
}

function viewOf(row: DeliverableRow, fact: IssueFact | null, visible: boolean, today: string): Deliverable {
  return {
    id: row.id,
    projectId: row.projectId,
    number: row.number,
    title: row.title,
    partyId: row.partyId,
    milestones: row.milestones,
    documentId: fact && visible ? fact.documentId : null,
    firstIssuedAt: fact?.firstIssuedAt?.toISOString() ?? null,
    flag: flagOf(row.milestones, { exists: fact !== null, firstIssuedAt: fact?.firstIssuedAt ?? null }, today),
    revision: row.revision,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }
}

export type DeliverableQuery = { flag?: DeliverableFlag | undefined; q?: string | undefined; page: number; pageSize: number }

/** GET /api/projects/{projectId}/deliverables */
export async function listDeliverables(ctx: DomainContext, projectId: string, query: DeliverableQuery): Promise<DeliverablePage> {
  await readableProject(ctx, projectId)
  const all = await registerOf(ctx, projectId)
  const counts = Object.fromEntries(DELIVERABLE_FLAGS.map((flag) => [flag, 0])) as Record<DeliverableFlag, number>
  for (const d of all) counts[d.flag]++
  const needle = query.q?.trim().toLowerCase()
  const chosen = all.filter((d) => (!query.flag || d.flag === query.flag) && (!needle || d.number.toLowerCase().includes(needle) || d.title.toLowerCase().includes(needle)))
  const start = (query.page - 1) * query.pageSize
  return { items: chosen.slice(start, start + query.pageSize), total: chosen.length, page: query.page, pageSize: query.pageSize, counts }
}

async function findDeliverable(ctx: DomainContext, deliverableId: string): Promise<DeliverableRow> {
  if (!isUuid(deliverableId)) throw notFound()
  const [row] = await ctx.tx
    .select(columns)
    .from(deliverables)
    .where(and(eq(deliverables.tenantId, ctx.actor.tenantId), eq(deliverables.id, deliverableId)))
    .limit(1)
    .for('update')
  if (!row) throw notFound()
  return row
}

async function oneView(ctx: DomainContext, row: DeliverableRow): Promise<Deliverable> {
  const found = (await registerOf(ctx, row.projectId)).find((d) => d.id === row.id)
  if (!found) throw notFound()
  return found
}

/** Checks a deliverable among the project's others: every problem at once, as field errors (`number`, `milestones.1.plannedDate`…). */
async function checkDeliverable(ctx: DomainContext, projectId: string, input: DeliverableInput, selfId: string | null): Promise<void> {
  const errors: FieldErrors = {}
  const add = (field: string, message: string) => (errors[field] ??= []).push(message)
  const [taken] = await ctx.tx
    .select({ id: deliverables.id })
    .from(deliverables)
    .where(and(eq(deliverables.tenantId, ctx.actor.tenantId), eq(deliverables.projectId, projectId), sql`upper(${deliverables.number}) = upper(${input.number})`))
    .limit(1)
  if (taken && taken.id !== selfId) add('number', `${input.number} is already in the register.`)
  milestoneProblems(input.milestones).forEach(([field, message]) => add(field, message))
  if (Object.keys(errors).length > 0) throw new Problem(problems.badRequest('The deliverable has problems.', errors))
  await requireParty(ctx, projectId, input.partyId)
}

/** A real calendar date, not just its shape (2026-02-30 is not one). */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false
  const date = new Date(`${value}T00:00:00Z`)
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value
}

export function milestoneProblems(milestones: readonly Milestone[]): Array<[string, string]> {
  const found: Array<[string, string]> = []
  const names = new Set<string>()
  milestones.forEach((m, index) => {
    if (names.has(m.name.toLowerCase())) found.push([`milestones.${index}.name`, `The milestone “${m.name}” is listed twice.`])
    names.add(m.name.toLowerCase())
    if (!isCalendarDate(m.plannedDate)) found.push([`milestones.${index}.plannedDate`, `${m.plannedDate} is not a date: write it as YYYY-MM-DD.`])
  })
  return found
}

/** A responsible party must be one of this project's; any other id is 404, as an id the caller cannot see. */
async function requireParty(ctx: DomainContext, projectId: string, partyId: string | null): Promise<void> {
  if (partyId === null) return
  if (!isUuid(partyId)) throw notFound()
  const [party] = await ctx.tx
    .select({ id: projectParties.id })
    .from(projectParties)
    .where(and(eq(projectParties.tenantId, ctx.actor.tenantId), eq(projectParties.projectId, projectId), eq(projectParties.id, partyId)))
    .limit(1)
  if (!party) throw notFound()
}

/** POST /api/projects/{projectId}/deliverables */
export async function createDeliverable(ctx: DomainContext, projectId: string, input: DeliverableInput): Promise<Deliverable> {
  await managedProject(ctx, projectId)
  await checkDeliverable(ctx, projectId, input, null)
  const [row] = await ctx.tx
    .insert(deliverables)
    .values({ tenantId: ctx.actor.tenantId, projectId, ...input, createdAt: ctx.now, updatedAt: ctx.now })
    .returning(columns)
  if (!row) throw new Error('deliverable not stored')
  await auditDocControl(ctx, 'doc-control.deliverables.changed', 'Deliverable', row.id, { change: 'created', number: row.number })
  return oneView(ctx, row)
}

/** A save of a deliverable (the form or an import): its revision goes one up and names who saved. */
export function deliverableSavedBy(ctx: DomainContext) {
  return { revision: sql`${deliverables.revision} + 1`, updatedBy: ctx.actor.userId, updatedAt: ctx.now }
}

/** PATCH /api/deliverables/{deliverableId}: a save against an older revision is refused (409 KR_EDIT_CONFLICT). */
export async function updateDeliverable(ctx: DomainContext, deliverableId: string, patch: Partial<DeliverableInput> & { expectedRevision?: number | undefined }): Promise<Deliverable> {
  const row = await findDeliverable(ctx, deliverableId)
  await managedProject(ctx, row.projectId)
  await refuseStaleWrite(ctx, { ...row, what: 'deliverable' }, patch.expectedRevision, () => oneView(ctx, row))
  const { expectedRevision: _, ...changes } = patch
  const next: DeliverableInput = {
    number: patch.number ?? row.number,
    title: patch.title ?? row.title,
    partyId: patch.partyId === undefined ? row.partyId : patch.partyId,
    milestones: patch.milestones ?? row.milestones,
  }
  await checkDeliverable(ctx, row.projectId, next, row.id)
  const [updated] = await ctx.tx
    .update(deliverables)
    .set({ ...next, ...deliverableSavedBy(ctx) })
    .where(and(eq(deliverables.tenantId, ctx.actor.tenantId), eq(deliverables.id, row.id)))
    .returning(columns)
  if (!updated) throw notFound()
  await auditDocControl(ctx, 'doc-control.deliverables.changed', 'Deliverable', row.id, { change: 'updated', ...changes })
  return oneView(ctx, updated)
}

/** DELETE /api/deliverables/{deliverableId} */
export async function deleteDeliverable(ctx: DomainContext, deliverableId: string): Promise<void> {
  const row = await findDeliverable(ctx, deliverableId)
  await managedProject(ctx, row.projectId)
  await ctx.tx.delete(deliverables).where(and(eq(deliverables.tenantId, ctx.actor.tenantId), eq(deliverables.id, row.id)))
  await auditDocControl(ctx, 'doc-control.deliverables.changed', 'Deliverable', row.id, { change: 'deleted', number: row.number })
}

/** Existing deliverables of a project by upper-cased number (for the import's upsert). */
export async function deliverablesByNumber(ctx: DomainContext, projectId: string, numbers: readonly string[]): Promise<Map<string, DeliverableRow>> {
  if (numbers.length === 0) return new Map()
  const rows = await ctx.tx
    .select(columns)
    .from(deliverables)
    .where(
      and(
        eq(deliverables.tenantId, ctx.actor.tenantId),
        eq(deliverables.projectId, projectId),
        inArray(
          sql`upper(${deliverables.number})`,
          numbers.map((n) => n.toUpperCase()),
        ),
      ),
    )
  return new Map(rows.map((row) => [row.number.toUpperCase(), row]))
}
