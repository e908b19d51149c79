#!/usr/bin/env node
// Checks the container image (Dockerfile, docs/operations.md "Container"). When a container builder
// answers (`docker info`), it builds the image, runs it until its HEALTHCHECK says healthy, stops it
// with SIGTERM and expects exit 0. Without one (CI, this machine: a docker CLI and no daemon), it
// performs the runtime stage's steps on the host, read from the Dockerfile itself so the two cannot
// drift: it copies what the stage copies into an empty folder outside the project (the build stage's
// product is the host's build/, from `npm run build`), installs the production dependencies there
// with the stage's own `npm ci` command and the lockfile, checks that every package the built server
// imports is among them, starts the stage's CMD on a fresh DATA_DIR, runs the HEALTHCHECK command
// until it passes, then sends SIGTERM and expects exit 0. The real risk it guards: a server import of
// a dev dependency, which works from the project folder and fails in the image.
//
//   node scripts/check-image.mjs            # docker when it answers, else the host
//   node scripts/check-image.mjs --host     # the host steps even when docker answers
//   node scripts/check-image.mjs --keep     # keep the temporary folder (host steps)
import { spawn, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { createServer } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const rootDir = fileURLToPath(new URL('..', import.meta.url))
const args = new Set(process.argv.slice(2))
const began = performance.now()
const seconds = (from = began) => ((performance.now() - from) / 1000).toFixed(1)
const log = (message) => console.log(`check-image: ${message}`)

class CheckFailed extends Error {}

/** The Dockerfile as stages of instructions: line continuations joined, comments dropped. */
function parseDockerfile(text) {
  const stages = []
  let pending = ''
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd()
    if (!pending && (line.trim() === '' || line.trim().startsWith('#'))) continue
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `
      continue
    }
    const whole = (pending + line).trim()
    pending = ''
    const [keyword = '', ...rest] = whole.split(/\s+/)
    const instruction = { keyword: keyword.toUpperCase(), args: whole.slice(keyword.length).trim() }
    if (instruction.keyword === 'FROM') stages.push({ from: rest, name: rest[2], instructions: [] })
    else stages.at(-1)?.instructions.push(instruction)
  }
  return stages
}

/** `HEALTHCHECK [--option=value …] CMD [...]` → { options, command } (exec form only). */
function parseHealthcheck(argsText) {
  const at = argsText.indexOf('CMD')
  const options = Object.fromEntries([...argsText.slice(0, at).matchAll(/--([a-z-]+)=(\S+)/g)].map((m) => [m[1], m[2]]))
  return { options, command: JSON.parse(argsText.slice(at + 3).trim()) }
}

/** Docker durations as used here: 15s, 2m, 500ms. */
function durationMs(text, fallback) {
  const match = /^(\d+)(ms|s|m)$/.exec(text ?? '')
  if (!match) return fallback
  return Number(match[1]) * { ms: 1, s: 1000, m: 60_000 }[match[2]]
}

/** `ENV A=1 B=2` (the KEY=VALUE form). */
function parseEnv(argsText) {
  return Object.fromEntries([...argsText.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S+)/g)].map((m) => [m[1], m[2].replace(/^"|"$/g, '')]))
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function run(command, commandArgs, options = {}) {
  const result = spawnSync(command, commandArgs, { encoding: 'utf8', ...options })
  if (result.status !== 0) throw new CheckFailed(`\`${[command, ...commandArgs].join(' ')}\` failed (${result.status ?? result.signal}):\n${result.stdout ?? ''}${result.stderr ?? ''}`)
  return result.stdout
}

/** A bare specifier: a package (scoped or not), maybe with a subpath; not a relative path, node:, # or virtual:. */
const PACKAGE_NAME = /^(@[a-z0-9][\w.~-]*\/)?[a-z0-9][\w.~-]*(\/.*)?$/

/** Bare package names the built server imports (esbuild leaves packages external). */
function importedPackages(dir) {
  const names = new Set()
  const walk = (at) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const file = path.join(at, entry.name)
      if (entry.isDirectory()) walk(file)
      else if (/\.(m?js|cjs)$/.test(entry.name)) {
        const code = readFileSync(file, 'utf8')
        const patterns = [
          /^\s*(?:import|export)\s[^'";]*?\bfrom\s*["']([^"']+)["']/gm, // import … from "x", export … from "x"
          /^\s*import\s*["']([^"']+)["']/gm, // import "x"
          /(?:\bimport|\brequire|\brequire\.resolve|\bimport\.meta\.resolve|\bcreateRequire\([^()]*\)\.resolve)\(\s*["']([^"']+)["']\s*\)/g, // import("x"), require("x"), require.resolve("x")
        ]
        for (const pattern of patterns) for (const m of code.matchAll(pattern)) names.add(m[1])
      }
    }
  }
  walk(dir)
  const builtins = new Set(builtinModules)
  return [...names]
    .filter((name) => PACKAGE_NAME.test(name) && !builtins.has(name))
    .map((name) => (name.startsWith('@') ? name.split('/').slice(0, 2).join('/') : name.split('/')[0]))
    .filter((name, i, all) => all.indexOf(name) === i)
    .sort()
}

