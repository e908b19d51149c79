import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { projectParties } from '#server/db/schema-doc-control'
import { withTenant } from '#server/db/tenancy'
import type { WorkflowStepDefinition, WorkflowTemplate } from '~/lib/doc-control/types'
import { auditOf, expectProblem } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { body, newProject, organisation, put, signedMember } from '#tests/helpers/reporting-a'

/** docs/doc-control.md "Workflow": workflow templates, versioned; admins write, members read. Through HTTP. */

let t: TestBackend

beforeAll(async () => {
  t = await createTestBackend({ now: '2026-11-16T09:00:00.000Z' })
})

afterAll(async () => {
  await t?.close()
})

function step(name: string, userId: string, extra: Partial<WorkflowStepDefinition> = {}): WorkflowStepDefinition {
  return {
    name,
    mode: 'serial',
    consolidate: 'strictest',
    reviewers: [{ type: 'user', userId }],
    dueDays: 5,
    outcomes: [
      { kind: 'approved', label: 'Approved', status: 'A1' },
      { kind: 'revise', label: 'Revise and resubmit', status: 'S3' },
    ],
    onReject: { to: 'author' },
    ...extra,
  }
}

test('an admin creates a template at version 1; every member reads it; others may not write', async () => {
  const { admin, writer, reader, tenant } = await organisation(t)
  const created = await body<WorkflowTemplate>(
    await admin.c.post('/api/workflow-templates', { name: 'Design review', description: 'Two steps', steps: [step('Check', writer.user.id), step('Approve', admin.user.id)] }),
    201,
  )
  expect(created).toMatchObject({ name: 'Design review', description: 'Two steps', version: 1, archived: false })
  expect(created.steps.map((s) => s.name)).toEqual(['Check', 'Approve'])

  for (const member of [admin, writer, reader]) {
    const list = await body<{ items: WorkflowTemplate[] }>(await member.c.get('/api/workflow-templates'))
    expect(list.items.map((x) => x.id)).toEqual([created.id])
    expect(await body<WorkflowTemplate>(await member.c.get(`/api/workflow-templates/${created.id}`))).toEqual(created)
  }
  for (const member of [writer, reader]) {
    await expectProblem(await member.c.post('/api/workflow-templates', { name: 'Mine', steps: [step('Check', writer.user.id)] }), 403, 'KR_FORBIDDEN')
    await expectProblem(await put(member.c, `/api/workflow-templates/${created.id}`, { name: 'Mine', steps: [step('Check', writer.user.id)] }), 403, 'KR_FORBIDDEN')
    await expectProblem(await member.c.post(`/api/workflow-templates/${created.id}/archive`), 403, 'KR_FORBIDDEN')
  }
  expect((await body<WorkflowTemplate>(await admin.c.get(`/api/workflow-templates/${created.id}`))).version).toBe(1)
  const audit = await auditOf(t.db, { action: 'doc-control.template.changed', tenantId: tenant.id })
  expect(audit.map((a) => a.data)).toEqual([expect.objectContaining({ change: 'created', version: 1 })])
})

test('a change writes a new version; older versions stay readable; archiving hides it from the list and stops changes', async () => {
  const { admin, writer } = await organisation(t)
  const v1 = await body<WorkflowTemplate>(await admin.c.post('/api/workflow-templates', { name: 'Check', steps: [step('Check', writer.user.id)] }), 201)
  const v2 = await body<WorkflowTemplate>(
    await put(admin.c, `/api/workflow-templates/${v1.id}`, { name: 'Check and approve', steps: [step('Check', writer.user.id), step('Approve', admin.user.id, { dueDays: 10 })] }),
  )
  expect(v2).toMatchObject({ id: v1.id, name: 'Check and approve', version: 2 })
  expect((await body<WorkflowTemplate>(await admin.c.get(`/api/workflow-templates/${v1.id}`))).version).toBe(2)
  const old = await body<WorkflowTemplate>(await writer.c.get(`/api/workflow-templates/${v1.id}?version=1`))
  expect(old.version).toBe(1)
  expect(old.steps).toEqual(v1.steps)
  await expectProblem(await writer.c.get(`/api/workflow-templates/${v1.id}?version=3`), 404, 'KR_NOT_FOUND')
  await expectProblem(await writer.c.get(`/api/workflow-templates/${v1.id}?version=0`), 400, 'KR_VALIDATION')

  const archived = await body<WorkflowTemplate>(await admin.c.post(`/api/workflow-templates/${v1.id}/archive`))
  expect(archived).toMatchObject({ archived: true, version: 2 })
  expect(await body<WorkflowTemplate>(await admin.c.post(`/api/workflow-templates/${v1.id}/archive`))).toMatchObject({ archived: true })
  expect((await body<{ items: WorkflowTemplate[] }>(await writer.c.get('/api/workflow-templates'))).items).toEqual([])
  expect((await body<{ items: WorkflowTemplate[] }>(await writer.c.get('/api/workflow-templates?includeArchived=true'))).items.map((x) => x.id)).toEqual([v1.id])
  await expectProblem(await put(admin.c, `/api/workflow-templates/${v1.id}`, { name: 'Again', steps: [step('Check', writer.user.id)] }), 409, 'KR_ARCHIVED')
})

