import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { recordChange } from '#server/domain/tenancy/change-log'
import type { DomainContext } from '#server/domain/tenancy/context'
import type { ActivityEntry, ItemPriority, ItemResponse, ItemStatus } from '~/lib/reporting/types'
import type { Database, Tx } from './client'
import { itemActivity, itemResponses, packages, projectPackages, projects, reportItems, reports, type ActivityChange } from './schema-reporting'
import { withTenant } from './tenancy'

/**
 * Demo site-reporting data: every organisation's packages; for the demo organisation three
 * projects (one untitled, one archived), their reports and items across statuses, priorities,
 * packages and assignees, some overdue, each with a thread and activity that tell its story; for
 * the second organisation one project, one report and two items. Everything is written through
 * recordChange in time order, as the application would have, so the change log, the revisions and
 * the timestamps agree.
 */

/** Organisation packages: the usual trades of a UK building site. The last one is switched off. */
export const SEED_PACKAGES = [
  { key: 'civils', name: 'Civils & groundworks' },
  { key: 'structural-steel', name: 'Structural steel' },
  { key: 'concrete', name: 'Concrete frame' },
  { key: 'mep-electrical', name: 'MEP – electrical' },
  { key: 'mep-mechanical', name: 'MEP – mechanical' },
  { key: 'plumbing', name: 'Plumbing & drainage' },
  { key: 'drylining', name: 'Drylining & partitions' },
  { key: 'roofing', name: 'Roofing' },
  { key: 'glazing', name: 'Glazing & façade' },
  { key: 'finishes', name: 'Finishes' },
  { key: 'landscaping', name: 'Landscaping' },
  { key: 'demolition', name: 'Demolition & strip-out', active: false },
] as const

export type SeedPeople = { demoTenantId: string; otherTenantId: string; adminId: string; userId: string; otherUserId: string }

type Who = 'admin' | 'user'
type Event =
  | { kind: 'respond' | 'request-close' | 'reject'; by: Who; daysAgo: number; body: string }
  | { kind: 'close'; by: Who; daysAgo: number; body?: string }
  | { kind: 'assign'; by: Who; daysAgo: number; to: Who | null }

type ItemSeed = {
  report: string
  title: string
  description?: string
  priority: ItemPriority
  packageKey: string
  location: string
  /** Days from today; negative is in the past. */
  due: number | null
  by: Who
  daysAgo: number
  assignee: Who | null
  events?: Event[]
}

const DEMO_PROJECTS = [
  { key: 'riverside', title: 'Riverside Apartments – Block A', code: 'RSA-A', by: 'admin', daysAgo: 75, off: ['landscaping'] },
  { key: 'untitled', title: null, code: 'P-0042', by: 'user', daysAgo: 20, off: [] },
  { key: 'hillcrest', title: 'Hillcrest Depot refurbishment', code: 'HCD', by: 'admin', daysAgo: 120, off: [], on: ['demolition'], archivedDaysAgo: 15 },
] as const

const DEMO_REPORTS = [
  { key: 'level3', project: 'riverside', title: 'Level 3 snagging walk', by: 'user', daysAgo: 40 },
  { key: 'facade', project: 'riverside', title: 'Façade inspection – east elevation', by: 'admin', daysAgo: 30 },
  { key: 'week32', project: 'riverside', title: 'Weekly site walk – week 32', by: 'user', daysAgo: 10 },
  { key: 'prestart', project: 'untitled', title: 'Pre-start inspection', by: 'user', daysAgo: 18 },
  { key: 'handover', project: 'hillcrest', title: 'Handover snagging', by: 'admin', daysAgo: 45 },
] as const

