import { z } from 'zod'
import { CLIENT_VERSION, CONTRACT_VERSION } from '~/lib/constants'
import { specOf, type OperationSpec, type ResponseSpec } from './contract'

/**
 * The OpenAPI 3.1 document, generated from the routes' operation specs (server/http/contract.ts)
 * and the zod schemas in them: request schemas as their input side (what a client sends), response
 * schemas as their output side. Nothing here is written by hand per call.
 */

type Route = { method: string; path: string; handler: unknown }
type JsonSchema = Record<string, unknown>

export type OpenApiOperation = {
  operationId: string
  summary: string
  description?: string
  tags: string[]
  security: Record<string, string[]>[]
  parameters: { name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: JsonSchema; description?: string }[]
  requestBody?: { required: boolean; content: Record<string, { schema: JsonSchema }>; description?: string }
  responses: Record<string, { description: string; content?: Record<string, { schema: JsonSchema }> }>
  'x-max-body-bytes'?: number
}

export type OpenApiDocument = {
  openapi: '3.1.0'
  info: { title: string; version: string; description: string }
  servers: { url: string; description: string }[]
  tags: { name: string; description: string }[]
  paths: Record<string, Record<string, OpenApiOperation>>
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, JsonSchema> }
}

const PROBLEM_REF = { $ref: '#/components/schemas/Problem' }

export const ProblemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string().optional(),
  instance: z.string(),
  correlationId: z.string(),
  code: z.string().optional(),
  remediation: z.string().optional(),
  retryAfterSeconds: z.number().int().optional(),
  errors: z.record(z.string(), z.array(z.string())).optional().describe('Field errors, keyed by the dotted path of each field.'),
}).meta({ id: 'Problem', description: 'RFC 9457 problem details, with the correlation id of the request.' })

/** OpenAPI path template from a Hono path: `/api/items/:id` → `/api/items/{id}`. */
export function openApiPath(honoPath: string): string {
  return honoPath.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?\??/g, '{$1}')
}

function pathParameterNames(honoPath: string): string[] {
  return [...honoPath.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1] ?? '')
}

/**
 * Named components: a zod schema registered with `.meta({ id: 'Project' })` (server/http/components.ts,
 * app/lib/schemas/*-responses.ts) becomes `#/components/schemas/Project` wherever it appears,
 * instead of a copy inline. zod puts such schemas in `$defs`; they are moved to the document's
 * components and every `#/$defs/X` reference is rewritten. A schema whose input side differs from
 * its output side (defaults, transforms) is published twice, the input side as `XInput`.
 */
class Components {
  readonly schemas: Record<string, JsonSchema> = {}

  add(name: string, json: JsonSchema, io: 'input' | 'output'): string {
    const text = JSON.stringify(json)
    const existing = this.schemas[name]
    if (existing === undefined) {
      this.schemas[name] = json
      return name
    }
    if (JSON.stringify(existing) === text) return name
    if (io === 'input') return this.add(`${name}Input`, json, io)
    throw new Error(`Two different schemas are registered with the component id "${name}".`)
  }
}

function toSchema(schema: z.ZodType, io: 'input' | 'output', components: Components): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12', override: ({ jsonSchema }) => standardFormat(jsonSchema as JsonSchema) }) as JsonSchema
  delete json.$schema
  const defs = (json.$defs ?? {}) as Record<string, JsonSchema>
  delete json.$defs
  // Names first (a def may refer to another), then the bodies with their references rewritten.
  const names = new Map<string, string>()
  const added = new Set<string>()
  for (const [id, body] of Object.entries(defs)) {
    const before = new Set(Object.keys(components.schemas))
    const name = components.add(id, rewriteRefs(body, new Map(Object.keys(defs).map((k) => [k, k]))) as JsonSchema, io)
    names.set(id, name)
    if (!before.has(name)) added.add(name)
  }
  for (const [id, body] of Object.entries(defs)) {
    const name = names.get(id) ?? id
    if (added.has(name)) components.schemas[name] = rewriteRefs(body, names) as JsonSchema
  }
  return rewriteRefs(json, names) as JsonSchema
}

/** JSON Schema's formats only: zod's `starts_with` (from `.startsWith()`) says the same as its pattern. */
function standardFormat(json: JsonSchema): void {
  if (json.format === 'starts_with' || json.format === 'ends_with' || json.format === 'includes') delete json.format
  // A record keyed by an enum (`z.record(z.enum([...]), v)`) requires every key: name them as properties too.
  if (json.type === 'object' && Array.isArray(json.required) && json.properties === undefined && typeof json.additionalProperties === 'object') {
    json.properties = Object.fromEntries((json.required as string[]).map((key) => [key, json.additionalProperties]))
  }
}