test('names are unique per organisation whatever their case; another organisation may use the same name', async () => {
  const { admin, writer } = await organisation(t)
  const first = await body<WorkflowTemplate>(await admin.c.post('/api/workflow-templates', { name: 'IFC review', steps: [step('Check', writer.user.id)] }), 201)
  const taken = await expectProblem(await admin.c.post('/api/workflow-templates', { name: 'ifc REVIEW', steps: [step('Check', writer.user.id)] }), 409, 'KR_TEMPLATE_NAME_TAKEN')
  expect(taken.errors?.name?.[0]).toContain('already')
  const second = await body<WorkflowTemplate>(await admin.c.post('/api/workflow-templates', { name: 'Tender review', steps: [step('Check', writer.user.id)] }), 201)
  await expectProblem(await put(admin.c, `/api/workflow-templates/${second.id}`, { name: 'IFC Review', steps: [step('Check', writer.user.id)] }), 409, 'KR_TEMPLATE_NAME_TAKEN')
  // Its own name (a new version of the same template) is fine.
  expect((await body<WorkflowTemplate>(await put(admin.c, `/api/workflow-templates/${first.id}`, { name: 'IFC review', steps: [step('Check', writer.user.id)] }))).version).toBe(2)

  const other = await organisation(t)
  await body(await other.admin.c.post('/api/workflow-templates', { name: 'IFC review', steps: [step('Check', other.writer.user.id)] }), 201)
})

test('another organisation’s template, and ids that are not ids, are 404 for every call', async () => {
  const { admin, writer } = await organisation(t)
  const mine = await body<WorkflowTemplate>(await admin.c.post('/api/workflow-templates', { name: 'Mine', steps: [step('Check', writer.user.id)] }), 201)
  const other = await organisation(t)
  for (const id of [mine.id, 'not-an-id', randomUUID()]) {
    await expectProblem(await other.admin.c.get(`/api/workflow-templates/${id}`), 404, 'KR_NOT_FOUND')
    await expectProblem(await put(other.admin.c, `/api/workflow-templates/${id}`, { name: 'Theirs', steps: [step('Check', other.writer.user.id)] }), 404, 'KR_NOT_FOUND')
    await expectProblem(await other.admin.c.post(`/api/workflow-templates/${id}/archive`), 404, 'KR_NOT_FOUND')
  }
  expect((await body<{ items: WorkflowTemplate[] }>(await other.admin.c.get('/api/workflow-templates'))).items).toEqual([])
  expect((await body<WorkflowTemplate>(await admin.c.get(`/api/workflow-templates/${mine.id}`))).archived).toBe(false)
})

