import type { WebSchemaIncident } from '~/lib/schemas/web-schema-incidents'
import { WEB_SCHEMA_INCIDENTS_MAX } from '~/lib/admin/schema-incidents'

/**
 * The browser's half of schema incidents (docs/observability.md): an answer of a contract call is
 * checked against the schema /api/openapi.json declares for its status, and each field that does
 * not match is reported (source web), described by its type, never its value. No zod reaches the
 * browser for this (decision 007): the schemas are the published document's JSON Schemas. The document is
 * fetched once, the first time an answer is checked, and the check runs after the caller has the
 * answer: it never slows or breaks a call.
 */

export type CheckedAnswer = { method: string; template: string; status: number; data: unknown; correlationId: string | undefined }

type JsonSchema = { [keyword: string]: unknown }
type Document = { paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }> }>>; components?: { schemas?: Record<string, JsonSchema> } }
type Mismatch = { field: string; expected: string; got: string }

/** Fields reported per answer, as on the server: one broken list would otherwise report every item. */
const FIELDS_PER_ANSWER = 5
/** The report's own call is not checked (its answer would be reported by the call that reports). */
export const SCHEMA_INCIDENT_REPORT_PATH = '/telemetry/schema-incidents'

export type AnswerCheckDeps = {
  loadDocument: () => Promise<unknown>
  report: (incidents: WebSchemaIncident[]) => Promise<unknown>
  /** When to check: default after the browser is idle (or at once where it has no idle callback). */
  later?: (work: () => void) => void
}

export function createAnswerChecker(deps: AnswerCheckDeps): (answer: CheckedAnswer) => void {
  let document: Promise<Document | undefined> | undefined
  /** A call and field reported once per page: the first tells the whole story. */
  const reported = new Set<string>()
  const later = deps.later ?? idle
  return (answer) => {
    if (answer.template === SCHEMA_INCIDENT_REPORT_PATH) return
    later(() => {
      document ??= deps.loadDocument().then(
        (value) => (isDocument(value) ? value : undefined),
        () => undefined,
      )
      void document
        .then(async (loaded) => {
          if (!loaded) return
          const schema = answerSchema(loaded, answer)
          if (!schema) return
          const incidents = mismatches(loaded, schema, answer.data)
            .filter((m) => !reported.has(`${answer.method} ${answer.template} ${m.field}`))
            .slice(0, WEB_SCHEMA_INCIDENTS_MAX)
          if (incidents.length === 0) return
          for (const m of incidents) reported.add(`${answer.method} ${answer.template} ${m.field}`)
          const method = answer.method.toUpperCase() as WebSchemaIncident['method']
          await deps.report(incidents.map((m) => ({ method, path: answer.template, status: answer.status, ...m, correlationId: answer.correlationId ?? null })))
        })
        .catch(() => undefined)
    })
  }
}

function idle(work: () => void): void {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(() => work(), { timeout: 5000 })
  else setTimeout(work, 0)
}

function isDocument(value: unknown): value is Document {
  return typeof value === 'object' && value !== null && typeof (value as { paths?: unknown }).paths === 'object'
}

function answerSchema(document: Document, answer: CheckedAnswer): JsonSchema | undefined {
  const response = document.paths[answer.template]?.[answer.method.toLowerCase()]?.responses?.[String(answer.status)]
  return response?.content?.['application/json']?.schema
}

/** The fields of `value` that `schema` refuses: the JSON Schema keywords zod writes (types, shapes, enums, unions, refs). */
export function mismatches(document: Document, schema: JsonSchema, value: unknown): Mismatch[] {
  const found: Mismatch[] = []
  check(document, schema, value, [], found)
  return found.slice(0, FIELDS_PER_ANSWER)
}

function check(document: Document, schema: JsonSchema, value: unknown, path: string[], found: Mismatch[], depth = 0): void {
  if (found.length >= FIELDS_PER_ANSWER || depth > 40) return
  const resolved = resolve(document, schema)
  const field = path.join('.')
  const union = (resolved.anyOf ?? resolved.oneOf) as JsonSchema[] | undefined
  if (Array.isArray(union)) {
    const fits = union.some((option) => {
      const probe: Mismatch[] = []
      check(document, option, value, path, probe, depth + 1)
      return probe.length === 0
    })
    if (!fits) found.push({ field, expected: union.map((option) => describeSchema(document, option)).join(' or '), got: describeValue(value) })
    return
  }
  if (Array.isArray(resolved.allOf)) for (const part of resolved.allOf as JsonSchema[]) check(document, part, value, path, found, depth + 1)
  if ('const' in resolved && value !== resolved.const) {
    found.push({ field, expected: JSON.stringify(resolved.const), got: describeValue(value) })
    return
  }
  if (Array.isArray(resolved.enum) && !resolved.enum.includes(value as never)) {
    found.push({ field, expected: `one of ${resolved.enum.map((v) => JSON.stringify(v)).join(', ')}`.slice(0, 200), got: describeValue(value) })
    return
  }
  const types = resolved.type === undefined ? undefined : [resolved.type].flat().map(String)
  if (types && !types.some((type) => hasType(value, type))) {
    found.push({ field, expected: types.join(' or '), got: describeValue(value) })
    return
  }
  if (Array.isArray(value)) {
    const items = resolved.items as JsonSchema | undefined
    if (items && typeof items === 'object') value.forEach((item, index) => check(document, items, item, [...path, String(index)], found, depth + 1))
    return
  }
  if (value === null || typeof value !== 'object') return
  const record = value as Record<string, unknown>
  const properties = (resolved.properties ?? {}) as Record<string, JsonSchema>
  for (const name of (resolved.required ?? []) as string[]) {
    if (!(name in record) || record[name] === undefined) found.push({ field: [...path, name].join('.'), expected: properties[name] ? describeSchema(document, properties[name]) : 'a value', got: 'missing' })
  }
  for (const [name, property] of Object.entries(properties)) {
    if (record[name] !== undefined) check(document, property, record[name], [...path, name], found, depth + 1)
  }
  const extra = resolved.additionalProperties
  if (extra && typeof extra === 'object') {
    for (const [name, item] of Object.entries(record)) if (!(name in properties)) check(document, extra as JsonSchema, item, [...path, name], found, depth + 1)
  }
}

function resolve(document: Document, schema: JsonSchema): JsonSchema {
  let current = schema
  for (let hops = 0; typeof current.$ref === 'string' && hops < 10; hops++) {
    const name = current.$ref.replace('#/components/schemas/', '')
    current = document.components?.schemas?.[name] ?? {}
  }
  return current
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null
    case 'array':
      return Array.isArray(value)
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value)
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
    default:
      return typeof value === type
  }
}

function describeSchema(document: Document, schema: JsonSchema): string {
  const resolved = resolve(document, schema)
  if (typeof schema.$ref === 'string') return schema.$ref.replace('#/components/schemas/', '')
  if (resolved.type !== undefined) return [resolved.type].flat().join(' or ')
  if (Array.isArray(resolved.enum)) return 'one of a list'
  return 'a value'
}

/** The type of a value, never the value itself: a browser's report may reach people who should not see the data. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'missing'
  if (value === null) return 'null'
  if (Array.isArray(value)) return `array of ${value.length}`
  if (typeof value === 'string') return `string of ${value.length} characters`
  return typeof value
}
