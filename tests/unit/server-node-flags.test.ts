import { readFileSync } from 'node:fs'
import { expect, test } from 'vitest'
import { SERVER_NODE_FLAGS } from '../../bench/built-server'

/**
 * The server's node flags are written in three places an operator starts it from (package.json's
 * start and serve, the Dockerfile's CMD) and one the benches start it from (bench/built-server.ts):
 * the benches measure what runs only while all four say the same.
 */

const root = new URL('../../', import.meta.url)
const scripts = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: Record<string, string> }).scripts

/** The words between `node` and the server's file in a command line. */
function flagsBefore(command: string[]): string[] {
  const node = command.indexOf('node')
  const entry = command.indexOf('build/node/index.js')
  expect(node, `node in ${command.join(' ')}`).toBeGreaterThanOrEqual(0)
  expect(entry, `build/node/index.js in ${command.join(' ')}`).toBeGreaterThan(node)
  return command.slice(node + 1, entry)
}

test.each(['start', 'serve'])('npm run %s starts the server with the benches’ flags', (name) => {
  const command = scripts[name]?.split('&&').at(-1)?.trim().split(/\s+/) ?? []
  expect(flagsBefore(command)).toEqual(SERVER_NODE_FLAGS)
})

test('the image’s CMD starts the server with the benches’ flags', () => {
  const dockerfile = readFileSync(new URL('Dockerfile', root), 'utf8')
  const cmd = [...dockerfile.matchAll(/^CMD (\[.*\])$/gm)].at(-1)?.[1]
  expect(cmd, 'the last stage’s CMD in exec form').toBeDefined()
  expect(flagsBefore(JSON.parse(cmd ?? '[]') as string[])).toEqual(SERVER_NODE_FLAGS)
})
