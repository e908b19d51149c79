import { and, eq } from 'drizzle-orm'
import { deliverables } from '#server/db/schema-doc-control'
import type { DomainContext } from '#server/domain/tenancy/context'
import { Problem, problems } from '#server/http/problem'
import type { DeliverableImport, Milestone } from '~/lib/doc-control/types'
import { textProblem } from '~/lib/schemas/text'
import { DELIVERABLE_NUMBER_MAX, DELIVERABLE_TITLE_MAX, MILESTONE_NAME_MAX, MILESTONES_MAX, deliverablesByNumber, deliverableSavedBy, dueDateOf, isCalendarDate, registerOf } from './deliverables'
import { csvText, unguardFormula } from '#server/domain/formats/csv'
import { parseCsv } from './deliverables-csv'
import { auditDocControl, managedProject, projectPartyRows, readableProject } from './parties'

/**
 * The deliverables register as CSV (docs/doc-control.md): one row per deliverable with its plan and
 * what was issued. The columns people edit are Number, Title, Responsible party (its code or name)
 * and one "Milestone: <name>" column per milestone (a planned date, YYYY-MM-DD); Due, Document,
 * First issued and Flag are the system's and an import ignores them. Importing upserts by number.
 */

export const IMPORT_MAX_LINES = 5000

const COLUMN = { number: 'Number', title: 'Title', party: 'Responsible party', due: 'Due', document: 'Document', issued: 'First issued', flag: 'Flag' } as const
const MILESTONE_PREFIX = 'Milestone:'
const READ_ONLY_COLUMNS = new Set<string>([COLUMN.due, COLUMN.document, COLUMN.issued, COLUMN.flag].map((c) => c.toLowerCase()))

/** GET /api/projects/{projectId}/deliverables/export */
export async function exportDeliverables(ctx: DomainContext, projectId: string): Promise<{ fileName: string; csv: string }> {
  const project = await readableProject(ctx, projectId)
  const [register, parties] = await Promise.all([registerOf(ctx, projectId), projectPartyRows(ctx, projectId)])
  const partyName = new Map(parties.map((p) => [p.id, p.code ?? p.name]))
  // Milestone columns in the order of their earliest planned date, so the file reads left to right in time.
  const firstDate = new Map<string, string>()
  for (const d of register) for (const m of d.milestones) if (!firstDate.has(m.name) || m.plannedDate < (firstDate.get(m.name) as string)) firstDate.set(m.name, m.plannedDate)
  const milestoneNames = [...firstDate.keys()].sort((a, b) => (firstDate.get(a) as string).localeCompare(firstDate.get(b) as string) || a.localeCompare(b))
  const header = [COLUMN.number, COLUMN.title, COLUMN.party, ...milestoneNames.map((n) => `${MILESTONE_PREFIX} ${n}`), COLUMN.due, COLUMN.document, COLUMN.issued, COLUMN.flag]
  const rows = register.map((d) => [
    d.number,
    d.title,
    d.partyId ? (partyName.get(d.partyId) ?? '') : '',
    ...milestoneNames.map((name) => d.milestones.find((m) => m.name === name)?.plannedDate ?? ''),
    dueDateOf(d.milestones) ?? '',
    d.documentId ? d.number : '',
    d.firstIssuedAt?.slice(0, 10) ?? '',
    d.flag,
  ])
  const code = (project.code ?? 'project').replace(/[^A-Za-z0-9_-]/g, '')
  return { fileName: `${code || 'project'}-deliverables.csv`, csv: csvText([header, ...rows]) }
}

type Columns = { number: number; title: number; party: number | null; milestones: Array<{ index: number; name: string }> }

function columnsOf(header: string[]): { columns: Columns; ignored: string[] } {
  const find = (name: string) => header.findIndex((h) => h.trim().toLowerCase() === name.toLowerCase())
  const number = find(COLUMN.number)
  const title = find(COLUMN.title)
  const missing = [number < 0 ? COLUMN.number : null, title < 0 ? COLUMN.title : null].filter((c) => c !== null)
  if (missing.length > 0) {
    throw new Problem(problems.badRequest('The CSV cannot be read.', { csv: [`The first line must name the columns, including ${missing.join(' and ')}.`] }))
  }
  const party = find(COLUMN.party)
  const milestones: Columns['milestones'] = []
  const ignored: string[] = []
  header.forEach((raw, index) => {
    const h = raw.trim()
    if (h.toLowerCase().startsWith(MILESTONE_PREFIX.toLowerCase())) {
      const name = h.slice(MILESTONE_PREFIX.length).trim()
      if (name) milestones.push({ index, name: name.slice(0, MILESTONE_NAME_MAX) })
      else ignored.push(h)
    } else if (![number, title, party].includes(index) && !READ_ONLY_COLUMNS.has(h.toLowerCase()) && h !== '') ignored.push(h)
  })
  return { columns: { number, title, party: party < 0 ? null : party, milestones }, ignored }
}

type Parsed = { line: number; number: string; title: string; partyId: string | null | undefined; milestones: Array<{ name: string; plannedDate: string | null }> }

/**
 * POST /api/projects/{projectId}/deliverables/import: every good line is upserted by number (a new
 * number is created, a known one updated); a line with problems changes nothing and is named in
 * `errors` with what is wrong. Milestone columns set (or, left empty, remove) the milestone of that
 * name; milestones without a column in the file are kept.
 */
