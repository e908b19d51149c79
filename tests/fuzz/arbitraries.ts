import fc from 'fast-check'

/**
 * fast-check arbitraries from the JSON Schemas of the OpenAPI document: values that fit the
 * contract (so requests get past validation and reach the rules and the database), values that
 * break it in one place, and anything JSON can carry. Odd text is favoured: control characters,
 * lone surrogates, right-to-left marks, very long strings.
 */

type Schema = Record<string, unknown>

const ODD_TEXT = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'nul\u0000byte',
  '\ud800',
  '\u202eevil',
  '日本語',
  '✓',
  '../../etc/passwd',
  "'; drop table projects; --",
  '%00',
  '%',
  '\r\n',
  'a'.repeat(10_000),
  '0190d7f1-5a3e-7c2b-9d4e-1f2a3b4c5d6e',
  '-1',
  '1e309',
  'NaN',
  'null',
)

const anyText = fc.oneof({ weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) }, { weight: 1, arbitrary: ODD_TEXT })

export const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 3 }), ODD_TEXT, fc.constant(null), fc.integer(), fc.double())

/** `pick` supplies real ids (of rows that exist) for fields whose name ends in "Id" or "Ids". */
export type IdPool = (field: string) => fc.Arbitrary<string> | undefined

function stringOf(schema: Schema, field: string, ids: IdPool): fc.Arbitrary<string> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as string[]))
  const maxLength = Math.min(Number(schema.maxLength ?? 80), 300)
  const minLength = Math.min(Number(schema.minLength ?? 0), maxLength)
  const real = ids(field)
  if (schema.format === 'uuid') return real ? fc.oneof({ weight: 3, arbitrary: real }, fc.uuid()) : fc.uuid()
  if (schema.format === 'date') return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10))
  if (schema.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString())
  if (schema.format === 'email' || /email$/i.test(field)) return fc.oneof({ weight: 3, arbitrary: fc.emailAddress() }, fc.string({ unit: 'grapheme', maxLength }))
  const matching = typeof schema.pattern === 'string' ? patternArbitrary(schema.pattern, maxLength) : undefined
  if (matching) return fc.oneof({ weight: 3, arbitrary: matching }, fc.string({ unit: 'grapheme', minLength, maxLength }))
  const text = fc.string({ unit: 'grapheme', minLength, maxLength })
  return real ? fc.oneof(real, text) : text
}

/** Strings that match a schema's pattern (six-digit codes, e-mail shapes), cut to its length. */
function patternArbitrary(pattern: string, maxLength: number): fc.Arbitrary<string> | undefined {
  try {
    return fc.stringMatching(new RegExp(pattern)).filter((value) => value.length <= maxLength)
  } catch {
    return undefined
  }
}

export function arbitraryOf(schema: Schema | undefined, ids: IdPool, field = '', depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return anyJson
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as Schema[]).map((s) => arbitraryOf(s, ids, field, depth + 1)))
  if (Array.isArray(schema.oneOf)) return fc.oneof(...(schema.oneOf as Schema[]).map((s) => arbitraryOf(s, ids, field, depth + 1)))
  if (schema.const !== undefined) return fc.constant(schema.const)
  switch (schema.type) {
    case 'string':
      return stringOf(schema, field, ids)
    case 'integer':
      return fc.integer({ min: Number(schema.minimum ?? -1_000_000), max: Number(schema.maximum ?? 1_000_000) })
    case 'number':
      return fc.double({ min: Number(schema.minimum ?? -1e6), max: Number(schema.maximum ?? 1e6), noNaN: true })
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array': {
      const maxLength = Math.min(Number(schema.maxItems ?? 5), 5)
      const minLength = Math.min(Number(schema.minItems ?? 0), maxLength)
      return fc.array(arbitraryOf(schema.items as Schema | undefined, ids, field, depth + 1), { minLength, maxLength })
    }
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>
      const required = new Set((schema.required ?? []) as string[])
      const model = Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, arbitraryOf(s, ids, name, depth + 1)]))
      return fc.record(model, { requiredKeys: Object.keys(properties).filter((name) => required.has(name)) })
    }
    default:
      return anyJson
  }
}

/** Mostly values that fit; some with one field broken; some anything at all. */
export function bodyArbitrary(schema: Schema | undefined, ids: IdPool): fc.Arbitrary<unknown> {
  const fitting = arbitraryOf(schema, ids)
  const broken = fc.tuple(fitting, anyText, anyJson).map(([value, key, replacement]) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return replacement
    const keys = Object.keys(value)
    const target = keys.length > 0 ? keys[key.length % keys.length] ?? key : key
    return { ...value, [target]: replacement }
  })
  return fc.oneof({ weight: 6, arbitrary: fitting }, { weight: 3, arbitrary: broken }, { weight: 1, arbitrary: anyJson })
}

/** Query strings: fitting values for declared parameters, sometimes odd text or unknown names. */
export function queryArbitrary(parameters: { name: string; schema: Schema }[], ids: IdPool): fc.Arbitrary<Record<string, string>> {
  const model = Object.fromEntries(
    parameters.map((p) => [p.name, fc.oneof({ weight: 10, arbitrary: arbitraryOf(p.schema, ids, p.name).map(String) }, { weight: 1, arbitrary: anyText })]),
  )
  return fc.tuple(fc.record(model, { requiredKeys: [] }), fc.option(fc.tuple(anyText, anyText))).map(([known, extra]) => ({
    ...(known as Record<string, string>),
    ...(extra ? { [extra[0]]: extra[1] } : {}),
  }))
}

export { anyText }
