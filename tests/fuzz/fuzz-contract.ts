import { randomUUID } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import fc from 'fast-check'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { OpenApiDocument, OpenApiOperation } from '#server/http/openapi'
import { client, createMember, signedInClient, type TestClient } from '#tests/helpers/auth'
import { createTestBackend, type TestBackend } from '#tests/helpers/backend'
import { createItem, createOrg, createProject, createReport, type Org } from '#tests/helpers/reporting-b'
import { uploadRevision } from '#tests/helpers/documents'
import { pngImage } from '#tests/helpers/photos'
import { memberships } from '#server/db/schema'
import { withTenant } from '#server/db/tenancy'
import { anyText, bodyArbitrary, queryArbitrary, type IdPool } from './arbitraries'

/**
 * Issue 17 §4: every operation of the published contract, FUZZ_RUNS generated requests each (100
 * in `npm test`, sized for CI; `npm run test:fuzz:long` runs the 1,000 of issue 17) — path parameters, queries and bodies drawn from the operation's own JSON Schemas,
 * broken in one place, or anything at all — and not one answer may be a 5xx. A failure shrinks to
 * the smallest request that breaks, printed with the answer.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 100)
const [SHARD, SHARDS] = (globalThis as { FUZZ_SHARD?: [number, number] }).FUZZ_SHARD ?? [0, 1]
/** FUZZ_ONLY (a regular expression on the path) narrows a run to some operations, while working on them. */
const ONLY = process.env.FUZZ_ONLY ? new RegExp(process.env.FUZZ_ONLY) : undefined

let t: TestBackend
let document: OpenApiDocument
let org: Org
let known: string[]

beforeAll(async () => {
  // The built-in payment provider, so the billing calls and its checkout page are fuzzed working, not refused (docs/billing.md).
  t = await createTestBackend({ env: { BILLING_PROVIDER: 'test' } })
  document = (await (await t.fetch('/api/openapi.json')).json()) as OpenApiDocument
  org = await createOrg(t)
})

/** The operations of document control (issue 12): only theirs get its rows, which take some twenty calls to make. */
const DOC_CONTROL = /workflow|transmittal|\/sets|part(y|ies)|deliverable|matrix|inbox|doc-control/

/**
 * The Administration area's operations and the invite, join and support calls (issue 13): they may
 * suspend, delete or re-password the people whose ids they are given, so they get a spare member
 * of their own (and the organisation's id) instead of the writer the other operations' set-up needs.
 */
const ADMINISTRATION = /^\/api\/admin\/|^\/api\/tenants|^\/api\/seats\/|invite|join-request|support/

