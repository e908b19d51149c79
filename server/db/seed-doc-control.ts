import { and, asc, eq } from 'drizzle-orm'
import { createDeliverable } from '#server/domain/doc-control/deliverables'
import { putMatrix } from '#server/domain/doc-control/matrix'
import { createParty, putPartyMembers } from '#server/domain/doc-control/parties'
import type { DomainContext } from '#server/domain/tenancy/context'
import type { WorkflowStepDefinition } from '~/lib/doc-control/types'
import { projectCodeForNaming } from '~/lib/documents/rules'
import type { Database } from './client'
import { workflowTemplates, workflowTemplateVersions } from './schema-doc-control'
import { projects } from './schema-reporting'
import { withTenant } from './tenancy'

/**
 * Demo document control (issue 12) for the demo organisation's Riverside project (RSAA), added
 * after its documents: the parties (the client as appointing party, Riverside Architects as lead
 * appointed party with the demo users, a structures task team under it), a responsibility matrix,
 * a deliverables register whose numbers meet the seeded documents (one issued, one late, one
 * missing, the rest on track), and one two-step "Design review" template. Parties, matrix and
 * deliverables go through the domain functions (their rules and audit apply); the template is
 * written directly as version 1.
 */

const DAY_MS = 86_400_000

export async function seedDocControl(db: Database, people: { tenantId: string; adminId: string; userId: string }, now: Date = new Date()): Promise<void> {
  const { tenantId, adminId, userId } = people
  const run = <T>(work: (ctx: DomainContext) => Promise<T>) => withTenant(db, tenantId, (tx) => work({ tx, actor: { tenantId, userId: adminId, roleKey: 'admin' }, now }))
  const date = (days: number) => new Date(now.getTime() + days * DAY_MS).toISOString().slice(0, 10)

  await run(async (ctx) => {
    const [template] = await ctx.tx
      .insert(workflowTemplates)
      .values({
        tenantId,
        name: 'Design review',
        description: 'A design team check, then the client’s approval.',
        currentVersion: 1,
        createdBy: adminId,
        createdAt: now,
        updatedAt: now,
      })
      .returning({ id: workflowTemplates.id })
    if (!template) throw new Error('seed: template not created')
    await ctx.tx.insert(workflowTemplateVersions).values({ tenantId, templateId: template.id, version: 1, steps: designReviewSteps(adminId), createdBy: adminId, createdAt: now })
  })

  const [project] = await run((ctx) =>
    ctx.tx
      .select({ id: projects.id, code: projects.code })
      .from(projects)
      .where(and(eq(projects.tenantId, tenantId), eq(projects.status, 'active')))
      .orderBy(asc(projects.createdAt))
      .limit(1),
  )
  if (!project) return
  const code = projectCodeForNaming(project.code, 'DEMO')

  await run(async (ctx) => {
    const client = await createParty(ctx, project.id, { name: 'Riverside Developments Ltd', code: 'RDL', role: 'appointing', parentId: null })
    const architects = await createParty(ctx, project.id, { name: 'Riverside Architects', code: 'ARC', role: 'lead-appointed', parentId: null })
    const structures = await createParty(ctx, project.id, { name: 'Beam Structures', code: 'STR', role: 'task-team', parentId: architects.id })
    await putPartyMembers(ctx, client.id, [{ userId: adminId, lead: true }])
    await putPartyMembers(ctx, architects.id, [
      { userId: adminId, lead: true },
      { userId, lead: false },
    ])
    await putPartyMembers(ctx, structures.id, [{ userId, lead: true }])
    await putMatrix(ctx, project.id, [
      { discipline: 'A', docType: null, partyId: architects.id, responsibility: 'produce' },
      { discipline: 'A', docType: null, partyId: client.id, responsibility: 'review' },
      { discipline: 'S', docType: null, partyId: structures.id, responsibility: 'produce' },
      { discipline: 'S', docType: null, partyId: architects.id, responsibility: 'review' },
      { discipline: 'S', docType: 'DR', partyId: client.id, responsibility: 'review' },
      { discipline: 'W', docType: 'RP', partyId: architects.id, responsibility: 'produce' },
    ])
    const plan = [
      { number: `${code}-STR-ZZ-XX-DR-S-0100`, title: 'General arrangement – frame', partyId: structures.id, milestones: [{ name: 'Stage 4', plannedDate: date(-100) }] },
      { number: `${code}-ARC-ZZ-00-DR-A-0001`, title: 'Ground floor plan', partyId: architects.id, milestones: [{ name: 'Stage 4', plannedDate: date(-10) }] },
      { number: `${code}-ARC-ZZ-01-DR-A-0002`, title: 'First floor plan', partyId: architects.id, milestones: [{ name: 'Stage 4', plannedDate: date(-5) }] },
      { number: `${code}-ARC-ZZ-03-DR-A-0003`, title: 'Level 3 plan', partyId: architects.id, milestones: [{ name: 'Stage 4', plannedDate: date(20) }] },
      {
        number: `${code}-ARC-XX-XX-SP-A-0001`,
        title: 'Architectural specification',
        partyId: architects.id,
        milestones: [
          { name: 'Stage 4', plannedDate: date(40) },
          { name: 'Stage 5', plannedDate: date(120) },
        ],
      },
      { number: `${code}-STR-ZZ-XX-CA-S-0001`, title: 'Frame calculations', partyId: structures.id, milestones: [{ name: 'Stage 4', plannedDate: date(60) }] },
    ]
    for (const deliverable of plan) await createDeliverable(ctx, project.id, deliverable)
  })
}

function designReviewSteps(adminId: string): WorkflowStepDefinition[] {
  return [
    {
      name: 'Design team check',
      mode: 'serial',
      consolidate: 'strictest',
      reviewers: [{ type: 'role', roleKey: 'read-write' }],
      dueDays: 3,
      outcomes: [
        { kind: 'approved', label: 'Checked', status: 'S3' },
        { kind: 'revise', label: 'Revise and resubmit', status: 'S3' },
      ],
      onReject: { to: 'author' },
    },
    {
      name: 'Client approval',
      mode: 'serial',
      consolidate: 'strictest',
      reviewers: [{ type: 'user', userId: adminId }],
      dueDays: 5,
      outcomes: [
        { kind: 'approved', label: 'Approved for construction', status: 'A1' },
        { kind: 'approved-with-comments', label: 'Approved with comments', status: 'B1' },
        { kind: 'rejected', label: 'Rejected', status: 'S3' },
      ],
      onReject: { to: 'step', step: 0 },
    },
  ]
}
