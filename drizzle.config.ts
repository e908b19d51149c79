import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'postgresql',
  schema: ['./server/db/schema.ts', './server/db/schema-reporting.ts'],
  out: './server/db/migrations',
  entities: { roles: { provider: '' } },
})
