import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { getZodConstraint } from '@conform-to/zod/v4'
import { reactRouter } from '@react-router/dev/vite'
import tailwindcss from '@tailwindcss/vite'
import { tsImport } from 'tsx/esm/api'
import { defineConfig, type Plugin } from 'vite'

/**
 * Client chunks (docs/performance.md "First paint"): on a slow link every script request costs a
 * round trip, so the browser gets a handful of larger files instead of ~20 small ones: the
 * framework (React, React DOM, React Router), the app's shared code, what the reporting screens
 * share, and the route's own module.
 */
const clientCodeSplitting = {
  groups: [
    {
      name: 'framework',
      test: /[\\/]node_modules[\\/](react|react-dom|react-router|scheduler|cookie|set-cookie-parser)[\\/]/,
      priority: 3,
    },
    {
      // The form library (conform) and its client adapter: only screens that hydrate a form at first
      // load take it (sign-in, settings, Administration); the document, item and doc-control
      // screens hydrate their forms after first load (app/components/ui/deferred.tsx).
      name: 'forms',
      test: /[\\/](node_modules[\\/]@conform-to[\\/]|app[\\/]lib[\\/]schemas[\\/]client[\\/])/,
      minShareCount: 2,
      priority: 2,
    },
    {
      // The component kit, page furniture and API client: nearly every screen, and the root route
      // (which would otherwise be pulled into the reporting chunk through `useLocale`), and the
      // forms' answer helpers (`report-action`, `report-paging`: 90 modules of every area). Not an
      // area's own rules and form constraints (Administration's labels, the licence words, the
      // document rule book, doc-control's and the forms' schemas, the exports' and items' labels),
      // nor the few kit parts that only a handful of screens show at first load (the sign-in card,
      // QR code, text area, check box, revision input, code text): they go with the screens that
      // use them, so a screen does not download another area's code.
      name: 'app',
      test: /[\\/](app[\\/]root\.tsx$|app[\\/]components[\\/](shell|errors)[\\/]|app[\\/]components[\\/]ui[\\/](?!qr-code|textarea-field|checkbox-field|revision-input|code-text)|app[\\/]lib[\\/](?!admin[\\/]|licensing[\\/]|schemas[\\/]|documents[\\/]|doc-control[\\/]|exports[\\/]|reporting[\\/]labels)|app[\\/]islands[\\/]upload[\\/]upload-field-text|app[\\/]components[\\/]reporting[\\/]report-(action|paging)\.ts$)/,
      minShareCount: 2,
      priority: 1.5,
    },
    {
      // What the reporting screens (projects, reports, items) share.
      name: 'reporting',
      test: /[\\/]app[\\/]components[\\/]reporting[\\/]/,
      minShareCount: 2,
      priority: 1,
    },
  ],
}

/**
 * The build's release id, sent with every frontend error (issue 15): the package version and the
 * commit (`0.1.0+a36e53f`), or the build time when there is no git.
 */
function releaseId(): string {
  const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string }
  try {
    return `${version}+${execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()}`
  } catch {
    return `${version}+${new Date().toISOString().replace(/[-:]|\.\d+Z$/g, '')}`
  }
}

export default defineConfig(({ command, isSsrBuild }) => {
  // The production browser bundle carries no zod: see clientSchemas() below. The dev
  // server keeps the real schemas (and live client-side validation).
  const clientBuild = command === 'build' && !isSsrBuild
  return {
  resolve: {
    alias: {
      '~': fileURLToPath(new URL('./app', import.meta.url)),
      ...(clientBuild && { '@conform-to/zod/v4': fileURLToPath(new URL('./app/lib/schemas/client/conform-zod.ts', import.meta.url)) }),
    },
  },
  plugins: [tailwindcss(), reactRouter(), clientBuild && clientSchemas()],
  define: { __APP_RELEASE__: JSON.stringify(command === 'build' ? releaseId() : 'dev') },
  optimizeDeps: {
    include: ['react', 'react-dom', 'react-dom/client', 'react-router', '@conform-to/react', '@conform-to/zod/v4', 'zod'],
  },
  build: {
    assetsInlineLimit: 0,
    // Maps for the admin's mapped stacks, without a sourceMappingURL; scripts/build-server.mjs moves them out of build/client.
    ...(clientBuild && { sourcemap: 'hidden' as const }),
    ...(clientBuild && { rolldownOptions: { output: { codeSplitting: clientCodeSplitting } } }),
  },
  }
})

/**
 * Client build only: each form schema module (`app/lib/schemas/*.ts`) becomes the HTML constraints
 * of its schemas (what `getZodConstraint` gives the server render), so no page ships zod (~25 KiB
 * gzip). Constants are copied; functions become stubs that throw, since only actions (stripped
 * from the client by React Router) call them. `@conform-to/zod/v4` is aliased to
 * app/lib/schemas/client/conform-zod.ts above.
 */
const SCHEMA_MODULE = /[\\/]app[\\/]lib[\\/]schemas[\\/][^\\/]+\.ts$/

export function clientSchemas(): Plugin {
  return {
    name: 'site-portal:client-schemas',
    enforce: 'pre',
    async load(id) {
      if (!SCHEMA_MODULE.test(id)) return null
      const mod = (await tsImport(pathToFileURL(id).href, import.meta.url)) as Record<string, unknown>
      const lines = Object.entries(mod)
        .filter(([name]) => name !== 'default' && name !== 'module.exports')
        .map(([name, value]) => exportLine(name, value))
      return `${lines.join('\n')}\n`
    },
  }
}

function exportLine(name: string, value: unknown): string {
  if (isZodSchema(value)) {
    let constraint: unknown = {}
    try {
      constraint = getZodConstraint(value as Parameters<typeof getZodConstraint>[0])
    } catch {
      // Not an object schema (an enum, a string): it constrains no form field by name.
    }
    return `export const ${name} = ${JSON.stringify({ '~constraint': constraint })}`
  }
  if (typeof value === 'function') {
    return `export function ${name}() { throw new Error(${JSON.stringify(`${name} runs on the server only`)}) }`
  }
  return `export const ${name} = ${JSON.stringify(value)}`
}

function isZodSchema(value: unknown): boolean {
  return typeof value === 'object' && value !== null && '_zod' in value
}