function rewriteRefs(value: unknown, names: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, names))
  if (value === null || typeof value !== 'object') return value
  const out: JsonSchema = {}
  for (const [key, inner] of Object.entries(value)) {
    if (key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')) {
      const id = decodeURIComponent(inner.slice('#/$defs/'.length))
      out[key] = `#/components/schemas/${names.get(id) ?? id}`
    } else out[key] = rewriteRefs(inner, names)
  }
  return out
}

/**
 * Every record's id is a UUID (server/db), so a path parameter named `id` or `…Id` whose spec says
 * no more (a plain string of at most 100 characters, or nothing) is published as one; a device's id
 * is the device's own text, and longer strings are tokens of their own kind. The handlers still answer 404, not 400, to an id that is not a
 * UUID (it names nothing), so the routes need not validate the format to keep that promise.
 */
const ID_PARAMETER = /^(?!deviceId$)(id|[a-z][A-Za-z]*Id)$/
const UUID_PARAMETER = { type: 'string', format: 'uuid', description: 'A UUID; one that names nothing here (or is not a UUID) is 404.' }

function pathParameterSchema(name: string, declared: JsonSchema | undefined): JsonSchema {
  const bare = declared === undefined || (declared.type === 'string' && declared.format === undefined && declared.enum === undefined && declared.pattern === undefined && ((declared.maxLength as number | undefined) ?? 0) <= 100)
  if (bare && ID_PARAMETER.test(name)) return UUID_PARAMETER
  return declared ?? { type: 'string' }
}

function parameters(route: Route, spec: OperationSpec, components: Components): OpenApiOperation['parameters'] {
  const pathSchema = spec.params ? toSchema(spec.params, 'input', components) : undefined
  const pathProperties = (pathSchema?.properties ?? {}) as Record<string, JsonSchema>
  const list: OpenApiOperation['parameters'] = pathParameterNames(route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: pathParameterSchema(name, pathProperties[name]),
  }))
  if (spec.query) {
    const querySchema = toSchema(spec.query, 'input', components)
    const required = new Set((querySchema.required ?? []) as string[])
    for (const [name, schema] of Object.entries((querySchema.properties ?? {}) as Record<string, JsonSchema>)) {
      list.push({ name, in: 'query', required: required.has(name), schema })
    }
  }
  if (spec.headers) {
    const headerSchema = toSchema(spec.headers, 'input', components)
    const required = new Set((headerSchema.required ?? []) as string[])
    for (const [name, schema] of Object.entries((headerSchema.properties ?? {}) as Record<string, JsonSchema>)) {
      const { description, ...rest } = schema as JsonSchema & { description?: string }
      list.push({ name, in: 'header', required: required.has(name), schema: rest, ...(typeof description === 'string' && { description }) })
    }
  }
  if (spec.idempotent) {
    list.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { type: 'string', minLength: 8, maxLength: 200 },
      description: 'Replays the first answer for 24 hours; the same key with another body is 422.',
    })
  }
  return list
}

function requestBody(spec: OperationSpec, defaultMaxBytes: number, components: Components): OpenApiOperation['requestBody'] {
  if (spec.rawBody) {
    return {
      required: true,
      description: `${spec.rawBody.description ?? 'The file'} (at most ${spec.rawBody.maxBytes} bytes).`,
      content: { [spec.rawBody.contentType]: { schema: spec.rawBody.schema ? toSchema(spec.rawBody.schema, 'input', components) : { type: 'string', format: 'binary' } } },
    }
  }
  if (!spec.body) return undefined
  return {
    required: true,
    description: `JSON, at most ${spec.maxBodyBytes ?? defaultMaxBytes} bytes.`,
    content: { 'application/json': { schema: toSchema(spec.body, 'input', components) } },
  }
}

/** What a non-JSON answer's body is, when its spec declares no schema: bytes, or text. */
function bodyOf(contentType: string): JsonSchema {
  return /^text\/|csv|html|xml|calendar/.test(contentType) ? { type: 'string' } : { type: 'string', format: 'binary' }
}

/** Statuses every operation with a problem answer may declare without saying more. */
const PROBLEM_STATUS = /^[45]\d\d$/

