// Bundles the Node server (server/index.ts) to build/node/index.js. Node 20 cannot run .ts files.
// Packages stay external: they are installed beside it.
import { build } from 'esbuild'

await build({
  entryPoints: ['server/index.ts'],
  outfile: 'build/node/index.js',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  packages: 'external',
  sourcemap: true,
  tsconfig: 'tsconfig.json',
  logLevel: 'warning',
})
