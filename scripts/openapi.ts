/**
 * Writes the OpenAPI document (/api/openapi.json) to a file without starting the portal or a
 * database: the routes and their operation specs are all it needs. `npm run lint:openapi` lints it.
 *   tsx scripts/openapi.ts [out.json]   (default build/openapi.json)
 */
import { mkdir, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { createBackend } from '#server/api/app'
import { loadConfig } from '#server/config'
import type { Database } from '#server/db/client'
import { createLogger } from '#server/http/logger'
import { buildOpenApiDocument } from '#server/http/openapi'

const out = path.resolve(process.argv[2] ?? 'build/openapi.json')
const config = loadConfig({ NODE_ENV: 'test', SESSION_SECRET: 'openapi-document-only-0123456789abcdefghijkl', DATA_DIR: os.tmpdir(), LOG_LEVEL: 'silent', SEED: 'false' })
// No request is served, so no database is opened: the routes are only listed.
const backend = createBackend({ config, db: undefined as unknown as Database, logger: createLogger('silent'), now: () => new Date() })
const document = buildOpenApiDocument(backend.app.routes, config.maxBodyBytes)
await mkdir(path.dirname(out), { recursive: true })
await writeFile(out, `${JSON.stringify(document, null, 2)}\n`)
console.info(`openapi: ${Object.keys(document.paths).length} paths written to ${path.relative(process.cwd(), out)}`)
process.exit(0)
