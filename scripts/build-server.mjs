// Bundles the Node server (server/index.ts) to build/node/index.js, and the child process that
// initialises a new PGlite data folder (server/db/initialise-data-folder.ts) beside it. Node 20
// cannot run .ts files. Packages stay external: they are installed beside them.
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
