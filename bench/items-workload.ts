// The 100,000-item workload shared by bench/items.bench.ts (backend in-process) and
// bench/memory.bench.ts (the built server over HTTP): the seed, a session as sign-in makes it,
// and the outstanding-items requests with their p50/p95.
import { randomBytes } from 'node:crypto'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import type { Config } from '#server/config'
import type { Database } from '#server/db/client'
import { memberships, sessions, tenants, users } from '#server/db/schema'
import { rowsOf, withTenant } from '#server/db/tenancy'
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '#server/domain/auth/sessions'
import { newToken } from '#server/domain/auth/tokens'
import { cookieName } from '#server/http/cookies'
import { csrfBinding, mintCsrfToken } from '#server/http/csrf'
import { HEADERS } from '~/lib/constants'
import type { Item, Page } from '~/lib/reporting/types'

export const ITEMS = 100_000
const PROJECTS = 50
const REPORTS_PER_PROJECT = 4
const RUNS = 50
const WARM_UP = 5
export const DEEP_PAGES = 100

export type Caller = (pathAndQuery: string, accept?: string) => Promise<Response>

export type Seeded = { tenantId: string; userId: string; projectId: string; outstanding: number }

/** One tenant, one admin, 50 projects × 4 reports, 100,000 items (a fifth closed, 1% deleted), or `items` of them. */
export async function seed(db: Database, items: number = ITEMS): Promise<Seeded> {
  const [tenant] = await db.insert(tenants).values({ name: 'Bench', slug: `bench-${randomBytes(4).toString('hex')}` }).returning({ id: tenants.id })
  const [user] = await db.insert(users).values({ email: `bench-${randomBytes(4).toString('hex')}@example.test`, displayName: 'Bench Admin' }).returning({ id: users.id })
  if (!tenant || !user) throw new Error('seed: no tenant or user')
  const t = tenant.id
  const u = user.id
  await withTenant(db, t, async (tx) => {
    await tx.insert(memberships).values({ tenantId: t, userId: u, roleKey: 'admin', isDefault: true })
    await tx.execute(sql`insert into packages (tenant_id, key, name) select ${t}, k, initcap(k) from unnest(array['civil','mep','glazing','finishes']) k`)
    // Revisions: projects 1–50, reports 51–250, items from 251 on, in creation order.
    await tx.execute(sql`
      insert into projects (tenant_id, id, title, created_by, revision, created_at, updated_at)
      select ${t}, gen_random_uuid(), 'Project ' || g, ${u}, g, timestamptz '2024-01-01' + g * interval '1 minute', timestamptz '2024-01-01'
      from generate_series(1, ${PROJECTS}) g`)
    await tx.execute(sql`
      insert into reports (tenant_id, id, project_id, title, created_by, revision, created_at, updated_at)
      select ${t}, gen_random_uuid(), p.id, 'Report ' || r, ${u}, ${PROJECTS} + row_number() over (order by p.created_at, r), p.created_at + r * interval '1 second', p.created_at
      from projects p cross join generate_series(1, ${REPORTS_PER_PROJECT}) r`)
    await tx.execute(sql`
      with numbered as (select id, project_id, (row_number() over (order by created_at, id) - 1)::int as n from reports)
      insert into report_items (tenant_id, id, report_id, project_id, number, title, status, priority, assignee_user_id, package_key, due_date,
                                created_by, closed_at, closed_by, deleted_at, revision, created_at, updated_at)
      select ${t}, gen_random_uuid(), r.id, r.project_id, g, 'Item ' || g,
             case when g % 5 = 0 then 'closed' when g % 7 = 0 then 'close_requested' else 'open' end,
             (array['low','medium','high','critical'])[1 + g % 4],
             case when g % 3 = 0 then ${u}::uuid end,
             (array['civil','mep','glazing','finishes'])[1 + g % 4],
             date '2025-01-01' + (g % 400),
             ${u}, case when g % 5 = 0 then ts end, case when g % 5 = 0 then ${u}::uuid end, case when g % 101 = 0 then ts end,
             ${PROJECTS * (1 + REPORTS_PER_PROJECT)} + g, ts, ts
      from generate_series(1, ${items}) g
      cross join lateral (select date_trunc('milliseconds', timestamptz '2024-02-01' + g * interval '3 minutes 7.5 seconds') as ts) tm
      join numbered r on r.n = g % ${PROJECTS * REPORTS_PER_PROJECT}`)
    await tx.execute(sql`
      insert into change_log (tenant_id, revision, entity, entity_id, change_type, changed_at)
      select tenant_id, revision, 'Project', id, 'Created', created_at from projects
      union all select tenant_id, revision, 'Report', id, 'Created', created_at from reports
      union all select tenant_id, revision, 'ReportItem', id, 'Created', created_at from report_items`)
    await tx.execute(sql`insert into tenant_revisions (tenant_id, revision) select ${t}, max(revision) from change_log`)
  })
  // As autovacuum (PostgreSQL) or the vacuum pass (PGlite, server/jobs/pglite-vacuum.ts) leaves a settled tenant.
  await db.execute(sql`vacuum analyze`)
  return withTenant(db, t, async (tx) => {
    const [project] = rowsOf<{ id: string }>(await tx.execute(sql`select id from projects order by created_at limit 1`))
    const [count] = rowsOf<{ n: number }>(await tx.execute(sql`select count(*)::int as n from report_items where status <> 'closed' and deleted_at is null`))
    if (!project || !count) throw new Error('seed: nothing seeded')
    return { tenantId: t, userId: u, projectId: project.id, outstanding: count.n }
  })
}