async function checkOnHost(stage) {
  if (!existsSync(path.join(rootDir, 'build/node/index.js')) || !existsSync(path.join(rootDir, 'build/server/index.js'))) {
    throw new CheckFailed('build/ is missing or incomplete: run `npm run build` first (it is what the image\'s build stage makes).')
  }
  const temp = mkdtempSync(path.join(os.tmpdir(), 'sp-image-'))
  const root = path.join(temp, 'root')
  log(`performing the runtime stage on the host in ${root}`)
  let env = {}
  let workdir = root
  let command
  let healthcheck
  let volume
  try {
    for (const { keyword, args: text } of stage.instructions) {
      switch (keyword) {
        case 'ENV':
          env = { ...env, ...parseEnv(text) }
          break
        case 'WORKDIR':
          workdir = path.join(root, text)
          mkdirSync(workdir, { recursive: true })
          break
        case 'COPY': {
          const parts = text.split(/\s+/)
          const from = parts.find((p) => p.startsWith('--from='))?.slice('--from='.length)
          const paths = parts.filter((p) => !p.startsWith('--'))
          const dest = paths.pop()
          // The build stage works in /app: its /app/build is the host's build/.
          const source = (p) => (from ? path.join(rootDir, path.relative('/app', p)) : path.join(rootDir, p))
          const target = path.isAbsolute(dest) ? path.join(root, dest) : path.join(workdir, dest)
          for (const p of paths) {
            const into = dest.endsWith('/') || paths.length > 1 ? path.join(target, path.basename(p)) : target
            cpSync(source(p), into, { recursive: true })
          }
          log(`COPY ${text}`)
          break
        }
        case 'RUN':
          for (const step of text.split('&&').map((s) => s.trim())) {
            if (/^npm ci\b/.test(step)) {
              const started = performance.now()
              run('npm', step.split(/\s+/).slice(1), { cwd: workdir, env: { ...process.env, NODE_ENV: env.NODE_ENV ?? 'production' } })
              log(`RUN ${step} (${seconds(started)} s)`)
            } else if (/^rm -rf \/root\/\.npm$|^mkdir -p \S+$|^chown \S+ \S+$/.test(step)) {
              log(`RUN ${step}: image housekeeping, nothing to do on the host`)
            } else {
              throw new CheckFailed(`the Dockerfile runs \`${step}\`, which this script does not know how to perform on the host: teach scripts/check-image.mjs.`)
            }
          }
          break
        case 'CMD':
          command = JSON.parse(text)
          break
        case 'HEALTHCHECK':
          healthcheck = parseHealthcheck(text)
          break
        case 'VOLUME':
          volume = text.replace(/^\[|\]$|"/g, '').trim()
          break
        case 'USER':
        case 'EXPOSE':
        case 'STOPSIGNAL':
          break
        default:
          throw new CheckFailed(`the runtime stage has ${keyword}, which this script does not know: teach scripts/check-image.mjs.`)
      }
    }
    if (!command || !healthcheck) throw new CheckFailed('the runtime stage needs a CMD and a HEALTHCHECK ... CMD [...] in exec form.')

    // Every package the built server imports must be installed: a dev dependency would not be.
    const installed = (name) => existsSync(path.join(workdir, 'node_modules', name, 'package.json'))
    const builtDirs = ['build/node', 'build/server'].map((d) => path.join(workdir, d)).filter((d) => existsSync(d) && statSync(d).isDirectory())
    const packages = builtDirs.flatMap(importedPackages).filter((name, i, all) => all.indexOf(name) === i)
    const missing = packages.filter((name) => !installed(name))
    if (missing.length > 0) {
      throw new CheckFailed(`the built server imports ${missing.join(', ')}, not among the production dependencies (npm ci --omit=dev): move it to "dependencies" in package.json, or stop importing it from server code.`)
    }
    log(`the built server imports ${packages.length} packages, all production dependencies`)

    // The container's environment, on a free port of this machine only, with a fresh data volume.
    const port = await freePort()
    const dataDir = path.join(root, (volume ?? '/data').replace(/^\//, ''))
    mkdirSync(dataDir, { recursive: true })
    const childEnv = { PATH: process.env.PATH, ...env, HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir }
    const exe = (argv) => (argv[0] === 'node' ? process.execPath : argv[0])
    const started = performance.now()
    const child = spawn(exe(command), command.slice(1), { cwd: workdir, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    const keep = (chunk) => {
      output = (output + chunk.toString()).slice(-20_000)
    }
    child.stdout.on('data', keep)
    child.stderr.on('data', keep)
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)))
    process.once('exit', () => child.kill('SIGKILL'))
    try {
      const limit = durationMs(healthcheck.options['start-period'], 0) + durationMs(healthcheck.options.interval, 30_000) * Number(healthcheck.options.retries ?? 3)
      for (;;) {
        if (child.exitCode !== null) throw new CheckFailed(`the server exited (${child.exitCode}) before it was healthy:\n${output}`)
        const probe = spawnSync(exe(healthcheck.command), healthcheck.command.slice(1), { env: childEnv, timeout: durationMs(healthcheck.options.timeout, 30_000) })
        if (probe.status === 0) break
        if (performance.now() - started > limit) throw new CheckFailed(`the HEALTHCHECK did not pass within ${limit / 1000} s:\n${output}`)
        await sleep(500)
      }
      log(`healthy after ${seconds(started)} s (the HEALTHCHECK command passed)`)
    } catch (error) {
      child.kill('SIGKILL')
      throw error
    }
    const stopping = performance.now()
    child.kill('SIGTERM')
    const code = await exited
    if (code !== 0) throw new CheckFailed(`SIGTERM: the server exited with ${code}, not 0:\n${output}`)
    log(`stopped by SIGTERM with exit 0 in ${seconds(stopping)} s`)
  } finally {
    if (args.has('--keep')) log(`kept ${temp}`)
    else rmSync(temp, { recursive: true, force: true })
  }
}

async function checkWithDocker(stage) {
  const tag = 'site-portal:check'
  const started = performance.now()
  run('docker', ['build', '--tag', tag, rootDir], { stdio: ['ignore', 'inherit', 'inherit'] })
  log(`docker build (${seconds(started)} s)`)
  const user = run('docker', ['image', 'inspect', '--format', '{{.Config.User}}', tag]).trim()
  if (!user || user === 'root' || user === '0') throw new CheckFailed(`the image runs as ${user || 'root'}: it must name an unprivileged USER.`)
  const healthcheck = parseHealthcheck(stage.instructions.find((i) => i.keyword === 'HEALTHCHECK')?.args ?? 'CMD []')
  const id = run('docker', ['run', '--detach', tag]).trim()
  try {
    const limit = durationMs(healthcheck.options['start-period'], 0) + durationMs(healthcheck.options.interval, 30_000) * Number(healthcheck.options.retries ?? 3)
    const running = performance.now()
    for (;;) {
      const [status, health] = run('docker', ['inspect', '--format', '{{.State.Status}} {{.State.Health.Status}}', id]).trim().split(' ')
      if (health === 'healthy') break
      if (status === 'exited' || health === 'unhealthy' || performance.now() - running > limit) {
        throw new CheckFailed(`the container is ${status}/${health}:\n${spawnSync('docker', ['logs', id], { encoding: 'utf8' }).stdout}`)
      }
      await sleep(1000)
    }
    log(`healthy after ${seconds(running)} s`)
    run('docker', ['stop', '--time', '30', id])
    const code = run('docker', ['inspect', '--format', '{{.State.ExitCode}}', id]).trim()
    if (code !== '0') throw new CheckFailed(`docker stop: the container exited with ${code}, not 0`)
    log('stopped by SIGTERM with exit 0')
  } finally {
    spawnSync('docker', ['rm', '--force', id])
  }
}

try {
  const stages = parseDockerfile(readFileSync(path.join(rootDir, 'Dockerfile'), 'utf8'))
  const runtime = stages.at(-1)
  if (!runtime) throw new CheckFailed('the Dockerfile has no stage.')
  const docker = !args.has('--host') && spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0
  if (docker) await checkWithDocker(runtime)
  else await checkOnHost(runtime)
  log(`passed in ${seconds()} s (${docker ? 'docker build and run' : 'host steps; no container builder answered'})`)
} catch (error) {
  console.error(`check-image: FAILED after ${seconds()} s: ${error instanceof CheckFailed ? error.message : error.stack}`)
  process.exit(1)
}