const DEMO_ITEMS: ItemSeed[] = [
  { report: 'handover', title: 'Touch up paint to loading bay doors', priority: 'low', packageKey: 'finishes', location: 'Loading bay', due: -30, by: 'admin', daysAgo: 44, assignee: 'user', events: [
    { kind: 'request-close', by: 'user', daysAgo: 35, body: 'Both doors touched up and signed off by the decorator.' },
    { kind: 'close', by: 'admin', daysAgo: 33, body: 'Checked on site, all good.' },
  ] },
  { report: 'handover', title: 'Gutter joint leaking above office entrance', description: 'Water drips onto the entrance canopy during rain.', priority: 'medium', packageKey: 'roofing', location: 'Office entrance', due: -25, by: 'admin', daysAgo: 44, assignee: 'user', events: [
    { kind: 'respond', by: 'user', daysAgo: 40, body: 'Roofer booked for Thursday.' },
    { kind: 'request-close', by: 'user', daysAgo: 32, body: 'Joint resealed, tested with a hose.' },
    { kind: 'close', by: 'admin', daysAgo: 30 },
  ] },
  { report: 'level3', title: 'Missing fire stopping around riser penetrations', description: 'Three service penetrations in riser R2 have no fire stopping.', priority: 'high', packageKey: 'mep-mechanical', location: 'Level 3, riser R2', due: -5, by: 'admin', daysAgo: 38, assignee: 'user', events: [
    { kind: 'respond', by: 'user', daysAgo: 20, body: 'Fire stopping contractor booked for next week.' },
  ] },
  { report: 'level3', title: 'Cracked floor tile at corridor entrance', priority: 'low', packageKey: 'finishes', location: 'Level 3, corridor C3', due: 10, by: 'user', daysAgo: 38, assignee: 'user', events: [
    { kind: 'request-close', by: 'user', daysAgo: 10, body: 'Tile replaced.' },
  ] },
  { report: 'level3', title: 'Socket outlet not flush with plasterboard', priority: 'medium', packageKey: 'mep-electrical', location: 'Level 3, flat 3.04 kitchen', due: -12, by: 'user', daysAgo: 37, assignee: 'admin', events: [
    { kind: 'request-close', by: 'admin', daysAgo: 15, body: 'Back box reset and faceplate refitted.' },
    { kind: 'close', by: 'user', daysAgo: 12, body: 'Confirmed flush.' },
  ] },
  { report: 'level3', title: 'Door closer missing on stair core door', priority: 'high', packageKey: 'finishes', location: 'Stair core B, Level 3', due: 3, by: 'admin', daysAgo: 36, assignee: null },
  { report: 'facade', title: 'Sealant gap at window head, flat 2.01', priority: 'critical', packageKey: 'glazing', location: 'East elevation, Level 2', due: -2, by: 'admin', daysAgo: 29, assignee: 'user', events: [
    { kind: 'request-close', by: 'user', daysAgo: 8, body: 'Window head resealed.' },
    { kind: 'reject', by: 'admin', daysAgo: 6, body: 'The gap is still visible at the left-hand corner: please reseal the full length.' },
  ] },
  { report: 'facade', title: 'Cladding panel scratched during delivery', priority: 'medium', packageKey: 'glazing', location: 'East elevation, grid 4–5', due: 14, by: 'admin', daysAgo: 28, assignee: 'user' },
  { report: 'facade', title: 'Roof outlet blocked with debris', priority: 'medium', packageKey: 'roofing', location: 'Roof level, outlet RO-3', due: -20, by: 'admin', daysAgo: 27, assignee: 'admin', events: [
    { kind: 'request-close', by: 'admin', daysAgo: 18, body: 'Outlet cleared and guard fitted.' },
  ] },
  { report: 'prestart', title: 'Groundwater in excavation for pad foundation F4', description: 'Standing water about 300 mm deep; pump needed before blinding.', priority: 'high', packageKey: 'civils', location: 'Grid C/4', due: -3, by: 'user', daysAgo: 17, assignee: null, events: [
    { kind: 'assign', by: 'admin', daysAgo: 16, to: 'user' },
    { kind: 'respond', by: 'user', daysAgo: 4, body: 'Pump on hire from Monday.' },
  ] },
  { report: 'prestart', title: 'Temporary drainage not connected', priority: 'medium', packageKey: 'plumbing', location: 'Site compound', due: 5, by: 'user', daysAgo: 17, assignee: 'admin', events: [
    { kind: 'close', by: 'user', daysAgo: 5, body: 'Connected and tested during my walk.' },
  ] },
  { report: 'week32', title: 'Rebar exposed at ramp edge', priority: 'high', packageKey: 'concrete', location: 'Car park ramp', due: 7, by: 'user', daysAgo: 9, assignee: 'user' },
  { report: 'week32', title: 'Trip hazard: cable across walkway', priority: 'critical', packageKey: 'mep-electrical', location: 'Ground floor, east walkway', due: -1, by: 'user', daysAgo: 9, assignee: 'admin', events: [
    { kind: 'respond', by: 'admin', daysAgo: 8, body: 'Cable rerouted overhead; will confirm tomorrow.' },
    { kind: 'request-close', by: 'admin', daysAgo: 7, body: 'Walkway clear.' },
  ] },
]

