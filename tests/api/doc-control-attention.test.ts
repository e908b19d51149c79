import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { transmittalRecipients, transmittals, workflowTemplates, workflowTemplateVersions, workflows, workflowTasks } from '#server/db/schema-doc-control'
import { withTenant } from '#server/db/tenancy'
import type { DocControlAttention } from '~/lib/doc-control/types'
import { client, expectProblem, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { documentProject } from '#tests/helpers/documents'
import { body, organisation, put, signedMember, type Signed } from '#tests/helpers/reporting-a'

/** docs/doc-control.md "Dashboard figures": GET /api/doc-control/attention counts only what waits for the caller, in their organisation, in projects they can open. */

let t: TestBackend

const NOW = '2026-11-20T09:00:00.000Z'
const DAY = 86_400_000

// A loaded machine can take more than the default minute to start a database.
beforeAll(async () => {
  t = await createTestBackend({ now: NOW })
}, 300_000)

afterAll(async () => {
  await t.close()
})

async function attention(c: TestClient): Promise<DocControlAttention> {
  return body<DocControlAttention>(await c.get('/api/doc-control/attention'))
}

const NOTHING: DocControlAttention = { reviewsWaitingCount: 0, transmittalsToAcknowledgeCount: 0, overdueDeliverables: { count: 0, projects: [] } }

/** Review tasks for `assignee`, one per entry: the task's status and its review's (the workflow API is not what is tested here). */
async function reviewTasks(starter: Signed, projectId: string, assignee: Signed, tasks: Array<{ task: string; review: string }>) {
  await withTenant(t.db, starter.tenant.id, async (tx) => {
    const templateId = randomUUID()
    const versionId = randomUUID()
    await tx.insert(workflowTemplates).values({ tenantId: starter.tenant.id, id: templateId, name: `Review ${templateId.slice(0, 6)}` })
    await tx.insert(workflowTemplateVersions).values({ tenantId: starter.tenant.id, id: versionId, templateId, version: 1, steps: [] })
    const now = t.now()
    for (const [index, { task, review }] of tasks.entries()) {
      const id = randomUUID()
      await tx.insert(workflows).values({
        tenantId: starter.tenant.id,
        id,
        projectId,
        templateVersionId: versionId,
        status: review,
        currentStep: 0,
        dueAt: new Date(now.getTime() + 10 * DAY),
        startedBy: starter.user.id,
        startedAt: now,
        revision: index + 1,
      })
      await tx.insert(workflowTasks).values({ tenantId: starter.tenant.id, workflowId: id, step: 0, round: 1, assigneeId: assignee.user.id, status: task, dueAt: new Date(now.getTime() + DAY) })
    }
  })
}

/** A transmittal to `recipient` in the given states (the transmittals API is not what is tested here). */
async function transmittalTo(sender: Signed, projectId: string, recipient: Signed, status: string, recipientStatus: string) {
  await withTenant(t.db, sender.tenant.id, async (tx) => {
    const id = randomUUID()
    const seq = Math.floor(Math.random() * 1_000_000)
    await tx.insert(transmittals).values({
      tenantId: sender.tenant.id,
      id,
      projectId,
      seq,
      number: `T-TRN-${seq}`,
      subject: 'Issue',
      status,
      sentAt: status === 'draft' ? null : t.now(),
      sentBy: status === 'draft' ? null : sender.user.id,
      createdBy: sender.user.id,
      revision: 1,
    })
    await tx.insert(transmittalRecipients).values({ tenantId: sender.tenant.id, transmittalId: id, userId: recipient.user.id, status: recipientStatus })
  })
}

test('counts my pending tasks of active reviews, the transmittals sent to me not yet acknowledged, and overdue deliverables by project', async () => {
  t.now.set(NOW)
  const { admin, writer, reader } = await organisation(t)
  const p = await documentProject(admin.c, 'ATT01')
  const q = await documentProject(admin.c, 'ATT02')
  await reviewTasks(admin, p.id, writer, [
    { task: 'pending', review: 'active' },
    { task: 'pending', review: 'active' },
    { task: 'approved', review: 'active' },
    { task: 'pending', review: 'cancelled' },
  ])
  await reviewTasks(admin, p.id, reader, [{ task: 'pending', review: 'active' }])
  await transmittalTo(admin, p.id, writer, 'sent', 'sent')
  await transmittalTo(admin, p.id, writer, 'sent', 'opened')
  await transmittalTo(admin, p.id, writer, 'acknowledged', 'acknowledged')
  await transmittalTo(admin, p.id, writer, 'sent', 'responded')
  await transmittalTo(admin, p.id, writer, 'draft', 'pending')
  const past = [{ name: 'Stage 4', plannedDate: '2026-11-01' }]
  for (const [project, number, milestones] of [
    [p, 'ATT01-ARC-ZZ-00-DR-A-0001', past],
    [p, 'ATT01-ARC-ZZ-00-DR-A-0002', past],
    [p, 'ATT01-ARC-ZZ-00-DR-A-0003', [{ name: 'Stage 5', plannedDate: '2027-01-01' }]],
    [q, 'ATT02-ARC-ZZ-00-DR-A-0001', past],
  ] as const) {
    await body(await admin.c.post(`/api/projects/${project.id}/deliverables`, { number, title: number, milestones }), 201)
  }

  const mine = await attention(writer.c)
  expect(mine.reviewsWaitingCount).toBe(2)
  expect(mine.transmittalsToAcknowledgeCount).toBe(2)
  expect(mine.overdueDeliverables.count).toBe(3)
  expect(new Map(mine.overdueDeliverables.projects.map((x) => [x.projectId, x.count]))).toEqual(new Map([[p.id, 2], [q.id, 1]]))
  expect(await attention(reader.c)).toMatchObject({ reviewsWaitingCount: 1, transmittalsToAcknowledgeCount: 0, overdueDeliverables: { count: 3 } })

  // A project the member cannot open does not count; the others still do.
  await body(await put(admin.c, `/api/projects/${p.id}/permissions`, { entries: [{ subjectKind: 'user', subject: reader.user.id, level: 'none' }] }))
  expect((await attention(reader.c)).overdueDeliverables).toEqual({ count: 1, projects: [{ projectId: q.id, count: 1 }] })
  // An archived project's plan no longer counts as overdue work.
  await body(await admin.c.post(`/api/projects/${q.id}/archive`))
  expect((await attention(reader.c)).overdueDeliverables).toEqual({ count: 0, projects: [] })
})

test('another organisation’s reviews, transmittals and deliverables never count; signed out is 401', async () => {
  t.now.set(NOW)
  const mine = await organisation(t)
  const other = await signedMember(t, 'admin')
  const theirs = await documentProject(other.c, 'ATT03')
  const colleague = await signedMember(t, 'read-write', other.tenant)
  await reviewTasks(other, theirs.id, colleague, [{ task: 'pending', review: 'active' }])
  await transmittalTo(other, theirs.id, colleague, 'sent', 'sent')
  await body(await other.c.post(`/api/projects/${theirs.id}/deliverables`, { number: 'ATT03-1', title: 'Theirs', milestones: [{ name: 'Stage 4', plannedDate: '2026-11-01' }] }), 201)

  for (const member of [mine.admin, mine.writer, mine.reader]) expect(await attention(member.c)).toEqual(NOTHING)
  expect(await attention(colleague.c)).toMatchObject({ reviewsWaitingCount: 1, transmittalsToAcknowledgeCount: 1, overdueDeliverables: { count: 1 } })
  await expectProblem(await client(t).get('/api/doc-control/attention'), 401)
})

test('GET /api/mail/status tells any member whether mail goes out: not while no mail server is set up', async () => {
  const { admin, reader } = await organisation(t)
  for (const member of [admin, reader]) expect(await body<{ setUp: boolean }>(await member.c.get('/api/mail/status'))).toEqual({ setUp: false })
  await expectProblem(await client(t).get('/api/mail/status'), 401)
})
