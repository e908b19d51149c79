import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { transformSync } from 'esbuild'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { mapStack, sourceMapStore, sourcePath } from '#server/domain/observability/source-maps'

/** Issue 15: a frontend error's stack mapped back to the source with a real (small) map, made by esbuild like the build's. */

const SOURCE = ['export function saveReport(items: string[]) {', '  const count = items.length', "  if (count > 2) throwTooMany(count)", '  return count', '}', '', 'function throwTooMany(n: number): never {', "  throw new Error('too many: ' + n)", '}', ''].join('\n')

let dir: string
let code: string

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sp-maps-'))
  const out = transformSync(SOURCE, { loader: 'ts', format: 'esm', minify: true, sourcemap: 'external', sourcefile: '../../app/lib/report-save.ts' })
  code = out.code
  await mkdir(path.join(dir, 'assets'))
  await writeFile(path.join(dir, 'assets', 'report-save-Ab12Cd.js.map'), out.map)
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** Where `needle` starts in the minified output, as a browser reports it (1-based line and column). */
function at(needle: string): { line: number; column: number } {
  const lines = code.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const column = lines[i]?.indexOf(needle) ?? -1
    if (column >= 0) return { line: i + 1, column: column + 1 }
  }
  throw new Error(`${needle} not in ${code}`)
}

test('frames of a built script are mapped to source file, line, column and function; others stay as they came', async () => {
  const thrown = at('throw new Error')
  const stack = [
    'Error: too many: 3',
    `    at r (https://portal.example.com/assets/report-save-Ab12Cd.js:${thrown.line}:${thrown.column})`,
    `    at async https://portal.example.com/assets/other-release-Zz99.js:1:200`,
    '    at HTMLButtonElement.onclick (https://cdn.example.net/lib.js:3:4)',
  ].join('\n')
  const frames = await mapStack(stack, sourceMapStore(dir))
  expect(frames).toHaveLength(3)
  expect(frames[0]).toEqual({
    text: `at r (https://portal.example.com/assets/report-save-Ab12Cd.js:${thrown.line}:${thrown.column})`,
    // The minified `r` read back as the function the line sits in.
    functionName: 'throwTooMany',
    file: 'app/lib/report-save.ts',
    line: 8,
    column: 3,
    mapped: true,
  })
  // No map of that file (another release): as it came.
  expect(frames[1]).toMatchObject({ file: 'https://portal.example.com/assets/other-release-Zz99.js', line: 1, column: 200, mapped: false, functionName: null })
  expect(frames[2]).toMatchObject({ functionName: 'HTMLButtonElement.onclick', file: 'https://cdn.example.net/lib.js', mapped: false })
})

test('Firefox and Safari frames (fn@url:line:col) are mapped too; a path outside /assets never reads a file', async () => {
  const call = at('r(o)')
  const frames = await mapStack(
    [`saveReport@http://127.0.0.1:3000/assets/report-save-Ab12Cd.js:${call.line}:${call.column}`, '@http://127.0.0.1:3000/assets/../../../etc/passwd.js:1:1'].join('\n'),
    sourceMapStore(dir),
  )
  expect(frames[0]).toMatchObject({ file: 'app/lib/report-save.ts', line: 3, functionName: 'saveReport', mapped: true })
  expect(frames[1]).toMatchObject({ mapped: false })
})

test('no stack, no frames; a map’s relative source reads as a project path', async () => {
  expect(await mapStack(null, sourceMapStore(dir))).toEqual([])
  expect(await mapStack('Error: only a message', sourceMapStore(dir))).toEqual([])
  expect(sourcePath('../../app/routes/items.tsx')).toBe('app/routes/items.tsx')
  expect(sourcePath('webpack:///./app/x.ts')).toBe('app/x.ts')
  expect(sourcePath('/node_modules/react/index.js')).toBe('node_modules/react/index.js')
})
