// `npm test` (= `npm run validate`): every check the project has, in the order that finds a fault
// soonest, with the single-threaded ones side by side. On CI's two cores the type checker, the
// linters and the production build each keep about one core busy, so they run together (the build
// is what the browser tests need); the test suites that follow spread over both
// cores themselves. Prints one timing line per step, and for each stage how many cores it kept busy
// on average (a stage well under two leaves room); the first failing stage stops the rest.
//
//   node scripts/validate.mjs            everything
//   node scripts/validate.mjs --from api start at a stage (after a fix), e.g. api, fuzz, e2e
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'

/** @typedef {{ name: string, command: string }} Step */

/** @type {Array<Step | Step[]>} */
const stages = [
  // Four steps share the two cores (the type checker uses both for part of its run; the others one
  // each): the linters run as two steps, so the longest of the four is no longer eslint followed by
  // dependency-cruiser and the contract's lint. The unit tests do not join them: some of them time
  // PGlite's turns with the event loop, and beside four busy processes they ran out of time.
  [
    { name: 'typecheck', command: 'npm run typecheck' },
    { name: 'lint', command: 'npx eslint .' },
    { name: 'lint (imports, contract)', command: 'npm run lint:deps && npm run lint:openapi' },
    // Debian's Chromium and poppler-utils (pdftotext: the unit, API and browser suites read PDFs with it)
    // are installed here when missing, before any suite needs them.
    { name: 'build', command: 'node scripts/ensure-chromium.mjs && node scripts/ensure-poppler.mjs && npm run build' },
  ],
  // One run over both cores: as two runs of one worker each they took 59 s, together 32 s.
  { name: 'unit and realtime', command: 'npx vitest run --project unit --project realtime' },
  { name: 'api', command: 'npm run test:api' },
  // Every operation of the contract, 50 generated requests each (`npm run test:fuzz:long`: 1,000):
  // sized for CI's two cores (issue 30; at 100 each the stage took 129 s in a clean clone, at 50 81-84 s).
  { name: 'fuzz', command: 'npm run test:fuzz' },
  { name: 'e2e', command: 'npx vitest run --project e2e' },
]

/**
 * The machine's busy and total CPU time so far (Linux /proc/stat, in clock ticks), so a stage can
 * say how many cores it kept busy on average: a stage well under the core count has room beside it.
 * Undefined where there is no /proc/stat.
 */
function cpuTicks() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number)
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0)
    const total = fields.reduce((sum, value) => sum + value, 0)
    return { busy: total - idle, total }
  } catch {
    return undefined
  }
}

/** "1.7 of 2 cores busy" between two cpuTicks() readings. */
function coresBusy(before, after) {
  if (!before || !after || after.total === before.total) return ''
  const cores = availableParallelism()
  return `, ${((cores * (after.busy - before.busy)) / (after.total - before.total)).toFixed(1)} of ${cores} cores busy`
}

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
  const stageStarted = performance.now()
  const ticksBefore = cpuTicks()
  const results = await Promise.all(
    steps.map(async (step) => {
      const result = await run(step)
      // One failure stops its neighbours at once: their output would only bury the cause.
      if (!result.ok) stopAll()
      return result
    }),
  )
  lines.push(...results.map((result) => result.line))
  if (steps.length > 1) lines.push(`  (side by side: ${((performance.now() - stageStarted) / 1000).toFixed(1)} s${coresBusy(ticksBefore, cpuTicks())})`)
  else lines[lines.length - 1] += coresBusy(ticksBefore, cpuTicks())
  if (results.some((result) => !result.ok)) {
    failed = true
    break
  }
}
console.log(`::: validate ${failed ? 'FAILED' : 'passed'} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
for (const line of lines) console.log(`  ${line}`)
process.exit(failed ? 1 : 0)
