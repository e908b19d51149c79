// Makes sure Debian's Chromium is at /usr/bin/chromium for the browser tests (playwright-core
// drives it; we never download a browser build any other way). As root it installs the Debian
// package; otherwise it stops with what to run.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const CHROMIUM = '/usr/bin/chromium'

function version() {
  const result = spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8' })
  return result.status === 0 ? result.stdout.trim() : 'version unknown'
}

function run(command, args) {
  console.log(`ensure-chromium: ${command} ${args.join(' ')}`)
  const result = spawnSync(command, args, {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  })
  if (result.error) throw result.error
  if (result.status !== 0) {
    console.error(`ensure-chromium: \`${command} ${args.join(' ')}\` failed with exit code ${result.status}`)
    process.exit(1)
  }
}

if (existsSync(CHROMIUM)) {
  console.log(`ensure-chromium: ${CHROMIUM} is present (${version()}); nothing to do`)
} else if (process.getuid?.() === 0) {
  console.log(`ensure-chromium: ${CHROMIUM} is missing; installing the Debian package "chromium"`)
  run('apt-get', ['update'])
  run('apt-get', ['install', '-y', 'chromium'])
  if (!existsSync(CHROMIUM)) {
    console.error(`ensure-chromium: apt-get installed "chromium" but ${CHROMIUM} is still missing`)
    process.exit(1)
  }
  console.log(`ensure-chromium: installed ${CHROMIUM} (${version()})`)
} else {
  console.error(
    `ensure-chromium: ${CHROMIUM} is missing and this user is not root, so it cannot be installed here.\n` +
      '  Install Debian\'s Chromium once as root:  sudo apt-get update && sudo apt-get install -y chromium\n' +
      '  (the browser tests use only that build; they never download one)',
  )
  process.exit(1)
}
