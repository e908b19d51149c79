import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TestProject } from 'vitest/node'
import { CHROMIUM_PATH, startPortal } from './harness'

/**
 * globalSetup of the e2e project: fail fast, with what to do, when the browser or the build is
 * missing; then start the built portal once on an empty data folder (its real first start:
 * initdb, migrations, demo seed, ~10 s) and keep the stopped folder as this run's template. Each
 * test file starts its own portal on a copy of it (harness.ts startPortal), so forty files do not
 * pay forty first starts; tests/e2e/first-start.test.ts still checks the first start itself.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `${CHROMIUM_PATH} is missing. The browser tests drive Debian's Chromium only: run ` +
        '`node scripts/ensure-chromium.mjs` (as root it installs the Debian packages "chromium" and "chromium-headless-shell").',
    )
  }
  const entry = fileURLToPath(new URL('../../build/node/index.js', import.meta.url))
  if (!existsSync(entry)) {
    throw new Error(`${entry} is missing: run the browser tests with \`npm run test:e2e\`, which builds first.`)
  }
  console.info(`[e2e] browser: ${CHROMIUM_PATH}`)
  const first = await startPortal({ fresh: true, keepData: true })
  await first.stop()
  // Mail the first start wrote belongs to no test.
  await rm(path.join(first.dataDir, 'mail'), { recursive: true, force: true })
  project.provide('e2eDataTemplate', first.dataDir)
  // Where checkAccessibility marks the screen states it checked, so each is checked once per run.
  const axeDir = await mkdtemp(path.join(os.tmpdir(), 'sp-e2e-axe-'))
  project.provide('e2eAxeDir', axeDir)
  // The files' portals keep their data folders here, with a pid file each (harness.ts), so the
  // teardown stops a portal no file stopped (the spare started for a next file that never came).
  const portalsDir = await mkdtemp(path.join(os.tmpdir(), 'sp-e2e-portals-'))
  project.provide('e2ePortalsDir', portalsDir)
  return async () => {
    await stopLeftPortals(portalsDir)
    await rm(first.dataDir, { recursive: true, force: true })
    await rm(axeDir, { recursive: true, force: true })
    await rm(portalsDir, { recursive: true, force: true })
  }
}

async function stopLeftPortals(dir: string): Promise<void> {
  const pids = await Promise.all(
    (await readdir(dir)).filter((name) => name.endsWith('.pid')).map(async (name) => Number(await readFile(path.join(dir, name), 'utf8'))),
  )
  for (const pid of pids) signal(pid, 'SIGTERM')
  const deadline = Date.now() + 15_000
  while (pids.some(alive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
  for (const pid of pids.filter(alive)) signal(pid, 'SIGKILL')
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name)
  } catch {
    // gone already
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