const OTHER_ITEMS: ItemSeed[] = [
  { report: 'ground', title: 'Damaged kerb at site entrance', priority: 'medium', packageKey: 'civils', location: 'Site entrance', due: 4, by: 'user', daysAgo: 6, assignee: 'user' },
  { report: 'ground', title: 'Stained ceiling tile in reception', priority: 'low', packageKey: 'finishes', location: 'Ground floor, reception', due: -1, by: 'user', daysAgo: 5, assignee: 'user', events: [
    { kind: 'request-close', by: 'user', daysAgo: 2, body: 'Tile swapped.' },
  ] },
]

const DAY_MS = 86_400_000

type Step = { at: Date; run: (ctx: DomainContext) => Promise<void> }

/** Runs a tenant's steps in time order, each with the clock at its moment, in one transaction. */
async function play(db: Database, tenantId: string, adminId: string, steps: Step[]): Promise<void> {
  const ordered = steps.map((step, index) => ({ step, index })).sort((a, b) => a.step.at.getTime() - b.step.at.getTime() || a.index - b.index)
  await withTenant(db, tenantId, async (tx: Tx) => {
    for (const { step } of ordered) await step.run({ tx, actor: { tenantId, userId: adminId, roleKey: 'admin' }, now: step.at })
  })
}

