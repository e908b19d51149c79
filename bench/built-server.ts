// The built server (build/node/index.js, or BENCH_SERVER) as a child process on a free port, for
// the benches that measure it over HTTP: its start, stop, log and memory (/proc/<pid>/status).
// BENCH_SERVER=<file> starts another build, BENCH_NODE_FLAGS=<flags> adds node flags (below).
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadConfig } from '#server/config'

export const SESSION_SECRET = 'bench-session-secret-0123456789abcdefghijkl'
const rootDir = fileURLToPath(new URL('..', import.meta.url))
export const serverFile = process.env.BENCH_SERVER ?? path.join(rootDir, 'build/node/index.js')

/**
 * The node flags the server runs with in production: package.json's start and serve and the
 * Dockerfile's CMD carry the same (tests/unit/server-node-flags.test.ts keeps them so), and the
 * benches start the server with them, so they measure what runs. A semi-space of up to 64 MB, not
 * V8's 16: a request's garbage dies young, and with the larger nursery fewer of them live long enough
 * to be copied or promoted (docs/performance.md, "A larger young generation").
 */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=64']

/**
 * What the benches start the server's node with: the production flags, then BENCH_NODE_FLAGS
 * (space-separated) to compare a setting, which wins over them, e.g.
 * `BENCH_NODE_FLAGS=--max-semi-space-size=16` for V8's default.
 */
export const BENCH_NODE_FLAGS = [...SERVER_NODE_FLAGS, ...(process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean)]

export type Running = { base: string; child: ChildProcess; log: () => string; stop: () => Promise<void> }
/** VmRSS now and VmHWM (the process's peak resident set), in bytes. */
export type Memory = { rss: number; hwm: number }

/** The server's configuration as the bench started it: cookie names and the CSRF token depend on it. */
export function configFor(env: Record<string, string>) {
  return loadConfig({ ...serverEnv(env, 0), LOG_LEVEL: 'silent' })
}

function serverEnv(env: Record<string, string>, port: number): Record<string, string> {
  return { NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, SESSION_SECRET, LOG_LEVEL: 'info', ...env }
}

export async function start(env: Record<string, string>): Promise<Running> {
  const port = 3900 + Math.floor(Math.random() * 90)
  const base = `http://127.0.0.1:${port}`
  const child = spawn(process.execPath, [...BENCH_NODE_FLAGS, serverFile], { env: { PATH: process.env.PATH, ...serverEnv(env, port) }, stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()))
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const stop = async () => {
    child.kill('SIGTERM')
    const timeout = setTimeout(() => child.kill('SIGKILL'), 20_000)
    await exited
    clearTimeout(timeout)
  }
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) break
    try {
      if ((await fetch(`${base}/api/health`)).ok) return { base, child, log: () => log, stop }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  await stop()
  throw new Error(`the server did not start:\n${log.slice(-4000)}`)
}

export function memory(running: Running): Memory {
  const status = readFileSync(`/proc/${running.child.pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') }
}

/** Samples the server's VmRSS every `everyMs` until stopped; answers the lowest, the median and the highest seen. */
export function sampleRss(server: Running, everyMs = 50): { stop: () => { min: number; median: number; peak: number } } {
  const samples: number[] = []
  const read = () => {
    try {
      samples.push(memory(server).rss)
    } catch {
      // the server is gone: the run fails elsewhere
    }
  }
  read()
  const timer = setInterval(read, everyMs)
  return {
    stop: () => {
      clearInterval(timer)
      read()
      const sorted = [...samples].sort((a, b) => a - b)
      return { min: sorted[0] ?? 0, median: sorted[Math.floor(sorted.length / 2)] ?? 0, peak: sorted.at(-1) ?? 0 }
    },
  }
}
