import type { paths } from './contract'

/**
 * The API client's typed surface, read from the contract (docs/decisions/025-typed-api-client.md):
 * `contract.d.ts` is generated from /api/openapi.json (`npm run contract:types`), which is generated
 * from the routes' zod operation specs. A call names the path as the contract writes it
 * (`/api/projects/{id}`), and the compiler checks its path parameters, query, body and answer.
 */

export type Paths = paths
export type ContractMethod = 'get' | 'post' | 'put' | 'patch' | 'delete'

type Operation<P extends keyof paths, M extends ContractMethod> = NonNullable<paths[P][M]>

/** The paths that have an operation for this method. */
export type PathsWith<M extends ContractMethod> = {
  [P in keyof paths]: [Operation<P, M>] extends [never] ? never : P
}[keyof paths]

type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T]

/** Optional fields may also be given as `undefined`: the client leaves them out. */
type Loose<T> = T extends readonly unknown[] | Blob | FormData
  ? T
  : T extends object
    ? { [K in Exclude<keyof T, OptionalKeys<T>>]: T[K] } & { [K in OptionalKeys<T>]?: T[K] | undefined }
    : T

type Parameters_<O> = O extends { parameters: infer X } ? X : never

/** A body that is not JSON (multipart files, chunks) passes untouched. */
export type RawBody = FormData | Blob | ArrayBuffer | ArrayBufferView | URLSearchParams

type BodyOf<C> = C extends { 'application/json': infer J } ? Loose<J> : RawBody

type BodyPart<O> = O extends { requestBody: { content: infer C } }
  ? { body: BodyOf<C> }
  : O extends { requestBody?: { content: infer C } }
    ? { body?: BodyOf<C> | undefined }
    : { body?: never }

/**
 * A query may also be the URLSearchParams of a screen's filters, forwarded as the person typed them
 * for the server to refuse with field errors (admin lists): its names and values are then not
 * checked, the path and the answer still are.
 */
type Forwarded<K> = K extends 'query' ? URLSearchParams : never

type ParamPart<O, K extends 'path' | 'query'> = K extends keyof Parameters_<O>
  ? [Exclude<Parameters_<O>[K], undefined>] extends [never]
    ? { [Key in K]?: never }
    : object extends Pick<Parameters_<O>, K>
      ? { [Key in K]?: Loose<Exclude<Parameters_<O>[K], undefined>> | Forwarded<K> | undefined }
      : { [Key in K]: Loose<Exclude<Parameters_<O>[K], undefined>> | Forwarded<K> }
  : { [Key in K]?: never }

/** What a call takes besides its path: path parameters, query, body and the client's options. */
export type CallInit<P extends keyof paths, M extends ContractMethod, Options extends object> = Options &
  ParamPart<Operation<P, M>, 'path'> &
  ParamPart<Operation<P, M>, 'query'> &
  BodyPart<Operation<P, M>>

/** The init is optional when nothing in it is required. */
export type CallArgs<P extends keyof paths, M extends ContractMethod, Options extends object> = [
  Exclude<keyof CallInit<P, M, Options>, OptionalKeys<CallInit<P, M, Options>>>,
] extends [never]
  ? [init?: CallInit<P, M, Options>]
  : [init: CallInit<P, M, Options>]

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 205 | 206

type ContentOf<R> = R extends { content: infer C }
  ? C extends { 'application/json': infer J }
    ? J
    : // A file or text answer: the client hands over the text it read.
      string
  : undefined

/** The JSON body an operation takes, as the contract declares it. */
export type RequestBody<P extends keyof paths, M extends ContractMethod> = Operation<P, M> extends { requestBody?: { content: { 'application/json': infer J } } } ? J : never

/** The answer of a successful call: the union of its 2xx bodies (undefined for 204). */
export type Answer<P extends keyof paths, M extends ContractMethod> = Operation<P, M> extends { responses: infer R }
  ? { [S in keyof R]: S extends SuccessStatus ? ContentOf<R[S]> : never }[keyof R]
  : never

/**
 * The URL of a call: `{name}` replaced by its encoded value, the query's defined values appended
 * (an array as the same name repeated), in the order given.
 */
export function callPath(template: string, path: Record<string, unknown> | undefined, query: Record<string, unknown> | URLSearchParams | undefined): string {
  const filled = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = path?.[name]
    if (value === undefined || value === null) throw new TypeError(`The call ${template} needs its path parameter ${name}.`)
    return encodeURIComponent(String(value))
  })
  if (!query) return filled
  const search = new URLSearchParams(query instanceof URLSearchParams ? query : undefined)
  for (const [name, value] of query instanceof URLSearchParams ? [] : Object.entries(query)) {
    if (value === undefined || value === null) continue
    for (const one of Array.isArray(value) ? value : [value]) search.append(name, String(one))
  }
  const text = search.toString()
  return text === '' ? filled : `${filled}?${text}`
}
