// Builds field mode's service worker (app/sw/service-worker.ts, decision 009) to build/client/sw.js,
// after the client build: its stylesheet for the offline pages (the same app.css the server inlines,
// built by Tailwind through Vite) as a hashed asset, and the list of hashed assets the worker keeps.
import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import tailwindcss from '@tailwindcss/vite'
import { build as esbuild } from 'esbuild'
import { build as viteBuild } from 'vite'

const CLIENT_DIR = 'build/client'

await viteBuild({
  configFile: false,
  logLevel: 'warn',
  plugins: [tailwindcss()],
  build: {
    outDir: CLIENT_DIR,
    emptyOutDir: false,
    copyPublicDir: false,
    cssMinify: true,
    rollupOptions: { input: { offline: 'app/app.css' }, output: { assetFileNames: 'assets/[name]-[hash][extname]' } },
  },
})

// Hashed files only (sizes and names change with every build); not the precompressed twins.
const assets = (await readdir(`${CLIENT_DIR}/assets`))
  .filter((name) => /\.(?:js|css)$/.test(name))
  .map((name) => `/assets/${name}`)
  .sort()
const buildId = createHash('sha256').update(assets.join('\n')).digest('hex').slice(0, 12)

await esbuild({
  entryPoints: ['app/sw/service-worker.ts'],
  outfile: `${CLIENT_DIR}/sw.js`,
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'chrome111',
  minify: true,
  tsconfig: 'tsconfig.json',
  define: { __SW_ASSETS__: JSON.stringify(assets), __SW_BUILD__: JSON.stringify(buildId) },
  logLevel: 'warning',
})
const size = (await readFile(`${CLIENT_DIR}/sw.js`)).length
console.log(`service worker: ${assets.length} assets to keep, ${(size / 1024).toFixed(1)} KiB, build ${buildId}`)
