import { messages, parse, protocol, type PGlite, type Transaction } from '@electric-sql/pglite'
import type { BackendMessage, DatabaseError } from 'pg-protocol/dist/messages'
import { Parser } from 'pg-protocol/dist/parser'

/**
 * How many statements one PGlite keeps prepared. The least recently used is closed past it: drizzle
 * writes a new text for every length of an `in (…)` list or a multi-row insert, and each prepared
 * statement keeps its plan in WebAssembly memory, which PGlite never gives back.
 */
export const PREPARED_STATEMENTS_MAX = 200

type QueryOptions = NonNullable<Parameters<PGlite['query']>[2]>
type Results = Awaited<ReturnType<PGlite['query']>>
type Prepared = { name: string; types: number[] }
/** What PGlite's own query() calls and its type declarations leave out. */
type Internals = { _checkReady(): Promise<void> }

const { serialize } = protocol

/**
 * PGlite's query() sends six protocol messages one at a time into WebAssembly for every statement
 * (parse, describe, bind, describe, execute, sync), and PostgreSQL parses, analyses and plans the
 * text again each time: two thirds of a primary-key select's cost (bench/pglite-queries.bench.ts;
 * docs/performance.md "Prepared statements on PGlite"). Here a text is prepared once as a named
 * statement, and each call after sends bind, describe, execute and sync in one message, so
 * PostgreSQL's plan cache serves it. What a call answers is what PGlite's query() answers (the
 * same parser of its rows); its errors are the same DatabaseError.
 *
 * PostgreSQL's answer is read by pg-protocol's parser (node-postgres's), not PGlite's own: PGlite's
 * copies every field of every row into a new ArrayBuffer before decoding it and reaches its state
 * through private fields, which made reading 25 rows cost three times their execution
 * (docs/performance.md "PostgreSQL's answer read by pg-protocol"). The messages are the same
 * shapes, so PGlite's parseResults turns them into rows as before.
 *
 * PostgreSQL keeps a prepared statement right when the schema changes under it (it analyses the
 * text again; row-level security and the role are part of what it checks), except when the
 * columns it returns change: then it is prepared again. Calls with a blob (COPY), fixed parameter
 * types or a notice listener go to PGlite's own query() as before.
 *
 * Install before any other wrapper of `query` and `transaction` (server/db/client.ts).
 */
