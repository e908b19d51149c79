import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'postgresql',
  schema: ['./server/db/schema.ts', './server/db/schema-reporting.ts', './server/db/schema-photos.ts', './server/db/schema-realtime.ts', './server/db/schema-documents.ts', './server/db/schema-doc-control.ts', './server/db/schema-admin.ts', './server/db/schema-settings.ts', './server/db/schema-observability.ts', './server/db/schema-licensing.ts', './server/db/schema-billing.ts', './server/db/schema-store.ts', './server/db/schema-oidc.ts', './server/db/schema-ops.ts', './server/db/schema-exports.ts'],
  out: './server/db/migrations',
  entities: { roles: { provider: '' } },
})
