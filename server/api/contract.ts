import { Hono } from 'hono'
import type { RouterRoute } from 'hono/types'
import { operation } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'
import { buildOpenApiDocument, type OpenApiDocument } from '#server/http/openapi'
import { REFERENCE_CSP, renderReferencePage } from '#server/http/reference-page'

/** The published contract: the OpenAPI document and its readable reference, built once from the routes. */
export function contractRoutes(routes: () => readonly RouterRoute[], maxBodyBytes: number) {
  let document: OpenApiDocument | undefined
  const current = () => (document ??= buildOpenApiDocument(routes(), maxBodyBytes))
  return new Hono<BackendEnv>()
    .get('/api/openapi.json', operation({ summary: 'The API contract as OpenAPI 3.1', tag: 'Contract', access: 'public', responses: { 200: 'The OpenAPI document.' } }), (c) => {
      c.header('cache-control', 'public, max-age=300')
      return c.json(current())
    })
    .get('/api/reference', operation({ summary: 'The API contract as a readable page', tag: 'Contract', access: 'public', responses: { 200: { description: 'An HTML page.', contentType: 'text/html' } } }), (c) => {
      c.header('cache-control', 'public, max-age=300')
      c.header('content-security-policy', REFERENCE_CSP)
      return c.html(renderReferencePage(current()))
    })
}
