import { Hono } from 'hono'
import { z } from 'zod'
import { runAdmin } from '#server/api/admin/run'
import { frontendErrorDetail, listFrontendErrorGroups } from '#server/domain/observability/frontend-errors'
import { sourceMapStore, type SourceMapStore } from '#server/domain/observability/source-maps'
import { operation, pathPattern } from '#server/http/contract'
import type { BackendEnv } from '#server/http/env'
import {
  FrontendErrorDetailSchema,
  FrontendErrorListQuerySchema,
  FrontendErrorListSchema,
  FrontendErrorOccurrencesQuerySchema,
} from '~/lib/schemas/admin-frontend-errors'

/**
 * Spec §7 "Frontend errors, including stack" (issue 15): what the browsers of the organisation's
 * people reported (server/api/telemetry.ts), grouped by fingerprint, and one error's occurrences
 * with stacks mapped back to the source (server/domain/observability/source-maps.ts); administrators only.
 */

const TAG = 'Frontend errors'

/** One store per maps folder (the server has one; tests may point several backends at their own). */
const stores = new Map<string, SourceMapStore>()
function mapsIn(dir: string): SourceMapStore {
  let store = stores.get(dir)
  if (!store) stores.set(dir, (store = sourceMapStore(dir)))
  return store
}

export const adminFrontendErrorRoutes = new Hono<BackendEnv>()
  .get(
    '/api/admin/frontend-errors',
    operation({
      summary: 'The organisation’s frontend errors, grouped by fingerprint, most recently seen first',
      description:
        'Each group: message, name, count, first and last seen, distinct people and visitors, the latest path and release. Filters pick the occurrences counted: `q` (part of the message, path or release), `since` (a day or a time: received from then), `visitor` (a visitor id, which is the error’s correlation id). Paged with `page` (from 1) and `limit` (50 by default).',
      tag: TAG,
      access: 'admin',
      query: FrontendErrorListQuerySchema,
      responses: {
        200: { description: 'A page of groups; `hasMore` when another page follows.', schema: FrontendErrorListSchema },
        400: 'A filter or the paging is not valid: see errors.',
        403: 'Not an administrator of the organisation.',
      },
    }),
    async (c) => {
      const { q, since, visitor, page, limit } = c.req.valid('query')
      c.header('cache-control', 'no-store')
      return c.json(await runAdmin(c, (ctx) => listFrontendErrorGroups(ctx, { q, since, visitor }, { page, limit })))
    },
  )
  .get(
    '/api/admin/frontend-errors/:fingerprint',
    operation({
      summary: 'One frontend error: its counts, the people it happened to, and its occurrences with mapped stacks',
      description:
        'Occurrences newest first, paged with `page` and `limit` (50). Each stack frame is mapped back to the source file, line, column and function with the build’s source maps, kept on the server only; a frame of another release or without a map is shown as it came (`mapped: false`).',
      tag: TAG,
      access: 'admin',
      params: z.object({ fingerprint: pathPattern(/^[0-9a-f]{64}$/, 'The group’s fingerprint: SHA-256 (lower-case hex) of the message and the top three frames, as the list gives it; one that names no error here is 404.', z.string().max(200)) }),
      query: FrontendErrorOccurrencesQuerySchema,
      responses: {
        200: { description: 'The error.', schema: FrontendErrorDetailSchema },
        400: 'The paging is not valid: see errors.',
        403: 'Not an administrator of the organisation.',
        404: 'This organisation has no such error.',
      },
    }),
    async (c) => {
      const { page, limit } = c.req.valid('query')
      const maps = mapsIn(c.get('deps').config.sourceMapsDir)
      c.header('cache-control', 'no-store')
      return c.json(await runAdmin(c, (ctx) => frontendErrorDetail(ctx, c.req.valid('param').fingerprint, { page, limit }, maps)))
    },
  )