function responses(spec: OperationSpec, components: Components): OpenApiOperation['responses'] {
  const result: OpenApiOperation['responses'] = {}
  const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: PROBLEM_REF } } })
  for (const [status, value] of Object.entries(spec.responses)) {
    const response: ResponseSpec = typeof value === 'string' ? { description: value } : value
    const mediaTypes = response.contentType === undefined ? ['application/json'] : [response.contentType].flat()
    if (PROBLEM_STATUS.test(status) && !response.schema) result[status] = problem(response.description)
    else if (response.schema) {
      const schema = toSchema(response.schema, 'output', components)
      result[status] = { description: response.description, content: Object.fromEntries(mediaTypes.map((type) => [type, { schema }])) }
    } else if (response.contentType) {
      // A file's media types are published even without a schema: its body is the file's bytes (or text).
      result[status] = { description: response.description, content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: bodyOf(type) }])) }
    } else result[status] = { description: response.description }
  }
  if (spec.body || spec.query || spec.params || spec.headers || spec.rawBody) result['400'] ??= problem('Some input is not valid: the field errors say which.')
  if (spec.access !== 'public') result['401'] ??= problem('Not signed in, or the session has expired.')
  if (spec.access !== 'public') result['403'] ??= problem('The account is blocked (KR_USER_BLOCKED).')
  if (spec.body || spec.rawBody) result['413'] ??= problem('The body is over the limit.')
  if (spec.idempotent) {
    result['400'] ??= problem('The Idempotency-Key header is not valid.')
    result['409'] ??= problem('The first request with this Idempotency-Key is still being answered.')
    result['422'] ??= problem('This Idempotency-Key was used with another body.')
  }
  result.default = problem('Any other failure, as RFC 9457 problem details with a correlation id.')
  return result
}

/** One line per tag on the reference page; a tag without one gets a plain default. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  Contract: 'This document, and its readable reference page.',
  Operations: 'Liveness, readiness and the instance\'s own figures.',
}

const SECURITY: Record<OperationSpec['access'], Record<string, string[]>[]> = {
  public: [],
  session: [{ session: [] }],
  'pending-session': [{ session: [] }],
  // The role the call needs (OpenAPI 3.1 lists roles for schemes other than OAuth).
  admin: [{ session: ['admin'] }],
  operator: [{ session: ['platform-operator'] }],
}

/** Unsafe methods also need the CSRF header (server/http/csrf.ts); the reference page says so once. */
export function buildOpenApiDocument(routes: readonly Route[], defaultMaxBodyBytes: number, serverUrl = '/'): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {}
  const components = new Components()
  toSchema(ProblemSchema, 'output', components) // registers Problem
  // Answers first, so a component keeps its plain name for its output side (see Components).
  const answers = new Map<unknown, OpenApiOperation['responses']>()
  for (const route of routes) {
    const spec = route.method === 'ALL' ? undefined : specOf(route.handler)
    if (spec) answers.set(route, responses(spec, components))
  }
  const tags = new Set<string>()
  for (const route of routes) {
    if (route.method === 'ALL') continue
    const spec = specOf(route.handler)
    if (!spec) continue
    const method = route.method.toLowerCase()
    const path = openApiPath(route.path)
    const operationId = `${method}${path.replace(/\{([^}]+)\}/g, 'By-$1').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`
    const body = requestBody(spec, defaultMaxBodyBytes, components)
    tags.add(spec.tag)
    ;(paths[path] ??= {})[method] = {
      operationId,
      summary: spec.summary,
      ...(spec.description !== undefined && { description: spec.description }),
      tags: [spec.tag],
      security: SECURITY[spec.access],
      parameters: parameters(route, spec, components),
      ...(body && { requestBody: body }),
      responses: answers.get(route) ?? responses(spec, components),
      ...(spec.body && { 'x-max-body-bytes': spec.maxBodyBytes ?? defaultMaxBodyBytes }),
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Site Portal API',
      version: CONTRACT_VERSION,
      description:
        `Every call of the Site Portal web app (client ${CLIENT_VERSION}). Errors are RFC 9457 problem details with a ` +
        'correlation id. Signed-in calls use the session cookie; unsafe methods (POST, PUT, PATCH, DELETE) must also send ' +
        'the CSRF cookie\'s token in the X-CSRF-Token header. Paths may end with a slash or not.',
    },
    servers: [{ url: serverUrl, description: 'This portal: the API is served beside the web app, on the same origin.' }],
    tags: [...tags].sort().map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? `The ${name.toLowerCase()} calls.` })),
    paths,
    components: {
      schemas: components.schemas,
      securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'sp_session', description: '__Host-sp_session when served over https.' } },
    },
  }
}
