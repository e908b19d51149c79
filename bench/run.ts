// Runs every benchmark in bench/ in turn and prints their figures. Not part of `npm test`.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'

const only = process.argv[2]
const benches = readdirSync(new URL('.', import.meta.url))
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => !only || f.startsWith(only))
for (const file of benches) {
  console.log(`\n== ${file}`)
  const result = spawnSync('npx', ['tsx', `bench/${file}`], { stdio: 'inherit' })
  if (result.status !== 0) process.exitCode = 1
}
