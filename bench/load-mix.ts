// The load of bench/load.ts and bench/load-faults.ts: the request mix run by autocannon, and how
// its figures are printed and checked against the rows written.
import { randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'
import { sql } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { rowsOf } from '#server/db/tenancy'
import { memory } from './built-server'
import type { Instance, LoadTenant, Session } from './load-setup'

/** How long and how wide each run is (`--seconds`, `--connections`). */
export type LoadOptions = { seconds: number; connections: number }

// ---- autocannon (no bundled types): the little of its API the mix uses ----

export type Request = { method: string; path: string; headers: Record<string, string>; body?: string }
type Context = { tenant?: LoadTenant; session?: Session; key?: string; sentAt?: number }
type Step = { setupRequest(request: Request, context: Context): Request; onResponse(status: number, body: string, context: Context): void }
type Histogram = { average: number; p50: number; p99: number; max: number }
export type Result = { requests: Histogram; latency: Histogram; errors: number; timeouts: number; non2xx: number; statusCodeStats: Record<string, { count: number }> }
type Run = Promise<Result> & { stop(): void }
const autocannon = createRequire(import.meta.url)('autocannon') as (options: { url: string; connections: number; duration: number; timeout: number; requests: Step[] }) => Run

/**
 * What a run saw besides autocannon's totals: each step's latencies, and the responses written by
 * Idempotency-Key (acknowledged with 201, or not: the basis of "nothing written twice").
 */
export type Tally = {
  latencies: Map<string, number[]>
  acknowledged: Set<string>
  /** Writes without a 201 (status 0: still unanswered when the run ended). */
  unacknowledged: Map<string, { itemId: string; session: Session; status: number }>
}

export function newTally(): Tally {
  return { latencies: new Map(), acknowledged: new Set(), unacknowledged: new Map() }
}

const pick = <T>(list: readonly T[]): T => {
  const value = list[Math.floor(Math.random() * list.length)]
  if (value === undefined) throw new Error('nothing to pick from')
  return value
}

/** The person a cycle of the mix runs as: chosen at its first request, kept for the rest. */
function who(context: Context, tenants: LoadTenant[]): { tenant: LoadTenant; session: Session } {
  context.tenant ??= pick(tenants)
  context.session ??= pick(context.tenant.sessions)
  return { tenant: context.tenant, session: context.session }
}

/** The body a written response carries: its key, so rows can be matched to acknowledgements. */
export const responseBody = (key: string) => `load ${key}`

function mix(tenants: LoadTenant[], tally: Tally): Step[] {
  // A connection sends its next request as soon as the last one is answered (no pipelining), so
  // the time from building a request to its answer is that request's latency.
  const timed = (label: string, build: (request: Request, context: Context) => Request, answered?: (status: number, context: Context) => void): Step => {
    const latencies = tally.latencies.get(label) ?? []
    tally.latencies.set(label, latencies)
    return {
      setupRequest(request, context) {
        context.sentAt = performance.now()
        return build(request, context)
      },
      onResponse(status, _body, context) {
        if (context.sentAt !== undefined) latencies.push(performance.now() - context.sentAt)
        answered?.(status, context)
      },
    }
  }
  const get = (label: string, pathOf: (tenant: LoadTenant) => string): Step =>
    timed(label, (request, context) => {
      const { tenant, session } = who(context, tenants)
      return { ...request, method: 'GET', path: pathOf(tenant), headers: { ...session.headers, accept: 'application/json' }, body: undefined }
    })
  const write = timed(
    'POST a response',
    (request, context) => {
      const { tenant, session } = who(context, tenants)
      const key = randomUUID()
      const itemId = pick(tenant.itemIds)
      context.key = key
      tally.unacknowledged.set(key, { itemId, session, status: 0 })
      return {
        ...request,
        method: 'POST',
        path: `/api/items/${itemId}/responses`,
        headers: { ...session.headers, accept: 'application/json', 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ body: responseBody(key) }),
      }
    },
    (status, context) => {
      const key = context.key
      const attempt = key === undefined ? undefined : tally.unacknowledged.get(key)
      if (!key || !attempt) return
      if (status !== 201) attempt.status = status
      else {
        tally.acknowledged.add(key)
        tally.unacknowledged.delete(key)
      }
    },
  )
  return [
    get('projects', () => '/api/projects'),
    get("a project's reports", (t) => `/api/reports?projectId=${pick(t.projectIds)}`),
    get("a report's items", (t) => `/api/reports/${pick(t.reportIds)}/items`),
    get('one item', (t) => `/api/items/${pick(t.itemIds)}`),
    write,
    get('outstanding of a project', (t) => `/api/items/outstanding?projectId=${pick(t.projectIds)}`),
    get('a thumbnail', (t) => pick(t.thumbnails)),
    get('one item', (t) => `/api/items/${pick(t.itemIds)}`),
  ]
}

/** The mix against `url` for the options' seconds and connections; a request waits at most 30 s (a hang shows as a timeout). */
export function load(url: string, tenants: LoadTenant[], tally: Tally, options: LoadOptions): Run {
  return autocannon({ url, connections: options.connections, duration: options.seconds, timeout: 30, requests: mix(tenants, tally) })
}

const MB = 1024 * 1024

export function report(label: string, result: Result, instances: Instance[], tally: Tally, rows?: number): void {
  const statuses = Object.entries(result.statusCodeStats)
    .map(([status, { count }]) => `${status}×${count}`)
    .join(' ')
  console.log(`   ${label}`)
  console.log(
    `     ${result.requests.average.toFixed(0)} requests/s   latency p50 ${result.latency.p50} ms   p99 ${result.latency.p99} ms   max ${result.latency.max} ms   ` +
      `errors ${result.errors} (timeouts ${result.timeouts})   non-2xx ${result.non2xx}   [${statuses}]`,
  )
  const steps = [...tally.latencies].map(([step, ms]) => {
    const sorted = [...ms].sort((x, y) => x - y)
    const at = (q: number) => (sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN).toFixed(0)
    return `${step} ${at(0.5)}/${at(0.99)}`
  })
  console.log(`     p50/p99 ms by request: ${steps.join(', ')}`)
  const rss = instances.map((instance) => `${(memory(instance).rss / MB).toFixed(0)} MB`).join(' + ')
  const open = [...tally.unacknowledged.values()].filter((write) => write.status === 0).length
  console.log(`     RSS at the end ${rss}   responses acknowledged ${tally.acknowledged.size}, unanswered when the run ended ${open}${rows === undefined ? '' : `, rows written ${rows}`}`)
}

/** Response rows the load wrote (their body names their key), and how many keys have more than one. */
export async function writtenRows(db: Database): Promise<{ rows: number; duplicated: number }> {
  const [row] = rowsOf<{ rows: number; duplicated: number }>(
    await db.execute(sql`select count(*)::int as rows, (count(*) - count(distinct body))::int as duplicated from item_responses where body like 'load %'`),
  )
  return row ?? { rows: 0, duplicated: 0 }
}

/** How many of these keys' responses were written. */
export async function writtenOf(db: Database, keys: string[]): Promise<number> {
  if (keys.length === 0) return 0
  const bodies = keys.map(responseBody)
  const [row] = rowsOf<{ rows: number }>(await db.execute(sql`select count(*)::int as rows from item_responses where body in ${bodies}`))
  return row?.rows ?? 0
}
