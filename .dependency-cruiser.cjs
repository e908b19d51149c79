/**
 * The import graph's rules (docs/architecture.md "Layers and the import graph"), checked by
 * `npm run lint:deps` as part of `npm run lint`; the rule between the feature folders of
 * server/domain is in .dependency-cruiser-features.cjs (it reads those folders alone). Type-only imports count too: a type circle is
 * still a circle for whoever reads or moves the code, and none is needed.
 *
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import circle, at run time or in types: what two modules share moves into a third below both.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'server-reaches-app-only-for-the-contract',
      severity: 'error',
      comment: 'The server takes only the shared contract from the app: app/lib (schemas, types, constants, pure rules), never screens.',
      from: { path: '^server/' },
      to: { path: '^app/', pathNot: '^app/lib/' },
    },
    {
      name: 'server-not-the-browser-client',
      severity: 'error',
      comment: 'app/lib/api is the screens’ API client and *.server.ts modules serve page requests: the server never imports them.',
      from: { path: '^server/' },
      to: { path: ['^app/lib/api/', '^app/lib/api\\.server\\.ts$', '\\.server\\.tsx?$', '^app/.*\\.tsx$'] },
    },
    {
      name: 'contract-stays-plain',
      severity: 'error',
      comment: 'What the server takes from app/lib stays plain TypeScript and zod: it never brings React, the router or the screens along.',
      from: { path: '^server/(api|domain|db|http|jobs|mail|realtime|storage)/' },
      to: { path: ['^node_modules/(react|react-dom|react-router)/', '^app/(components|routes|islands|sw)/'], reachable: true },
    },
    {
      name: 'app-not-server',
      severity: 'error',
      comment: 'The web app reaches the backend only through ~/lib/api (the same rule as ESLint’s no-restricted-imports).',
      from: { path: '^app/' },
      to: { path: '^server/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(build|node_modules|\\.react-router|data)/|^server/db/migrations/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.d.ts'],
    },
  },
}