/** A session made as sign-in makes it, and the cookie + CSRF header a browser would send. */
export async function signIn(db: Database, config: Config, seeded: Seeded): Promise<Record<string, string>> {
  const now = new Date()
  const { token, hash } = newToken()
  const [session] = await db
    .insert(sessions)
    .values({ tokenHash: hash, userId: seeded.userId, tenantId: seeded.tenantId, kind: 'user', issuedAt: now, lastSeenAt: now, expiresAt: new Date(now.getTime() + SESSION_IDLE_MS), maxExpiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS.user) })
    .returning({ id: sessions.id })
  if (!session) throw new Error('no session')
  const csrf = mintCsrfToken(config.sessionSecret, csrfBinding(session.id))
  return { cookie: `${cookieName(config, 'session')}=${token}; ${cookieName(config, 'csrf')}=${csrf}`, [HEADERS.csrf]: csrf }
}

export async function cursorAfter(api: Caller, base: string, pages: number): Promise<string> {
  let cursor: string | null = null
  for (let i = 0; i < pages; i++) {
    const separator = base.includes('?') ? '&' : '?'
    const response = await api(cursor ? `${base}${separator}before=${cursor}` : base)
    if (!response.ok) throw new Error(`${base}: ${response.status} ${await response.text()}`)
    const page = (await response.json()) as Page<Item>
    if (!page.nextCursor) throw new Error(`${base}: only ${i + 1} pages`)
    cursor = page.nextCursor
  }
  return cursor ?? ''
}

export async function timeIt(label: string, api: Caller, pathAndQuery: string, options: { accept?: string; runs?: number; warmUp?: number } = {}): Promise<void> {
  const { accept, runs = RUNS, warmUp = WARM_UP } = options
  const times: number[] = []
  let bytes = 0
  for (let i = 0; i < warmUp + runs; i++) {
    const started = performance.now()
    const response = await api(pathAndQuery, accept)
    const body = await response.text()
    const ms = performance.now() - started
    if (!response.ok) throw new Error(`${pathAndQuery}: ${response.status} ${body.slice(0, 300)}`)
    if (i >= warmUp) times.push(ms)
    bytes = body.length
  }
  times.sort((a, b) => a - b)
  const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)] ?? Number.NaN
  console.log(`   ${label.padEnd(40)} p50 ${at(0.5).toFixed(1).padStart(7)} ms   p95 ${at(0.95).toFixed(1).padStart(7)} ms   (${runs} requests, ${(bytes / 1024).toFixed(0)} KB)`)
}

/** The outstanding-items requests of docs/performance.md, in order; answers the deep cursors. */
export async function outstandingRequests(api: Caller, seeded: Seeded): Promise<{ deep: string; deepProject: string }> {
  await timeIt('outstanding, first page', api, '/api/items/outstanding')
  const deep = await cursorAfter(api, '/api/items/outstanding', DEEP_PAGES)
  await timeIt(`outstanding, page ${DEEP_PAGES + 1} (before=cursor)`, api, `/api/items/outstanding?before=${deep}`)
  await timeIt('outstanding, projectId filter', api, `/api/items/outstanding?projectId=${seeded.projectId}`)
  const deepProject = await cursorAfter(api, `/api/items/outstanding?projectId=${seeded.projectId}`, 20)
  await timeIt('outstanding, projectId, page 21', api, `/api/items/outstanding?projectId=${seeded.projectId}&before=${deepProject}`)
  await timeIt('outstanding, packageKey + overdue', api, '/api/items/outstanding?packageKey=mep&overdue=true')
  return { deep, deepProject }
}

/**
 * What a phone without a cursor downloads: the snapshot's first page, then the whole tenant page by
 * page (docs/site-reporting.md "Change log"), then a poll with the final cursor when nothing changed.
 */
export async function syncSnapshot(api: Caller): Promise<void> {
  await timeIt('sync snapshot, first page', api, '/api/sync/changes', { runs: 5, warmUp: 1 })
  const started = performance.now()
  let cursor = ''
  let hasMore = true
  let pages = 0
  let bytes = 0
  while (hasMore) {
    const response = await api(cursor ? `/api/sync/changes?cursor=${encodeURIComponent(cursor)}` : '/api/sync/changes')
    const body = await response.text()
    if (!response.ok) throw new Error(`sync page ${pages + 1}: ${response.status} ${body.slice(0, 300)}`)
    const page = JSON.parse(body) as { cursor: { value: string }; hasMore?: boolean }
    cursor = page.cursor.value
    hasMore = page.hasMore === true
    pages += 1
    bytes += body.length
  }
  const ms = performance.now() - started
  console.log(`   ${'sync full pull (every page)'.padEnd(40)} ${ms.toFixed(0).padStart(7)} ms in ${pages} pages   (${(bytes / 1024 / 1024).toFixed(1)} MB uncompressed)`)
  await timeIt('sync poll, nothing changed', api, `/api/sync/changes?cursor=${encodeURIComponent(cursor)}`)
}

export async function adminQuery(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

export function databaseOf(serverUrl: string, name: string): string {
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return url.toString()
}