test('the steps are checked thoroughly, every problem under its field, and nothing is stored', async () => {
  const { admin, writer } = await organisation(t)
  const cases: Array<[string, unknown, string]> = [
    ['no steps', [], 'steps'],
    ['21 steps', Array.from({ length: 21 }, (_, i) => step(`Step ${i}`, writer.user.id)), 'steps'],
    ['a blank step name', [step('  ', writer.user.id)], 'steps.0.name'],
    ['two steps of one name', [step('Check', writer.user.id), step('check', writer.user.id)], 'steps.1.name'],
    ['no reviewers', [{ ...step('Check', writer.user.id), reviewers: [] }], 'steps.0.reviewers'],
    ['a read-only role', [{ ...step('Check', writer.user.id), reviewers: [{ type: 'role', roleKey: 'read-only' }] }], 'steps.0.reviewers.0.roleKey'],
    ['an unknown reviewer type', [{ ...step('Check', writer.user.id), reviewers: [{ type: 'everyone' }] }], 'steps.0.reviewers.0.type'],
    ['zero days', [step('Check', writer.user.id, { dueDays: 0 })], 'steps.0.dueDays'],
    ['61 days', [step('Check', writer.user.id, { dueDays: 61 })], 'steps.0.dueDays'],
    ['half a day', [step('Check', writer.user.id, { dueDays: 1.5 })], 'steps.0.dueDays'],
    ['a bad mode', [{ ...step('Check', writer.user.id), mode: 'sometimes' }], 'steps.0.mode'],
    ['no outcomes', [step('Check', writer.user.id, { outcomes: [] })], 'steps.0.outcomes'],
    ['no approval', [step('Check', writer.user.id, { outcomes: [{ kind: 'revise', label: 'Revise', status: 'S3' }] })], 'steps.0.outcomes'],
    ['an unknown code', [step('Check', writer.user.id, { outcomes: [{ kind: 'approved', label: 'OK', status: 'Z9' }] })], 'steps.0.outcomes.0.status'],
    [
      'revise to a published code',
      [
        step('Check', writer.user.id, {
          outcomes: [
            { kind: 'approved', label: 'OK', status: 'A1' },
            { kind: 'revise', label: 'Revise', status: 'B1' },
          ],
        }),
      ],
      'steps.0.outcomes.1.status',
    ],
    ['an approval back to work in progress', [step('Check', writer.user.id, { outcomes: [{ kind: 'approved', label: 'OK', status: 'S0' }] })], 'steps.0.outcomes.0.status'],
    ['a blank label', [step('Check', writer.user.id, { outcomes: [{ kind: 'approved', label: ' ', status: 'A1' }] })], 'steps.0.outcomes.0.label'],
    [
      'a repeated outcome',
      [
        step('Check', writer.user.id, {
          outcomes: [
            { kind: 'approved', label: 'OK', status: 'A1' },
            { kind: 'approved', label: 'Also OK', status: 'A2' },
          ],
        }),
      ],
      'steps.0.outcomes.1.kind',
    ],
    ['back to itself', [step('Check', writer.user.id), step('Approve', writer.user.id, { onReject: { to: 'step', step: 1 } })], 'steps.1.onReject.step'],
    ['forward on reject', [step('Check', writer.user.id, { onReject: { to: 'step', step: 1 } }), step('Approve', writer.user.id)], 'steps.0.onReject.step'],
  ]
  for (const [what, steps, field] of cases) {
    const problem = await expectProblem(await admin.c.post('/api/workflow-templates', { name: `Bad: ${what}`, steps }), 400, 'KR_VALIDATION')
    expect(Object.keys(problem.errors ?? {}), what).toContain(field)
  }
  const blankName = await expectProblem(await admin.c.post('/api/workflow-templates', { name: ' ', steps: [step('Check', writer.user.id)] }), 400, 'KR_VALIDATION')
  expect(Object.keys(blankName.errors ?? {})).toEqual(['name'])
  expect((await body<{ items: WorkflowTemplate[] }>(await admin.c.get('/api/workflow-templates?includeArchived=true'))).items).toEqual([])
})

test('named people must be active members who may review, and named parties the organisation’s own: 422 under each field', async () => {
  const { admin, writer, reader, tenant } = await organisation(t)
  const stranger = await signedMember(t, 'read-write')
  const project = await newProject(admin.c)
  const partyId = randomUUID()
  await withTenant(t.db, tenant.id, (tx) =>
    tx.insert(projectParties).values({ tenantId: tenant.id, id: partyId, projectId: project.id, name: 'Architect', code: 'ARC', role: 'lead-appointed' }),
  )
  const strangerParty = randomUUID()
  const problem = await expectProblem(
    await admin.c.post('/api/workflow-templates', {
      name: 'References',
      steps: [
        {
          ...step('Check', writer.user.id),
          reviewers: [
            { type: 'user', userId: writer.user.id },
            { type: 'user', userId: stranger.user.id },
            { type: 'user', userId: reader.user.id },
            { type: 'party', partyId },
            { type: 'party', partyId: strangerParty },
            { type: 'role', roleKey: 'admin' },
            { type: 'matrix' },
          ],
        },
      ],
    }),
    422,
    'KR_VALIDATION',
  )
  expect(Object.keys(problem.errors ?? {}).sort()).toEqual(['steps.0.reviewers.1', 'steps.0.reviewers.2', 'steps.0.reviewers.4'])
  expect(problem.errors?.['steps.0.reviewers.2']?.[0]).toContain('read-only')
  const fine = await body<WorkflowTemplate>(
    await admin.c.post('/api/workflow-templates', {
      name: 'References',
      steps: [{ ...step('Check', writer.user.id), reviewers: [{ type: 'party', partyId }, { type: 'role', roleKey: 'admin' }, { type: 'matrix' }] }],
    }),
    201,
  )
  expect(fine.steps[0]?.reviewers).toEqual([{ type: 'party', partyId }, { type: 'role', roleKey: 'admin' }, { type: 'matrix' }])
})

test('defaults are filled in: a step consolidates strictest and sends back to the author unless told otherwise; codes are read upper case', async () => {
  const { admin, writer } = await organisation(t)
  const { consolidate: _c, onReject: _o, ...bare } = step('Check', writer.user.id, { outcomes: [{ kind: 'approved', label: 'OK', status: 'a1' }] })
  const created = await body<WorkflowTemplate>(await admin.c.post('/api/workflow-templates', { name: 'Defaults', description: '   ', steps: [bare] }), 201)
  expect(created.description).toBeNull()
  expect(created.steps[0]).toMatchObject({ consolidate: 'strictest', onReject: { to: 'author' }, outcomes: [{ kind: 'approved', label: 'OK', status: 'A1' }] })
})
