/**
 * Fails when app/lib/api/contract.d.ts (the types the app's API client is checked against) is not
 * what the current contract generates: run `npm run contract:types` and commit the result.
 * Run by `npm run lint:openapi` after it has written build/contract.d.ts.
 */
import { readFile } from 'node:fs/promises'

const [generated, committed] = await Promise.all([readFile('build/contract.d.ts', 'utf8'), readFile('app/lib/api/contract.d.ts', 'utf8')])
if (generated !== committed) {
  console.error('app/lib/api/contract.d.ts is out of date with the operation specs: run `npm run contract:types` and commit it.')
  process.exit(1)
}
console.info('contract types: app/lib/api/contract.d.ts matches the contract')
