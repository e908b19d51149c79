import { readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { originalPositionFor, sourceContentFor, TraceMap } from '@jridgewell/trace-mapping'

/**
 * Frontend error stacks mapped back to the source (issue 15). The client build writes hidden maps
 * (no sourceMappingURL) that scripts/build-server.mjs moves from build/client/assets to
 * build/sourcemaps/assets, where only the server reads them (never served). A frame pointing at
 * /assets/<file>.js is looked up in <dir>/assets/<file>.js.map; the file names carry a content
 * hash, so a frame of another release finds no map (or one of the same bytes) and is shown as it
 * came. Parsing and mapping are by @jridgewell/trace-mapping.
 */

/** One line of a stack as shown: the original position when a map knew it, else what the browser wrote. */
export type StackFrame = {
  /** The line as the browser wrote it (trimmed). */
  text: string
  functionName: string | null
  /** The source file when mapped (e.g. app/routes/items.tsx), else the script's URL. */
  file: string | null
  line: number | null
  column: number | null
  mapped: boolean
}

/** V8: `at fn (url:1:2)`, `at url:1:2`, `at async fn (url:1:2)`. */
const V8 = /^\s*at\s+(?:(.*?)\s+\()?(.+?):(\d+):(\d+)\)?\s*$/
/** SpiderMonkey and JavaScriptCore: `fn@url:1:2`, `@url:1:2`. */
const GECKO = /^\s*(.*?)@(.+?):(\d+):(\d+)\s*$/
/** A built script of ours: /assets/<name>.js, on any origin (the page's own). */
const ASSET = /^(?:[a-z][a-z0-9+.-]*:\/\/[^/]+)?\/assets\/([A-Za-z0-9._-]+\.js)(?:[?#].*)?$/

/** Maps kept in memory (parsed); a build has a few dozen. */
const CACHE_MAX = 64
const MAP_MAX_BYTES = 20 * 1024 * 1024

export type SourceMapStore = { mapFor(file: string): Promise<TraceMap | null> }

/** Reads maps from `dir` (SOURCE_MAPS_DIR, build/sourcemaps by default), parsed once, the least recently used dropped past 64. */
export function sourceMapStore(dir: string): SourceMapStore {
  const cache = new Map<string, Promise<TraceMap | null>>()
  async function load(file: string): Promise<TraceMap | null> {
    const mapPath = path.join(dir, 'assets', `${file}.map`)
    try {
      if ((await stat(mapPath)).size > MAP_MAX_BYTES) return null
      return new TraceMap(await readFile(mapPath, 'utf8'))
    } catch {
      // No such map (another release, a development build), or one that does not parse.
      return null
    }
  }
  return {
    mapFor(file) {
      let entry = cache.get(file)
      if (entry) cache.delete(file)
      else entry = load(file)
      cache.set(file, entry)
      if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value as string)
      return entry
    },
  }
}

type Parsed = { text: string; functionName: string | null; url: string; line: number; column: number }

function parseFrame(line: string): Parsed | null {
  const match = V8.exec(line) ?? (line.includes('@') ? GECKO.exec(line) : null)
  if (!match) return null
  const [, fn, location, ln, col] = match
  // `at async url:1:2` (an awaited frame without a name).
  const url = location?.replace(/^async\s+/, '')
  if (!url || !ln || !col) return null
  return { text: line.trim(), functionName: fn?.replace(/^async\s+/, '').trim() || null, url, line: Number(ln), column: Number(col) }
}

/** A map's source as a project path: `../../app/routes/x.tsx` → `app/routes/x.tsx`. */
export function sourcePath(source: string): string {
  return source.replace(/^(?:[a-z]+:\/\/\/?)?(?:\.\.?\/)+/i, '').replace(/^\/+/, '')
}

/** The stack's frames, each mapped when its script has a map; lines that are no frame (the message) are left out. */
export async function mapStack(stack: string | null, store: SourceMapStore): Promise<StackFrame[]> {
  if (!stack) return []
  const frames: StackFrame[] = []
  for (const line of stack.split(/\r?\n/)) {
    const parsed = parseFrame(line)
    if (!parsed) continue
    frames.push(await mapFrame(parsed, store))
  }
  return frames
}

async function mapFrame(frame: Parsed, store: SourceMapStore): Promise<StackFrame> {
  const unmapped: StackFrame = { text: frame.text, functionName: frame.functionName, file: frame.url, line: frame.line, column: frame.column, mapped: false }
  const file = ASSET.exec(frame.url)?.[1]
  if (!file) return unmapped
  const map = await store.mapFor(file)
  if (!map) return unmapped
  // Browsers count columns from 1, source maps from 0.
  const original = originalPositionFor(map, { line: frame.line, column: Math.max(0, frame.column - 1) })
  if (original.source === null || original.line === null) return unmapped
  return {
    text: frame.text,
    // The map's name at a position is the identifier there (a call's callee), not the function it sits in.
    functionName: enclosingFunction(sourceContentFor(map, original.source), original.line) ?? frame.functionName,
    file: sourcePath(original.source),
    line: original.line,
    column: original.column + 1,
    mapped: true,
  }
}

/** `function name(`, `name = (…) =>`, `name: function`, `name(…) {` (a method). */
const DECLARATION =
  /(?:\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(|\b([A-Za-z_$][\w$]*)\s*[:=]\s*(?:async\s*)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)|^\s*(?:(?:public|private|protected|static|async)\s+)*([A-Za-z_$][\w$]*)\s*\([^)]*\)\s*(?::[^{]+)?\{)/
const NOT_A_NAME = new Set(['if', 'for', 'while', 'switch', 'catch', 'return', 'function'])

/**
 * The name of the function a source line sits in, read from the map's copy of the source: the
 * nearest declaration at or above it. Minified frames name functions `t` or `r`; a map names only
 * identifiers at their own positions, so this is how the admin reads `saveReport` instead.
 */
export function enclosingFunction(content: string | null, line: number): string | null {
  if (!content) return null
  const lines = content.split(/\r?\n/)
  for (let i = Math.min(line, lines.length) - 1; i >= 0; i--) {
    const match = DECLARATION.exec(lines[i] ?? '')
    const name = match?.[1] ?? match?.[2] ?? match?.[3]
    if (name && !NOT_A_NAME.has(name)) return name
  }
  return null
}