/** Rows for the generated requests to find: made anew for each operation, as earlier ones may delete them. */
async function freshRows(path: string): Promise<string[]> {
  // An operation on the caller's own sessions (Settings: sign out the others) ends these clients' sessions too.
  org.admin = Object.assign(await signedInClient(t, org.admin.member), { member: org.admin.member })
  org.writer = Object.assign(await signedInClient(t, org.writer.member), { member: org.writer.member })
  const projectId = await createProject(t, org.admin.member, { title: 'Fuzz' })
  const reportId = await createReport(t, org.admin.member, projectId, { title: 'Fuzz' })
  const items = await Promise.all([createItem(org.writer, reportId, { title: 'Fuzz one' }), createItem(org.writer, reportId, { title: 'Fuzz two' })])
  const view = (await (await org.admin.post('/api/views', { name: 'Fuzz', scope: 'personal', query: 'status=open' })).json()) as { id: string }
  const upload = (await (await org.writer.post(`/api/items/${items[0]?.id}/uploads`, { fileName: 'site.jpg', size: 1000, contentType: 'image/jpeg' })).json()) as { id: string }
  // Documents: a folder, a document with a revision (its id is also its upload session's), the ids their calls take.
  const folder = (await (await org.admin.post(`/api/projects/${projectId}/folders`, { name: 'Fuzz' })).json()) as { id: string }
  const doc = (await (await org.admin.post(`/api/projects/${projectId}/documents`, { number: 'PRJ-ARC-ZZ-00-DR-A-0001', title: 'Fuzz', folderId: folder.id })).json()) as {
    id: string
  }
  const revision = await uploadRevision(org.admin, doc.id, pngImage(), { code: 'P01', status: 'S2' })
  const person = ADMINISTRATION.test(path) ? (await createMember(t.db, { tenant: org.tenant })).user.id : org.writer.member.user.id
  const rows = [projectId, reportId, ...items.map((item) => item.id), view.id, upload.id, person, folder.id, doc.id, revision.id].filter(Boolean)
  if (ADMINISTRATION.test(path)) {
    // Seats are memberships (POST /api/seats/{seatId}/revoke): the spare member's seat, too.
    const [seat] = await withTenant(t.db, org.tenant.id, (tx) =>
      tx.select({ id: memberships.id }).from(memberships).where(and(eq(memberships.tenantId, org.tenant.id), eq(memberships.userId, person))),
    )
    rows.push(org.tenant.id, ...(seat ? [seat.id] : []))
  }
  if (!DOC_CONTROL.test(path)) return rows
  // Document control: a party, a deliverable, a review template and a review running on that revision (with its task).
  const party = await made<{ id: string }>(org.admin.post(`/api/projects/${projectId}/parties`, { name: `Fuzz ${randomUUID()}`, role: 'lead-appointed', code: 'ARC' }))
  const deliverable = await made<{ id: string }>(
    org.admin.post(`/api/projects/${projectId}/deliverables`, { number: `PRJ-ARC-ZZ-00-DR-A-${Math.floor(Math.random() * 9000) + 1000}`, title: 'Fuzz' }),
  )
  const step = { name: 'Check', mode: 'serial', consolidate: 'strictest', dueDays: 2, onReject: { to: 'author' } }
  const outcomes = [
    { kind: 'approved', label: 'Approved', status: 'A1' },
    { kind: 'revise', label: 'Revise', status: 'S3' },
  ]
  const template = await made<{ id: string }>(
    org.admin.post('/api/workflow-templates', { name: `Fuzz ${randomUUID()}`, steps: [{ ...step, reviewers: [{ type: 'user', userId: org.writer.member.user.id }], outcomes }] }),
  )
  const workflow = await made<{ id: string; tasks: Array<{ id: string }> }>(
    org.admin.post(`/api/projects/${projectId}/workflows`, { templateId: template.id, revisionIds: [revision.id] }),
  )
  // Sets and transmittals of another revision (the one above is under review): a draft set, a sent transmittal with its package.
  const doc2 = (await (await org.admin.post(`/api/projects/${projectId}/documents`, { number: 'PRJ-ARC-ZZ-00-DR-A-0002', title: 'Fuzz two', folderId: folder.id })).json()) as {
    id: string
  }
  const revision2 = await uploadRevision(org.admin, doc2.id, pngImage(), { code: 'P01', status: 'S2' })
  const set = await made<{ id: string }>(org.admin.post(`/api/projects/${projectId}/sets`, { name: `Fuzz ${randomUUID()}`, revisionIds: [revision2.id] }))
  const transmittal = await made<{ id: string }>(org.admin.post(`/api/projects/${projectId}/transmittals`, { subject: 'Fuzz', revisionIds: [revision2.id] }))
  await made(org.admin.request(`/api/transmittals/${transmittal.id}/recipients`, { method: 'PUT', json: { userIds: [org.writer.member.user.id], partyIds: [] } }))
  await made(org.admin.post(`/api/transmittals/${transmittal.id}/send`))
  return [...rows, set.id, transmittal.id, doc2.id, revision2.id, party.id, deliverable.id, template.id, workflow.id, ...workflow.tasks.map((task) => task.id)]
}

/** The row a call made: made anew on a fresh project, a refusal here is a bug in the set-up (or the API), not fuzzing. */
async function made<T extends { id: string }>(response: Promise<Response>): Promise<T> {
  const answer = await response
  if (!answer.ok) throw new Error(`fuzz set-up refused: ${answer.status} ${await answer.text()}`)
  return (await answer.json()) as T
}

afterAll(async () => {
  await t.close()
})

