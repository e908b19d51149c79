import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/**
 * globalSetup of the e2e project: fail fast, with what to do, when the browser or the build is
 * missing. No server starts here; each test file starts its own portal (harness.ts startPortal).
 */
export default function setup(): void {
  const chromium = '/usr/bin/chromium'
  if (!existsSync(chromium)) {
    throw new Error(
      `${chromium} is missing. The browser tests drive Debian's Chromium only: run ` +
        '`node scripts/ensure-chromium.mjs` (as root it installs the "chromium" package).',
    )
  }
  const entry = fileURLToPath(new URL('../../build/node/index.js', import.meta.url))
  if (!existsSync(entry)) {
    throw new Error(`${entry} is missing: run the browser tests with \`npm run test:e2e\`, which builds first.`)
  }
}
