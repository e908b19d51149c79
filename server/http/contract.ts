import type { Context, MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { z } from 'zod'
import { checkInBackground, pathTemplate, recordInBackground, type SchemaMismatch } from '#server/domain/observability/schema-incidents'
import { CLIENT_VERSION } from '~/lib/constants'
import { textProblems } from '~/lib/schemas/text'
import { refuseNonAdmin, refuseNonOperator } from './access'
import type { BackendEnv } from './env'
import { bodyTooLarge } from './limits'
import { fieldErrors, groupErrors, Problem, problems } from './problem'

/**
 * The API contract, declared where each call is routed. `operation(spec)` is the first middleware
 * of every backend route: it validates the path, query and JSON body with the spec's zod schemas
 * (handlers read the results with `c.req.valid('param' | 'query' | 'json')`), enforces the body
 * limit while the body streams in, and applies the one text rule (app/lib/schemas/text.ts) to every string. The same spec is
 * what `/api/openapi.json` is generated from (server/http/openapi.ts), so the published contract
 * and the validation cannot drift apart.
 */

export type ResponseSpec = {
  description: string
  /** The body's schema, when it is worth publishing; JSON unless contentType says otherwise. */
  schema?: z.ZodType
  /** A file that comes in several formats lists each media type. */
  contentType?: string | readonly string[]
}

/**
 * Who may call an operation; documents the security requirement. The handler enforces it; for
 * 'admin' and 'operator' (a platform operator, PLATFORM_OPERATOR_EMAILS), `operation()` also
 * refuses anyone else before validating anything (server/http/access.ts).
 */
export type Access = 'public' | 'session' | 'pending-session' | 'admin' | 'operator'

export type OperationSpec = {
  summary: string
  description?: string
  /** The area of spec §7 the call belongs to; groups the reference page. */
  tag: string
  access: Access
  /** With access 'admin': a platform operator (PLATFORM_OPERATOR_EMAILS) passes the early check too; the handler decides what they may do. */
  alsoPlatformOperator?: boolean
  params?: z.ZodObject
  query?: z.ZodType
  /** Request headers the call reads, with lower-case names; validated like the query and published as header parameters. */
  headers?: z.ZodObject
  body?: z.ZodType
  /**
   * A body this middleware leaves alone (file chunks, multipart files): the route reads it as a
   * stream and enforces `maxBytes` itself.
   */
  rawBody?: { contentType: 'application/octet-stream' | 'multipart/form-data'; maxBytes: number; schema?: z.ZodType; description?: string }
  /** A larger JSON limit than the configured default, for the few calls that need one. */
  maxBodyBytes?: number
  /**
   * The body's schema applies the text rule itself, item by item (telemetry batches): an item that
   * breaks it is dropped there instead of refusing the whole body.
   */
  textRuleByItem?: boolean
  /** The call accepts an Idempotency-Key header (spec §7: registration, invites, tenants, billing). */
  idempotent?: boolean
  responses: Record<number, string | ResponseSpec>
}

type Output<S> = S extends z.ZodType ? z.output<S> : Record<string, never>

export type OperationInput<S extends OperationSpec> = {
  out: { json: Output<S['body']>; query: Output<S['query']>; param: Output<S['params']>; header: Output<S['headers']> }
}

const SPEC = Symbol('operation spec')

type Described = { [SPEC]?: OperationSpec }

/** The spec a route handler was declared with, for the OpenAPI generator. */
export function specOf(handler: unknown): OperationSpec | undefined {
  return typeof handler === 'function' ? (handler as Described)[SPEC] : undefined
}

export function operation<const S extends OperationSpec>(spec: S): MiddlewareHandler<BackendEnv, string, OperationInput<S>> {
  const validated: MiddlewareHandler<BackendEnv> = async (c, next) => {
    if (spec.access === 'admin') await refuseNonAdmin(c, { alsoPlatformOperator: spec.alsoPlatformOperator })
    if (spec.access === 'operator') await refuseNonOperator(c)
    const params = c.req.param() as Record<string, string>
    refuseBrokenText(params, 'Some path parameters are not valid.')
    if (spec.params) c.req.addValidatedData('param', parse(spec.params, params, 'Some path parameters are not valid.') as object)

    const query = c.req.query()
    refuseBrokenText(query, 'Some query parameters are not valid.')
    if (spec.query) c.req.addValidatedData('query', parse(spec.query, query, 'Some query parameters are not valid.') as object)

    if (spec.headers) {
      const headers = Object.fromEntries(Object.keys(spec.headers.shape).flatMap((name) => (c.req.header(name) === undefined ? [] : [[name, c.req.header(name)]])))
      refuseBrokenText(headers, 'Some headers are not valid.')
      c.req.addValidatedData('header', parse(spec.headers, headers, 'Some headers are not valid.') as object)
    }

    if (spec.rawBody) return next()
    // A GET or HEAD has no body to limit or read (and asking the request for one costs a copy of it).
    if (!spec.body && (c.req.method === 'GET' || c.req.method === 'HEAD')) return next()
    const maxBytes = spec.maxBodyBytes ?? c.get('deps').config.maxBodyBytes
    const limit = bodyLimit({
      maxSize: maxBytes,
      onError: () => {
        throw new Problem(bodyTooLarge(maxBytes))
      },
    })
    return limit(c, async () => {
      if (spec.body) c.req.addValidatedData('json', parse(spec.body, await readJson(c.req.text()), 'Some fields are not valid.', !spec.textRuleByItem) as object)
      await next()
    })
  }
  const middleware: MiddlewareHandler<BackendEnv> = async (c, next) => {
    await validated(c, next)
    checkResponseSample(c, spec)
  }
  ;(middleware as Described)[SPEC] = spec
  return middleware as MiddlewareHandler<BackendEnv, string, OperationInput<S>>
}

/** The statuses an operation declares: its spec's, and the problems the contract adds to every call of its kind. */
export function declaredStatuses(spec: OperationSpec): Set<number> {
  const statuses = new Set(Object.keys(spec.responses).map(Number))
  if (spec.body || spec.query || spec.params || spec.headers || spec.rawBody) statuses.add(400)
  // A signed-in call answers 403 KR_USER_BLOCKED to a blocked account, whatever it does.
  if (spec.access !== 'public') for (const status of [401, 403]) statuses.add(status)
  if (spec.body || spec.rawBody) statuses.add(413)
  if (spec.idempotent) for (const status of [400, 409, 422]) statuses.add(status)
  return statuses
}

/**
 * Schema incidents (server/domain/observability/schema-incidents.ts): for a sample of the answers
 * (SCHEMA_CHECK_SAMPLE; every answer in the tests) the answer is checked against the operation's
 * spec after it is made, and a mismatch is recorded in the background: a status the spec does not
 * declare (5xx aside: those are the `default` problem), a media type other than the declared one,
 * and a JSON body that does not match the declared schema. Never slows or breaks the answer.
 */
function checkResponseSample(c: Context<BackendEnv>, spec: OperationSpec): void {
  try {
    const { deps } = c.var
    if (!(Math.random() < deps.config.schemaCheckSample)) return
    const status = c.res.status
    const call = () => ({ method: c.req.method, path: pathTemplate(c.req.routePath), status, tenantId: c.var.session?.tenantId ?? null, correlationId: c.var.correlationId ?? null, release: CLIENT_VERSION })
    const log = c.var.log ?? deps.logger
    const mediaType = (c.res.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? ''
    const declared = spec.responses[status]
    const wrong = (mismatch: SchemaMismatch) => recordInBackground(deps, log, call(), Promise.resolve([mismatch]))
    if (status < 500 && !declaredStatuses(spec).has(status)) {
      return wrong({ field: '(status)', expected: `one of ${[...declaredStatuses(spec)].sort().join(', ')}`, got: `status ${status}` })
    }
    if (typeof declared !== 'object') return
    // A file offered in several formats declares each: any of them answers it (sameMediaType splits on commas).
    const expectedType = declared.contentType === undefined ? (declared.schema ? 'application/json' : undefined) : [declared.contentType].flat().join(',')
    if (expectedType && c.res.body && !sameMediaType(expectedType, mediaType)) {
      return wrong({ field: '(content-type)', expected: expectedType, got: mediaType || 'none' })
    }
    if (!declared.schema || !expectedType?.includes('json') || !c.res.body) return
    checkInBackground(deps, log, call(), declared.schema, c.res.clone().json())
  } catch (error) {
    c.var.log?.warn({ err: error }, 'a response could not be checked against its schema')
  }
}

/** `image/*` declares any image; otherwise the types must be equal. */
function sameMediaType(declared: string, actual: string): boolean {
  return declared.split(',').some((one) => {
    const type = one.split(';')[0]?.trim() ?? ''
    if (type === '*/*') return true
    return type.endsWith('/*') ? actual.startsWith(type.slice(0, -1)) : type === actual
  })
}

/**
 * A path parameter the handler reads itself and answers 404 to when it is not one of `values`
 * (photo variants and the like): published as an enum, without turning a wrong value into a 400.
 */
export function pathEnum(values: Iterable<string>, description?: string, base: z.ZodString = z.string()): z.ZodString {
  return base.meta({ enum: [...values], ...(description !== undefined && { description }) })
}

/**
 * An opaque path parameter (a token, a device's id, a group's key) the handler looks up itself and
 * answers 404 to when it names nothing: published with the pattern of what the server issues and a
 * description, without turning a value that does not match into a 400 (the lookup already answers
 * it, as it answers a well-formed value that names nothing). `base` keeps any length limit the
 * route already enforced.
 */
export function pathPattern(pattern: RegExp, description: string, base: z.ZodString = z.string()): z.ZodString {
  return base.meta({ pattern: pattern.source, description })
}

async function readJson(text: Promise<string>): Promise<unknown> {
  const raw = await text
  if (raw.trim() === '') return {}
  try {
    return JSON.parse(raw) as unknown
  } catch {
    throw new Problem(problems.badRequest('The request body is not valid JSON.'))
  }
}

function parse(schema: z.ZodType, value: unknown, detail: string, textRule = true): unknown {
  if (textRule) refuseBrokenText(value, detail)
  const result = schema.safeParse(value)
  if (!result.success) throw new Problem(problems.badRequest(detail, fieldErrors(result.error)))
  return result.data
}

/** The one text rule (app/lib/schemas/text.ts) over a whole parsed value, as field errors. */
function refuseBrokenText(value: unknown, detail: string): void {
  const found = textProblems(value)
  if (found.length === 0) return
  throw new Problem(problems.badRequest(detail, groupErrors(found)))
}
