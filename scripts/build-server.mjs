// Bundles the Node server (server/index.ts) to build/node/index.js, and the child process that
// initialises a new PGlite data folder (server/db/initialise-data-folder.ts) beside it. Node 20
// cannot run .ts files. Packages stay external: they are installed beside them.
import { mkdir, readdir, rename, rm } from 'node:fs/promises'
import path from 'node:path'
import { build } from 'esbuild'

await build({
  entryPoints: {
    index: 'server/index.ts',
    'initialise-data-folder': 'server/db/initialise-data-folder.ts',
  },
  outdir: 'build/node',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  packages: 'external',
  sourcemap: true,
  tsconfig: 'tsconfig.json',
  logLevel: 'warning',
})

// The client's source maps (vite build.sourcemap 'hidden': no sourceMappingURL in the scripts) leave
// build/client, which is served to anyone, for build/sourcemaps, which only the server reads: the
// admin's frontend-error pages map stacks back to the source with them (issue 15).
const CLIENT_ASSETS = 'build/client/assets'
const MAPS_DIR = 'build/sourcemaps/assets'
await rm('build/sourcemaps', { recursive: true, force: true })
await mkdir(MAPS_DIR, { recursive: true })
const maps = (await readdir(CLIENT_ASSETS)).filter((name) => name.endsWith('.map'))
await Promise.all(maps.map((name) => rename(path.join(CLIENT_ASSETS, name), path.join(MAPS_DIR, name))))
console.log(`source maps: ${maps.length} moved to build/sourcemaps (never served)`)