/** A URL cannot carry half a surrogate pair; encodeURIComponent throws on one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

const ids: IdPool = (field) => (/ids?$/i.test(field) || field === 'id' ? fc.constantFrom(...known) : undefined)

type Generated = { path: string; query: Record<string, string>; body: unknown; idempotencyKey: string | null }

function requestArbitrary(template: string, op: OpenApiOperation): fc.Arbitrary<Generated> {
  const pathParams = op.parameters.filter((p) => p.in === 'path')
  const queryParams = op.parameters.filter((p) => p.in === 'query')
  const encoded = (arbitrary: fc.Arbitrary<string>) => arbitrary.map((value) => encodeURIComponent(value.replace(LONE_SURROGATE, '\ufffd')))
  // Raw segments reach the router as they are: malformed escapes, NUL, dot segments.
  const raw = fc.constantFrom('%', '%E0%A4%A', '%00', '%ZZ', '..', '%2e%2e', '%2F')
  const param = fc.oneof(
    { weight: 4, arbitrary: encoded(fc.constantFrom(...known)) },
    { weight: 1, arbitrary: encoded(fc.uuid()) },
    { weight: 1, arbitrary: encoded(anyText.filter((s) => s !== '')) },
    { weight: 1, arbitrary: raw },
  )
  const json = op.requestBody?.content['application/json']?.schema
  return fc.record({
    path: fc.tuple(...pathParams.map(() => param)).map((values) => {
      let path = template
      pathParams.forEach((p, index) => {
        path = path.replace(`{${p.name}}`, values[index] ?? '')
      })
      return path
    }),
    query: queryArbitrary(queryParams, ids),
    body: op.requestBody ? bodyArbitrary(json, ids) : fc.constant(undefined),
    idempotencyKey: fc.option(fc.string({ minLength: 8, maxLength: 40, unit: 'grapheme-ascii' })),
  })
}

async function send(c: TestClient, method: string, op: OpenApiOperation, generated: Generated): Promise<Response> {
  const search = new URLSearchParams(generated.query).toString()
  const url = `${generated.path}${search ? `?${search}` : ''}`
  const headers: Record<string, string> = {}
  if (generated.idempotencyKey && op.parameters.some((p) => p.name === 'Idempotency-Key')) headers['idempotency-key'] = generated.idempotencyKey
  const content = op.requestBody?.content ?? {}
  let body: BodyInit | undefined
  if (content['application/json']) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(generated.body ?? null)
  } else if (content['application/octet-stream']) {
    headers['content-type'] = 'application/octet-stream'
    body = new TextEncoder().encode(JSON.stringify(generated.body ?? ''))
  } else if (content['multipart/form-data']) {
    const form = new FormData()
    for (const [name, value] of Object.entries((generated.body ?? {}) as Record<string, unknown>)) form.append(name, typeof value === 'string' ? value : JSON.stringify(value ?? null))
    form.append('file', new Blob([JSON.stringify(generated.body ?? '')]), 'fuzz.jpg')
    body = form
  }
  return c.request(url, { method: method.toUpperCase(), headers, ...(body !== undefined && { body }) })
}

/** FUZZ_SHARD=i/n fuzzes every n-th operation from the i-th (the two files under tests/fuzz split the work). */
const operations = () => {
  const all = Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })))
  return all.filter(({ path }, index) => index % SHARDS === SHARD && (!ONLY || ONLY.test(path)))
}

test('the contract has operations to fuzz', () => {
  expect(operations().length).toBeGreaterThan(ONLY ? 0 : 15)
})

test(`no generated request to any operation answers 5xx (${RUNS} per operation)`, { timeout: 60 * 60_000 }, async () => {
  const statuses = new Map<string, Map<number, number>>()
  /** How long each operation's requests took (its rows not counted): where the suite's time goes. */
  const timeMs = new Map<string, number>()
  let setUpMs = 0
  const started = performance.now()
  for (const { path, method, op } of operations()) {
    const key = `${method.toUpperCase()} ${path}`
    const counts = new Map<number, number>()
    statuses.set(key, counts)
    const setUp = performance.now()
    known = await freshRows(path)
    setUpMs += performance.now() - setUp
    // A fresh session per operation: signing out or a refused refresh must not starve the next.
    const member = op.security.length ? await signedInClient(t, org.admin.member) : client(t)
    const fuzzing = performance.now()
    await fc.assert(
      fc.asyncProperty(requestArbitrary(path, op), async (generated) => {
        const response = await send(member, method, op, generated)
        counts.set(response.status, (counts.get(response.status) ?? 0) + 1)
        const text = await response.text()
        if (response.status >= 500) throw new Error(`${key} answered ${response.status}: ${text.slice(0, 500)}`)
      }),
      { numRuns: RUNS },
    )
    timeMs.set(key, performance.now() - fuzzing)
  }
  const summary = [...statuses].map(
    ([key, counts]) =>
      `${key}: ${[...counts]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s}×${n}`)
        .join(' ')} (${((timeMs.get(key) ?? 0) / 1000).toFixed(1)} s)`,
  )
  const totalMs = performance.now() - started
  console.info(`fuzz: ${statuses.size} operations × ${RUNS} requests in ${Math.round(totalMs / 1000)} s (${Math.round(setUpMs / 1000)} s making rows)\n${summary.join('\n')}`)
})
