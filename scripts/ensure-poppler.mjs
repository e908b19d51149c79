// Makes sure Debian's poppler-utils (pdftotext, pdfinfo) are there for the tests that read the
// portal's PDFs with a real reader instead of our own code (docs/exports.md). As root it installs
// the Debian package, as scripts/ensure-chromium.mjs does for Chromium; otherwise it says what to run.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const TOOLS = ['/usr/bin/pdftotext', '/usr/bin/pdfinfo']
const isRoot = process.getuid?.() === 0

function run(command, args) {
  console.log(`ensure-poppler: ${command} ${args.join(' ')}`)
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
  if (result.error) throw result.error
  return result.status ?? 1
}

if (TOOLS.every((tool) => existsSync(tool))) {
  console.log('ensure-poppler: pdftotext and pdfinfo are present; nothing to do')
} else if (isRoot) {
  if (run('apt-get', ['install', '-y', 'poppler-utils']) !== 0 && run('apt-get', ['update']) === 0) run('apt-get', ['install', '-y', 'poppler-utils'])
  if (!TOOLS.every((tool) => existsSync(tool))) {
    console.error('ensure-poppler: apt-get did not install "poppler-utils": pdftotext or pdfinfo is still missing')
    process.exit(1)
  }
  console.log('ensure-poppler: poppler-utils installed')
} else {
  console.error('ensure-poppler: pdftotext is missing and this user is not root.\n  Install it once as root:  sudo apt-get update && sudo apt-get install -y poppler-utils')
  process.exit(1)
}
