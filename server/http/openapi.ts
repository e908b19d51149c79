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
  paths: Record<string, Record<string, OpenApiOperation>>
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, JsonSchema> }
}

const PROBLEM_REF = { $ref: '#/components/schemas/Problem' }

const ProblemSchema = z.object({
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
})

/** OpenAPI path template from a Hono path: `/api/items/:id` → `/api/items/{id}`. */
export function openApiPath(honoPath: string): string {
  return honoPath.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?\??/g, '{$1}')
}

function pathParameterNames(honoPath: string): string[] {
  return [...honoPath.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1] ?? '')
}

function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema
  delete json.$schema
  return json
}

function parameters(route: Route, spec: OperationSpec): OpenApiOperation['parameters'] {
  const pathSchema = spec.params ? toSchema(spec.params, 'input') : undefined
  const pathProperties = (pathSchema?.properties ?? {}) as Record<string, JsonSchema>
  const list: OpenApiOperation['parameters'] = pathParameterNames(route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: pathProperties[name] ?? { type: 'string' },
  }))
  if (spec.query) {
    const querySchema = toSchema(spec.query, 'input')
    const required = new Set((querySchema.required ?? []) as string[])
    for (const [name, schema] of Object.entries((querySchema.properties ?? {}) as Record<string, JsonSchema>)) {
      list.push({ name, in: 'query', required: required.has(name), schema })
    }
  }
  if (spec.headers) {
    const headerSchema = toSchema(spec.headers, 'input')
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

function requestBody(spec: OperationSpec, defaultMaxBytes: number): OpenApiOperation['requestBody'] {
  if (spec.rawBody) {
    return {
      required: true,
      description: `${spec.rawBody.description ?? 'The file'} (at most ${spec.rawBody.maxBytes} bytes).`,
      content: { [spec.rawBody.contentType]: { schema: spec.rawBody.schema ? toSchema(spec.rawBody.schema, 'input') : { type: 'string', format: 'binary' } } },
    }
  }
  if (!spec.body) return undefined
  return {
    required: true,
    description: `JSON, at most ${spec.maxBodyBytes ?? defaultMaxBytes} bytes.`,
    content: { 'application/json': { schema: toSchema(spec.body, 'input') } },
  }
}

function responses(spec: OperationSpec): OpenApiOperation['responses'] {
  const result: OpenApiOperation['responses'] = {}
  for (const [status, value] of Object.entries(spec.responses)) {
    const response: ResponseSpec = typeof value === 'string' ? { description: value } : value
    // A file's media types are published even without a schema: its body is the file's bytes.
    const mediaTypes = response.contentType === undefined ? [] : [response.contentType].flat()
    const schema = response.schema ? toSchema(response.schema, 'output') : { type: 'string', format: 'binary' }
    result[status] =
      response.schema || mediaTypes.length > 0
        ? { description: response.description, content: Object.fromEntries((mediaTypes.length > 0 ? mediaTypes : ['application/json']).map((type) => [type, { schema }])) }
        : { description: response.description }
  }
  const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: PROBLEM_REF } } })
  if (spec.body || spec.query || spec.params || spec.headers || spec.rawBody) result['400'] ??= problem('Some input is not valid: the field errors say which.')
  if (spec.access !== 'public') result['401'] ??= problem('Not signed in, or the session has expired.')
  if (spec.body || spec.rawBody) result['413'] ??= problem('The body is over the limit.')
  result.default = problem('Any other failure, as RFC 9457 problem details with a correlation id.')
  return result
}

const SECURITY: Record<OperationSpec['access'], Record<string, string[]>[]> = {
  public: [],
  session: [{ session: [] }],
  'pending-session': [{ session: [] }],
  admin: [{ session: [] }],
}

/** Unsafe methods also need the CSRF header (server/http/csrf.ts); the reference page says so once. */
export function buildOpenApiDocument(routes: readonly Route[], defaultMaxBodyBytes: number): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {}
  for (const route of routes) {
    if (route.method === 'ALL') continue
    const spec = specOf(route.handler)
    if (!spec) continue
    const method = route.method.toLowerCase()
    const path = openApiPath(route.path)
    const operationId = `${method}${path.replace(/\{([^}]+)\}/g, 'By-$1').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`
    const body = requestBody(spec, defaultMaxBodyBytes)
    ;(paths[path] ??= {})[method] = {
      operationId,
      summary: spec.summary,
      ...(spec.description !== undefined && { description: spec.description }),
      tags: [spec.tag],
      security: SECURITY[spec.access],
      parameters: parameters(route, spec),
      ...(body && { requestBody: body }),
      responses: responses(spec),
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
    paths,
    components: {
      schemas: { Problem: toSchema(ProblemSchema, 'output') },
      securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'sp_session', description: '__Host-sp_session when served over https.' } },
    },
  }
}
