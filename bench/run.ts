// Runs every benchmark in bench/ in turn and prints their figures. Not part of `npm test`.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'

// `npm run bench -- hub --connections 200`: the name picks the bench, the flags after it go to it.
const only = process.argv[2]
// Run only when named: minutes long, and its figures want a quiet machine (`npm run bench -- load`).
const ON_DEMAND = ['load.ts']
const benches = [...readdirSync(new URL('.', import.meta.url)).filter((f) => f.endsWith('.bench.ts')), ...(only ? ON_DEMAND : [])]
  .filter((f) => !only || f.startsWith(only))
for (const file of benches) {
  console.log(`\n== ${file}`)
  const result = spawnSync('npx', ['tsx', `bench/${file}`, ...process.argv.slice(3)], { stdio: 'inherit' })
  if (result.status !== 0) process.exitCode = 1
}
