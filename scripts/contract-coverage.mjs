#!/usr/bin/env node
/**
 * How much of the contract declares its answers: per tag, the operations whose 2xx answers carry a
 * body (every 2xx but 204), and how many of them declare its content (a schema, or a media type);
 * then the path parameters that are a bare string. Reads the document `npm run openapi` writes.
 *   node scripts/contract-coverage.mjs [build/openapi.json] [--list]
 */
import { readFile } from 'node:fs/promises'

const args = process.argv.slice(2)
const file = args.find((arg) => !arg.startsWith('--')) ?? 'build/openapi.json'
const list = args.includes('--list')
const document = JSON.parse(await readFile(file, 'utf8'))

const perTag = new Map()
const missing = []
let bareParameters = 0
let parameters = 0
for (const [path, methods] of Object.entries(document.paths)) {
  for (const [method, op] of Object.entries(methods)) {
    const tag = op.tags?.[0] ?? '(none)'
    const row = perTag.get(tag) ?? { operations: 0, withBody: 0, declared: 0 }
    perTag.set(tag, row)
    row.operations++
    for (const parameter of op.parameters ?? []) {
      if (parameter.in !== 'path') continue
      parameters++
      const schema = parameter.schema ?? {}
      if (schema.type === 'string' && !schema.format && !schema.enum && !schema.pattern) bareParameters++
    }
    const answers = Object.entries(op.responses).filter(([status]) => /^2\d\d$/.test(status) && status !== '204')
    if (answers.length === 0) continue
    row.withBody++
    if (answers.every(([, answer]) => answer.content && Object.keys(answer.content).length > 0)) row.declared++
    else missing.push(`${method.toUpperCase()} ${path} (${tag})`)
  }
}

const rows = [...perTag].sort(([a], [b]) => a.localeCompare(b))
const width = Math.max(...rows.map(([tag]) => tag.length))
let withBody = 0
let declared = 0
for (const [tag, row] of rows) {
  withBody += row.withBody
  declared += row.declared
  console.info(`${tag.padEnd(width)}  ${String(row.declared).padStart(3)} of ${String(row.withBody).padStart(3)} answers declared (${row.operations} operations)`)
}
console.info(`${'total'.padEnd(width)}  ${String(declared).padStart(3)} of ${String(withBody).padStart(3)} answers declared; ${bareParameters} of ${parameters} path parameters are a bare string`)
console.info(`components: ${Object.keys(document.components?.schemas ?? {}).length} named schemas`)
if (list) for (const line of missing) console.info(`  no 2xx content: ${line}`)
