import { Hono } from 'hono'
import { z } from 'zod'
import type { RouterRoute } from 'hono/types'
import { operation } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'
import { buildOpenApiDocument, type OpenApiDocument } from '#server/http/openapi'
import { REFERENCE_CSP, renderReferencePage } from '#server/http/reference-page'

/** The document's outline; its paths and schemas are JSON Schema and OpenAPI objects, described by those standards. */
const OpenApiDocumentSchema = z.object({
  openapi: z.literal('3.1.0'),
  info: z.object({ title: z.string(), version: z.string(), description: z.string() }),
  servers: z.array(z.object({ url: z.string(), description: z.string() })),
  tags: z.array(z.object({ name: z.string(), description: z.string() })),
  paths: z.record(z.string(), z.record(z.string(), z.record(z.string(), z.unknown()))),
  components: z.object({ schemas: z.record(z.string(), z.record(z.string(), z.unknown())), securitySchemes: z.record(z.string(), z.record(z.string(), z.unknown())) }),
})

/** The published contract: the OpenAPI document and its readable reference, built once from the routes. */
export function contractRoutes(routes: () => readonly RouterRoute[], maxBodyBytes: number) {
  let document: OpenApiDocument | undefined
  const current = () => (document ??= buildOpenApiDocument(routes(), maxBodyBytes))
  return new Hono<BackendEnv>()
    .get('/api/openapi.json', operation({ summary: 'The API contract as OpenAPI 3.1', tag: 'Contract', access: 'public', responses: { 200: { description: 'The OpenAPI document.', schema: OpenApiDocumentSchema } } }), (c) => {
      c.header('cache-control', 'public, max-age=300')
      return c.json(current())
    })
    .get('/api/reference', operation({ summary: 'The API contract as a readable page', tag: 'Contract', access: 'public', responses: { 200: { description: 'An HTML page.', contentType: 'text/html' } } }), (c) => {
      c.header('cache-control', 'public, max-age=300')
      c.header('content-security-policy', REFERENCE_CSP)
      return c.html(renderReferencePage(current()))
    })
}
