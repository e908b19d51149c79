// `npm test` (= `npm run validate`): every check the project has, in the order that finds a fault
// soonest, with the single-threaded ones side by side. On CI's two cores the type checker, the
// linter and the production build each keep about one core busy, so they run together (the build
// is what the browser tests need); the test suites that follow spread over both cores themselves.
// Prints one timing line per stage; the first failing stage stops the rest (its output says why).
//
//   node scripts/validate.mjs            everything
//   node scripts/validate.mjs --from api start at a stage (after a fix), e.g. api, fuzz, e2e
import { spawn } from 'node:child_process'

/** @typedef {{ name: string, command: string }} Step */

/** @type {Array<Step | Step[]>} */
const stages = [
  [
    { name: 'typecheck', command: 'npm run typecheck' },
    { name: 'lint', command: 'npm run lint && npm run lint:openapi' },
    { name: 'build', command: 'node scripts/ensure-chromium.mjs && npm run build' },
  ],
  { name: 'unit and realtime', command: 'npm run test:unit && npm run test:realtime' },
  { name: 'api', command: 'npm run test:api' },
  // Every operation of the contract, 100 generated requests each (`npm run test:fuzz:long`: 1,000).
  { name: 'fuzz', command: 'npm run test:fuzz' },
  { name: 'e2e', command: 'npx vitest run --project e2e' },
]

const children = new Set()
let stopping = false

function run(step) {
  const started = performance.now()
  console.log(`::: ${step.name}: ${step.command}`)
  return new Promise((resolve) => {
    const child = spawn(step.command, { shell: true, stdio: 'inherit', env: process.env, detached: true })
    children.add(child)
    child.on('exit', (code, signal) => {
      children.delete(child)
      const seconds = ((performance.now() - started) / 1000).toFixed(1)
      const outcome = code === 0 ? '' : stopping && signal ? ' (stopped: a stage beside it failed)' : ` (FAILED: ${signal ?? `exit ${code}`})`
      resolve({ name: step.name, ok: code === 0, line: `${step.name}: ${seconds} s${outcome}` })
    })
  })
}

function stopAll() {
  stopping = true
  for (const child of children) {
    try {
      process.kill(-child.pid, 'SIGTERM')
    } catch {
      // already gone
    }
  }
}

process.on('SIGINT', () => {
  stopAll()
  process.exit(130)
})
process.on('SIGTERM', () => {
  stopAll()
  process.exit(143)
})

const fromIndex = process.argv.indexOf('--from')
const from = fromIndex > 0 ? process.argv[fromIndex + 1] : undefined
const names = stages.flatMap((stage) => (Array.isArray(stage) ? stage : [stage]).map((step) => step.name))
if (from && !names.some((name) => name.startsWith(from))) {
  console.error(`validate: no stage named ${from} (${names.join(', ')})`)
  process.exit(2)
}

const lines = []
const started = performance.now()
let skipping = Boolean(from)
let failed = false
for (const stage of stages) {
  const steps = (Array.isArray(stage) ? stage : [stage]).filter((step) => {
    if (skipping && step.name.startsWith(from)) skipping = false
    return !skipping
  })
  if (steps.length === 0) continue
  const results = await Promise.all(
    steps.map(async (step) => {
      const result = await run(step)
      // One failure stops its neighbours at once: their output would only bury the cause.
      if (!result.ok) stopAll()
      return result
    }),
  )
  lines.push(...results.map((result) => result.line))
  if (results.some((result) => !result.ok)) {
    failed = true
    break
  }
}
console.log(`::: validate ${failed ? 'FAILED' : 'passed'} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
for (const line of lines) console.log(`  ${line}`)
process.exit(failed ? 1 : 0)
