/**
 * Feature folders under server/domain build on each other in one direction only: no two of them
 * import each other, directly or through others of them. What they share lives below them
 * (server/domain/tenancy, server/domain/uploads). Run on server/domain alone (`npm run lint:deps`),
 * so a circle counts only when it runs through feature folders, not through server/db or
 * server/http, which have their own layers.
 *
 * @type {import('dependency-cruiser').IConfiguration}
 */
const base = require('./.dependency-cruiser.cjs')

module.exports = {
  forbidden: [
    {
      name: 'no-feature-folder-circle',
      severity: 'error',
      comment: 'Two feature folders of server/domain import each other: move what both need into a folder below them.',
      scope: 'folder',
      from: { path: '^server/domain/[^/]+$' },
      to: { path: '^server/domain/[^/]+$', circular: true },
    },
  ],
  options: { ...base.options, includeOnly: '^server/domain/' },
}