export function prepareStatements(client: PGlite, max = PREPARED_STATEMENTS_MAX): void {
  const original = client.query.bind(client)
  const transaction = client.transaction.bind(client)
  const prepared = new Map<string, Prepared>()
  let named = 0
  let listening = false
  const listen = client.listen.bind(client)
  client.listen = ((...args: Parameters<PGlite['listen']>) => {
    listening = true
    return listen(...args)
  }) as PGlite['listen']

  /** Runs with the client's query lock held; `top` when no PGlite transaction is open. */
  async function run(text: string, params: unknown[], options: QueryOptions | undefined, top: boolean): Promise<Results> {
    let statement = prepared.get(text)
    try {
      if (statement) {
        // Most recently used last: the first of the map is the one to close.
        prepared.delete(text)
        prepared.set(text, statement)
      } else {
        statement = await prepare(text)
      }
      let messages
      try {
        messages = await execute(statement, params, options)
      } catch (error) {
        // 0A000 "cached plan must not change result type": a table's columns changed under it. In a
        // transaction the error has already failed it, as any error does; alone it runs again.
        if ((error as { code?: string }).code !== '0A000' || !top) throw error
        await forget(text)
        statement = await prepare(text)
        messages = await execute(statement, params, options)
      }
      const [results] = parse.parseResults(messages, client.parsers, options)
      if (top) await client.syncToFs()
      return results as Results
    } catch (error) {
      throw asPGliteError(error, text, params, options)
    }
  }

  async function prepare(text: string): Promise<Prepared> {
    const name = `pglite_prepared_${++named}`
    const answer = await exchange(client, joined([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]))
    const statement = { name, types: parse.parseDescribeStatementResults(answer) }
    prepared.set(text, statement)
    if (prepared.size > max) await forget(prepared.keys().next().value as string)
    return statement
  }

  function execute(statement: Prepared, params: unknown[], options: QueryOptions | undefined) {
    const values = params.map((value, index) => {
      if (value === null || value === undefined) return null
      const type = statement.types[index] ?? 0
      const serializer = options?.serializers?.[type] ?? client.serializers[type]
      return serializer ? serializer(value) : String(value)
    })
    return exchange(client, joined([serialize.bind({ statement: statement.name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()]))
  }

  /** Closes a prepared statement; a failure leaves it for the session's end (it is only memory). */
  async function forget(text: string): Promise<void> {
    const statement = prepared.get(text)
    if (!statement) return
    prepared.delete(text)
    await exchange(client, joined([serialize.close({ type: 'S', name: statement.name }), serialize.sync()]), { throwOnError: false })
  }

  const ownQuery = (options: QueryOptions | undefined, text: string) => Boolean(listening || options?.blob || options?.paramTypes || options?.onNotice || text.includes('/dev/blob'))

  client.query = (async (text: string, params: unknown[] = [], options?: QueryOptions) => {
    if (ownQuery(options, text)) return original(text, params, options)
    await (client as unknown as Internals)._checkReady()
    return client._runExclusiveTransaction(() => client._runExclusiveQuery(() => run(text, params, options, true)))
  }) as PGlite['query']

  client.transaction = (<T>(callback: (tx: Transaction) => Promise<T>) =>
    transaction((tx) => {
      const txQuery = tx.query.bind(tx)
      tx.query = (async (text: string, params: unknown[] = [], options?: QueryOptions) => {
        if (ownQuery(options, text)) return txQuery(text, params, options)
        if (tx.closed) throw new Error('Transaction is closed')
        return client._runExclusiveQuery(() => run(text, params, options, false))
      }) as Transaction['query']
      return callback(tx)
    })) as PGlite['transaction']
}

/**
 * Sends protocol messages and reads the answer with pg-protocol's parser, as PGlite's
 * execProtocolStream() does with its own: the messages up to the first error, which is thrown
 * (as PGlite's DatabaseError) unless `throwOnError` is false.
 */
async function exchange(client: PGlite, message: Uint8Array, { throwOnError = true } = {}): Promise<messages.BackendMessage[]> {
  const parser = new Parser()
  const answer: BackendMessage[] = []
  let failed: DatabaseError | undefined
  let unreadable: unknown
  const read = (chunk: Uint8Array) => {
    try {
      // A copy: the chunk is a view of WebAssembly memory, and the parser keeps a message cut in two.
      parser.parse(Buffer.from(chunk), (backend) => {
        if (failed) return
        if (backend.name === 'error' && throwOnError) failed = backend as DatabaseError
        answer.push(backend)
      })
    } catch (error) {
      unreadable ??= error
    }
  }
  await client.execProtocolRawStream(message, { syncToFs: false, onRawData: read })
  if (unreadable) throw unreadable
  if (failed) throw asPGliteDatabaseError(failed)
  return answer as unknown as messages.BackendMessage[]
}

/** pg-protocol's DatabaseError as PGlite's own class, with the same fields. */
function asPGliteDatabaseError(error: DatabaseError): messages.DatabaseError {
  const { message, length, name, stack: _stack, ...fields } = error
  return Object.assign(new messages.DatabaseError(message, length, name), fields)
}

function joined(parts: Uint8Array[]): Uint8Array {
  let length = 0
  for (const part of parts) length += part.length
  const message = new Uint8Array(length)
  let offset = 0
  for (const part of parts) {
    message.set(part, offset)
    offset += part.length
  }
  return message
}

/** As PGlite's query() does: a database error carries the query that failed. */
function asPGliteError(error: unknown, text: string, params: unknown[], options: QueryOptions | undefined): unknown {
  if (error instanceof Error && 'code' in error && 'severity' in error) {
    Object.assign(error, { query: text, params, queryOptions: options })
  }
  return error
}
