// Makes sure Debian's Chromium is at /usr/bin/chromium for the browser tests (playwright-core
// drives it; we never download a browser build any other way), and Debian's headless build of the
// same Chromium at /usr/bin/chromium-headless-shell, which the browser tests prefer: it draws no
// browser window at all, so each journey costs the machine about half the browser's CPU time
// (docs/decisions/018-e2e-on-the-headless-shell.md). As root it installs the Debian packages; otherwise
// it stops with what to run (Chromium), or says the tests fall back to it (the headless shell).
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const CHROMIUM = '/usr/bin/chromium'
const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell'
const isRoot = process.getuid?.() === 0

/**
 * The installed package's version, as dpkg records it: starting the browser to ask it took 8 s in
 * a CI run, reading its files from a disk cache npm ci had just filled.
 */
function version(binary) {
  const result = spawnSync('dpkg-query', ['--search', binary], { encoding: 'utf8' })
  const name = result.status === 0 ? result.stdout.split(':')[0]?.trim() : undefined
  const installed = name ? spawnSync('dpkg-query', ['--show', '--showformat=${Version}', name], { encoding: 'utf8' }) : undefined
  return installed?.status === 0 && installed.stdout ? `Debian package ${name} ${installed.stdout.trim()}` : 'version unknown'
}

function run(command, args) {
  console.log(`ensure-chromium: ${command} ${args.join(' ')}`)
  const result = spawnSync(command, args, {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  })
  if (result.error) throw result.error
  return result.status ?? 1
}

const missing = [
  ...(existsSync(CHROMIUM) ? [] : ['chromium']),
  ...(existsSync(HEADLESS_SHELL) ? [] : ['chromium-headless-shell']),
]

if (missing.length === 0) {
  console.log(`ensure-chromium: ${CHROMIUM} (${version(CHROMIUM)}) and ${HEADLESS_SHELL} are present; nothing to do`)
} else if (isRoot) {
  console.log(`ensure-chromium: installing the Debian package(s) ${missing.map((p) => `"${p}"`).join(', ')}`)
  // A failure is fatal only without Chromium: the headless shell just makes the tests lighter.
  if (run('apt-get', ['update']) === 0) run('apt-get', ['install', '-y', ...missing])
  if (!existsSync(CHROMIUM)) {
    console.error(`ensure-chromium: apt-get did not install "chromium": ${CHROMIUM} is still missing`)
    process.exit(1)
  }
  console.log(`ensure-chromium: ${CHROMIUM} (${version(CHROMIUM)})${existsSync(HEADLESS_SHELL) ? ` and ${HEADLESS_SHELL}` : ''} installed`)
} else if (!existsSync(CHROMIUM)) {
  console.error(
    `ensure-chromium: ${CHROMIUM} is missing and this user is not root, so it cannot be installed here.\n` +
      '  Install Debian\'s Chromium once as root:  sudo apt-get update && sudo apt-get install -y chromium chromium-headless-shell\n' +
      '  (the browser tests use only that build; they never download one)',
  )
  process.exit(1)
} else {
  console.log(
    `ensure-chromium: ${CHROMIUM} is present (${version(CHROMIUM)}); ${HEADLESS_SHELL} is not, so the browser tests drive Chromium itself ` +
      '(slower; as root: apt-get install -y chromium-headless-shell)',
  )
}
