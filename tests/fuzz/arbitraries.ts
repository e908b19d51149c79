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

/**
 * Real values (of rows and keys that exist) for a field, by its name: ids for fields whose name
 * ends in "Id" or "Ids", and the keys, codes, addresses and numbers the run found or knows for
 * other names (`key`, `packageKey`, `email`, `code`). Undefined: none known, the schema alone draws.
 */
export type IdPool = (field: string) => fc.Arbitrary<string> | undefined

function stringOf(schema: Schema, field: string, ids: IdPool): fc.Arbitrary<string> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as string[]))
  const maxLength = Math.min(Number(schema.maxLength ?? 80), 300)
  const minLength = Math.min(Number(schema.minLength ?? 0), maxLength)
  const real = ids(field)
  if (schema.format === 'uuid') return real ? fc.oneof({ weight: 3, arbitrary: real }, fc.uuid()) : fc.uuid()
  // A real value mostly (a key that exists gets past the lookup to the rules), the schema's own the rest.
  if (real && schema.format !== 'date' && schema.format !== 'date-time') return fc.oneof({ weight: 3, arbitrary: real }, stringOf(schema, field, () => undefined))
  if (schema.format === 'date') return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10))
  if (schema.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString())
  if (schema.format === 'email' || /email$/i.test(field)) return fc.oneof({ weight: 3, arbitrary: fc.emailAddress() }, fc.string({ unit: 'grapheme', maxLength }))
  const matching = typeof schema.pattern === 'string' ? patternArbitrary(schema.pattern, maxLength) : undefined
  if (matching) return fc.oneof({ weight: 3, arbitrary: matching }, fc.string({ unit: 'grapheme', minLength, maxLength }))
  return fc.string({ unit: 'grapheme', minLength, maxLength })
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
    case 'integer': {
      const min = Number(schema.minimum ?? -1_000_000)
      const max = Number(schema.maximum ?? 1_000_000)
      const drawn = fc.integer({ min, max })
      // A real value known by the field's name may be another kind's (a document's status "S2" for
      // an answer's HTTP status): one that is no integer in range is drawn instead.
      const real = ids(field)?.chain((value) => {
        const number = Number(value)
        return Number.isInteger(number) && number >= min && number <= max ? fc.constant(number) : drawn
      })
      return real ? fc.oneof({ weight: 3, arbitrary: real }, drawn) : drawn
    }
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
      return someOf(model, Object.keys(properties).filter((name) => required.has(name)))
    }
    default:
      return anyJson
  }
}

/**
 * A record with its required keys and about half of the others (fast-check's own record keeps five
 * in six: a PATCH of eight optional fields then nearly always carries one drawn wrong, and the
 * rules behind them were reached by a few requests in a hundred).
 */
function someOf(model: Record<string, fc.Arbitrary<unknown>>, requiredKeys: string[]): fc.Arbitrary<Record<string, unknown>> {
  const optional = Object.keys(model).filter((name) => !requiredKeys.includes(name))
  return fc
    .tuple(fc.record(model, { requiredKeys }), fc.subarray(optional))
    .map(([value, kept]) => Object.fromEntries(Object.entries(value).filter(([name]) => requiredKeys.includes(name) || kept.includes(name))))
}

/**
 * Mostly values that fit; some with one field broken; some anything at all. `records` are the
 * record as its GET answers it now (what an editor sends back, changed in one field): half of the
 * fitting bodies start from one of them, the share of broken ones stays.
 */
export function bodyArbitrary(schema: Schema | undefined, ids: IdPool, records: Record<string, unknown>[] = []): fc.Arbitrary<unknown> {
  const drawn = arbitraryOf(schema, ids)
  const edited =
    records.length === 0
      ? undefined
      : fc.tuple(fc.constantFrom(...records), drawn, fc.nat()).map(([record, value, n]) => {
          if (value === null || typeof value !== 'object' || Array.isArray(value)) return record
          const keys = Object.keys(value)
          const key = keys[n % Math.max(keys.length, 1)]
          return key === undefined ? record : { ...record, [key]: (value as Record<string, unknown>)[key] }
        })
  const fitting = edited ? fc.oneof(drawn, edited) : drawn
  const broken = fc.tuple(fitting, anyText, anyJson).map(([value, key, replacement]) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return replacement
    const keys = Object.keys(value)
    const target = keys.length > 0 ? keys[key.length % keys.length] ?? key : key
    return { ...value, [target]: replacement }
  })
  return fc.oneof({ weight: 6, arbitrary: fitting }, { weight: 3, arbitrary: broken }, { weight: 1, arbitrary: anyJson })
}

/** Query strings: fitting values for declared parameters, sometimes odd text or unknown names. */
export function queryArbitrary(parameters: { name: string; schema: Schema; required?: boolean }[], ids: IdPool): fc.Arbitrary<Record<string, string>> {
  const modelOf = (list: typeof parameters) =>
    Object.fromEntries(list.map((p) => [p.name, fc.oneof({ weight: 10, arbitrary: arbitraryOf(p.schema, ids, p.name).map(String) }, { weight: 1, arbitrary: anyText })]))
  // A required parameter is left out now and then (fast-check's option: one in six), an optional one half the time.
  const required = fc.record(modelOf(parameters.filter((p) => p.required)), { requiredKeys: [] })
  const optional = someOf(modelOf(parameters.filter((p) => !p.required)), [])
  // A parameter the operation does not declare in one query of three (fast-check's option: five in six, so most never reached the handler).
  const unknown = fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.tuple(anyText, anyText) })
  return fc.tuple(required, optional, unknown).map(([must, may, extra]) => ({
    ...(may as Record<string, string>),
    ...(must as Record<string, string>),
    ...(extra ? { [extra[0]]: extra[1] } : {}),
  }))
}

export { anyText }