export async function importDeliverables(ctx: DomainContext, projectId: string, text: string): Promise<DeliverableImport> {
  await managedProject(ctx, projectId)
  const { rows, problems: csvProblems } = parseCsv(text)
  const [header, ...lines] = rows
  if (!header) throw new Problem(problems.badRequest('The CSV cannot be read.', { csv: ['The file is empty: the first line names the columns (Number, Title…).'] }))
  if (lines.length > IMPORT_MAX_LINES) throw new Problem(problems.badRequest('The CSV cannot be read.', { csv: [`At most ${IMPORT_MAX_LINES} deliverables in one file.`] }))
  const brokenHeader = header.cells.map(textProblem).find((problem) => problem !== undefined)
  if (brokenHeader) throw new Problem(problems.badRequest('The CSV cannot be read.', { csv: [`The first line: ${brokenHeader}`] }))
  const { columns, ignored } = columnsOf(header.cells)
  const errors: DeliverableImport['errors'] = [...csvProblems]
  if (ignored.length > 0) errors.push({ line: header.line, message: `Not read: the column${ignored.length > 1 ? 's' : ''} ${ignored.map((c) => `“${c}”`).join(', ')}.` })

  const parties = await projectPartyRows(ctx, projectId)
  const partyByKey = new Map<string, string>()
  for (const p of parties) {
    partyByKey.set(p.name.toLowerCase(), p.id)
    if (p.code) partyByKey.set(p.code.toLowerCase(), p.id)
  }
  const seen = new Set<string>()
  const good: Parsed[] = []
  for (const row of lines) {
    // The one text rule (app/lib/schemas/text.ts): what PostgreSQL cannot store never reaches it.
    const broken = row.cells.map(textProblem).find((problem) => problem !== undefined)
    if (broken) {
      errors.push({ line: row.line, message: broken })
      continue
    }
    const cell = (index: number | null) => (index === null ? '' : unguardFormula(row.cells[index]?.trim() ?? ''))
    const number = cell(columns.number)
    const title = cell(columns.title)
    const problemsHere: string[] = []
    if (!number) problemsHere.push('the number is empty')
    else if (number.length > DELIVERABLE_NUMBER_MAX) problemsHere.push(`the number is longer than ${DELIVERABLE_NUMBER_MAX} characters`)
    else if (seen.has(number.toUpperCase())) problemsHere.push(`${number} is already on an earlier line`)
    if (!title) problemsHere.push('the title is empty')
    else if (title.length > DELIVERABLE_TITLE_MAX) problemsHere.push(`the title is longer than ${DELIVERABLE_TITLE_MAX} characters`)
    let partyId: string | null | undefined
    if (columns.party !== null) {
      const key = cell(columns.party)
      partyId = key ? (partyByKey.get(key.toLowerCase()) ?? undefined) : null
      if (partyId === undefined) problemsHere.push(`no party of this project is called or coded “${key}”`)
    }
    const milestones = columns.milestones.map(({ index, name }) => ({ name, plannedDate: cell(index) || null }))
    for (const m of milestones) if (m.plannedDate !== null && !isCalendarDate(m.plannedDate)) problemsHere.push(`${m.name}: “${m.plannedDate}” is not a date (YYYY-MM-DD)`)
    if (number) seen.add(number.toUpperCase())
    if (problemsHere.length > 0) {
      errors.push({ line: row.line, message: `${problemsHere.join('; ')}.`.replace(/^./, (c) => c.toUpperCase()) })
      continue
    }
    good.push({ line: row.line, number, title, partyId, milestones })
  }

  const existing = await deliverablesByNumber(
    ctx,
    projectId,
    good.map((g) => g.number),
  )
  let created = 0
  let updated = 0
  for (const line of good) {
    const before = existing.get(line.number.toUpperCase())
    const kept = (before?.milestones ?? []).filter((m) => !line.milestones.some((n) => n.name.toLowerCase() === m.name.toLowerCase()))
    const milestones: Milestone[] = [...kept, ...line.milestones.flatMap((m) => (m.plannedDate ? [{ name: m.name, plannedDate: m.plannedDate }] : []))]
    if (milestones.length > MILESTONES_MAX) {
      errors.push({ line: line.line, message: `At most ${MILESTONES_MAX} milestones per deliverable.` })
      continue
    }
    const partyId = line.partyId === undefined ? (before?.partyId ?? null) : line.partyId
    if (before) {
      await ctx.tx
        .update(deliverables)
        .set({ number: line.number, title: line.title, partyId, milestones, ...deliverableSavedBy(ctx) })
        .where(and(eq(deliverables.tenantId, ctx.actor.tenantId), eq(deliverables.id, before.id)))
      updated++
    } else {
      await ctx.tx
        .insert(deliverables)
        .values({ tenantId: ctx.actor.tenantId, projectId, number: line.number, title: line.title, partyId, milestones, createdAt: ctx.now, updatedAt: ctx.now })
      created++
    }
  }
  errors.sort((a, b) => a.line - b.line)
  if (created + updated > 0) await auditDocControl(ctx, 'doc-control.deliverables.changed', 'Project', projectId, { change: 'imported', created, updated, errors: errors.length })
  return { created, updated, errors }
}
