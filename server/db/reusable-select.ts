import * as drizzle from 'drizzle-orm'
import { sql, type Placeholder, type Query } from 'drizzle-orm'
import type { SelectedFieldsOrdered } from 'drizzle-orm/pg-core'
import type { Database } from './client'

/** Exported by drizzle-orm's utils (its own prepare() calls it) but left out of its type declarations. */
const { orderSelectedFields } = drizzle as unknown as { orderSelectedFields(fields: Record<string, unknown>): SelectedFieldsOrdered }

/** A transaction is a database to drizzle: the select runs in whichever it is given. */
type Executor = Database
/** A placeholder for each value the select takes: `value('tokenHash')`. */
export type ValueOf<Values> = (name: keyof Values & string) => Placeholder
/** What a select builder is: awaited, it runs; `toSQL()` writes its text. */
type Builder = PromiseLike<unknown[]> & { toSQL(): Query }
/** What drizzle's select builder keeps to itself and its own prepare() reads (drizzle-orm 0.45). */
type BuilderInternals = { config: { fields: Record<string, unknown> }; joinsNotNullableMap?: Record<string, boolean> }
/** The rows a builder gives when it is awaited. */
type Rows<B> = B extends PromiseLike<infer R> ? R : never
type Built = { query: Query; fields: SelectedFieldsOrdered; joinsNotNullableMap: Record<string, boolean> | undefined }
/** The prepared query drizzle's sessions make (PgSession.prepareQuery), as far as it is used here. */
type Prepared = { execute(values: Record<string, unknown>): Promise<unknown>; joinsNotNullableMap?: Record<string, boolean> }

/**
 * A select whose SQL drizzle builds once (issue 37), for the statements every request sends: the
 * session, the membership, the first page of a list. Drizzle otherwise builds a select's tree and
 * writes its text again on every call (`sql.js`, `entity.js`'s `is`, the dialect: a fifth of an API
 * list's CPU on PGlite). Here the builder is made once per shape with placeholders where the values
 * go, its text and field order kept, and each call hands them to the transaction's own session as
 * drizzle's `prepare()` does (same rows, same mapping of columns, same errors), inside whichever
 * transaction the caller is in.
 *
 * `shape` names what changes the text (an optional filter present or not); each shape is built
 * once. Values must be what the driver takes (an ISO string for a timestamp, not a Date): drizzle
 * encodes a placeholder's value as it stands.
 */
export function reusableSelect<Values extends Record<string, unknown>, B extends Builder, Shape extends string = ''>(
  build: (db: Executor, value: ValueOf<Values>, shape: Shape) => B,
): (db: Executor, values: Values, shape?: Shape) => Promise<Rows<B>> {
  const built = new Map<string, Built>()
  const value: ValueOf<Values> = (name) => sql.placeholder(name)
  return async (db, values, shape = '' as Shape) => {
    let select = built.get(shape)
    if (!select) {
      const builder = build(db, value, shape)
      const internals = builder as unknown as BuilderInternals
      select = { query: builder.toSQL(), fields: orderSelectedFields(internals.config.fields), joinsNotNullableMap: internals.joinsNotNullableMap }
      built.set(shape, select)
    }
    const prepared = db._.session.prepareQuery(select.query, select.fields, undefined, true) as unknown as Prepared
    prepared.joinsNotNullableMap = select.joinsNotNullableMap
    return (await prepared.execute(values)) as Rows<B>
  }
}