export async function seedReporting(db: Database, people: SeedPeople, now: Date = new Date()): Promise<void> {
  // Whole minutes apart so rows of one day still sort (and page) in the order they happened.
  let tick = 0
  const at = (daysAgo: number) => new Date(now.getTime() - daysAgo * DAY_MS - 3 * 3_600_000 + tick++ * 60_000)
  const dateIn = (days: number) => new Date(now.getTime() + days * DAY_MS).toISOString().slice(0, 10)

  for (const [tenantId, adminId, userId] of [
    [people.demoTenantId, people.adminId, people.userId],
    [people.otherTenantId, people.otherUserId, people.otherUserId],
  ] as const) {
    await withTenant(db, tenantId, (tx) =>
      tx.insert(packages).values(SEED_PACKAGES.map((p, i) => ({ tenantId, key: p.key, name: p.name, active: 'active' in p ? p.active : true, sortOrder: (i + 1) * 10, createdAt: now, updatedAt: now }))),
    )
    const who = (w: Who | null) => (w === null ? null : w === 'admin' ? adminId : userId)
    const steps: Step[] = []
    const projectIds = new Map<string, string>()
    const reportIds = new Map<string, string>()
    const isDemo = tenantId === people.demoTenantId
    const projectSeeds = isDemo ? DEMO_PROJECTS : ([{ key: 'harbour', title: 'Harbour View Offices', code: 'HVO', by: 'user', daysAgo: 12, off: [] }] as const)
    const reportSeeds = isDemo ? DEMO_REPORTS : ([{ key: 'ground', project: 'harbour', title: 'Ground floor walk', by: 'user', daysAgo: 8 }] as const)

    for (const p of projectSeeds) {
      const id = randomUUID()
      projectIds.set(p.key, id)
      steps.push({ at: at(p.daysAgo), run: async (ctx) => {
        const revision = await recordChange(ctx, 'Project', id, 'Created')
        await ctx.tx.insert(projects).values({ tenantId, id, title: p.title, code: p.code, createdBy: who(p.by), revision, createdAt: ctx.now, updatedAt: ctx.now })
        const overrides = [...p.off.map((key) => ({ key, active: false })), ...('on' in p ? p.on.map((key) => ({ key, active: true })) : [])]
        if (overrides.length > 0) await ctx.tx.insert(projectPackages).values(overrides.map((o) => ({ tenantId, projectId: id, packageKey: o.key, active: o.active })))
      } })
      if ('archivedDaysAgo' in p) {
        steps.push({ at: at(p.archivedDaysAgo), run: async (ctx) => {
          const revision = await recordChange(ctx, 'Project', id, 'Updated')
          await ctx.tx.update(projects).set({ status: 'archived', archivedAt: ctx.now, revision, updatedAt: ctx.now }).where(and(eq(projects.tenantId, tenantId), eq(projects.id, id)))
        } })
      }
    }
    for (const r of reportSeeds) {
      const id = randomUUID()
      reportIds.set(r.key, id)
      steps.push({ at: at(r.daysAgo), run: async (ctx) => {
        const revision = await recordChange(ctx, 'Report', id, 'Created')
        await ctx.tx.insert(reports).values({ tenantId, id, projectId: required(projectIds, r.project), title: r.title, createdBy: who(r.by), revision, createdAt: ctx.now, updatedAt: ctx.now })
      } })
    }

    const itemSeeds = [...(isDemo ? DEMO_ITEMS : OTHER_ITEMS)].sort((a, b) => b.daysAgo - a.daysAgo)
    itemSeeds.forEach((seed, index) => steps.push(...itemSteps(seed, index + 1)))

    function itemSteps(seed: ItemSeed, number: number): Step[] {
      const id = randomUUID()
      const reportId = required(reportIds, seed.report)
      const projectKey = reportSeeds.find((r) => r.key === seed.report)?.project ?? ''
      let status: ItemStatus = 'open'
      let assignee = who(seed.assignee)
      const created: Step = { at: at(seed.daysAgo), run: async (ctx) => {
        const revision = await recordChange(ctx, 'ReportItem', id, 'Created')
        await ctx.tx.insert(reportItems).values({
          tenantId, id, reportId, projectId: required(projectIds, projectKey), number, title: seed.title, description: seed.description ?? null, priority: seed.priority,
          assigneeUserId: assignee, packageKey: seed.packageKey, location: seed.location, dueDate: seed.due === null ? null : dateIn(seed.due),
          createdBy: who(seed.by), revision, createdAt: ctx.now, updatedAt: ctx.now,
        })
        await ctx.tx.insert(itemActivity).values({ tenantId, itemId: id, actorUserId: who(seed.by), action: 'created', changes: [], createdAt: ctx.now })
      } }
      return [created, ...(seed.events ?? []).map((event): Step => ({ at: at(event.daysAgo), run: async (ctx) => {
        const by = who(event.by)
        const respond = (kind: ItemResponse['kind'], body: string | null, requestClose = false) =>
          ctx.tx.insert(itemResponses).values({ tenantId, itemId: id, authorUserId: by, kind, body, requestClose, createdAt: ctx.now })
        const log = (action: ActivityEntry['action'], changes: ActivityChange[], reason: string | null = null) =>
          ctx.tx.insert(itemActivity).values({ tenantId, itemId: id, actorUserId: by, action, changes, reason, createdAt: ctx.now })
        const change = async (set: Partial<typeof reportItems.$inferInsert>) => {
          const revision = await recordChange(ctx, 'ReportItem', id, 'Updated')
          await ctx.tx.update(reportItems).set({ ...set, revision, updatedAt: ctx.now }).where(and(eq(reportItems.tenantId, tenantId), eq(reportItems.id, id)))
        }
        const from = status
        switch (event.kind) {
          case 'respond':
            await respond('response', event.body)
            await log('responded', [])
            return
          case 'request-close':
            status = 'close_requested'
            await respond('response', event.body, true)
            await log('close_requested', [{ field: 'status', from, to: status }])
            return change({ status })
          case 'close':
            status = 'closed'
            await respond('close_confirmed', event.body ?? null)
            await log('closed', [{ field: 'status', from, to: status }])
            return change({ status, closedAt: ctx.now, closedBy: by })
          case 'reject':
            status = 'open'
            await respond('close_rejected', event.body)
            await log('reopened', [{ field: 'status', from, to: status }], event.body)
            return change({ status })
          case 'assign': {
            const to = who(event.to)
            await log('updated', [{ field: 'assigneeUserId', from: assignee, to }])
            assignee = to
            return change({ assigneeUserId: to })
          }
        }
      } }))]
    }

    await play(db, tenantId, adminId, steps)
  }
}

function required(map: Map<string, string>, key: string): string {
  const value = map.get(key)
  if (value === undefined) throw new Error(`seed: unknown key ${key}`)
  return value
}
