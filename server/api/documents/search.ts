import { Hono } from 'hono'
import { z } from 'zod'
import { asMember } from '#server/domain/tenancy/context'
import { searchDocuments, SEARCH_PAGE_MAX, SEARCH_PAGE_SIZE, SEARCH_PAGE_SIZE_MAX, SEARCH_TEXT_MAX } from '#server/domain/documents/search'
import type { BackendEnv } from '#server/http/env'
import { operation } from '#server/http/contract'
import { optional, wholeNumber } from '#server/http/query'
import { requireSession } from '#server/http/session'
import { SUITABILITY_CODES } from '~/lib/documents/rules'
import { CDE_STATES } from '~/lib/documents/types'
import { SearchPageSchema } from '~/lib/schemas/documents-responses'

/** docs/documents.md "Search". */

export const SearchQuerySchema = z.object({
  projectId: optional(z.uuid({ error: 'projectId must be a project id.' })),
  folderId: optional(z.uuid({ error: 'folderId must be a folder id.' })),
  q: optional(z.string().trim().max(SEARCH_TEXT_MAX, `Search for at most ${SEARCH_TEXT_MAX} characters.`)),
  discipline: optional(
    z
      .string()
      .trim()
      .toUpperCase()
      .regex(/^[A-Z0-9]{1,12}$/, 'discipline is a Role code of the naming standard, such as A or S.'),
  ),
  status: optional(
    z
      .string()
      .trim()
      .toUpperCase()
      .refine((code) => SUITABILITY_CODES.includes(code), 'status is a suitability code: S0–S7, A1–A5, B1–B5 or CR.'),
  ),
  state: optional(z.enum(CDE_STATES, { error: 'state is WIP, Shared, Published or Archived.' })),
  page: optional(wholeNumber('page', SEARCH_PAGE_MAX)).transform((v) => v ?? 1),
  pageSize: optional(wholeNumber('pageSize', SEARCH_PAGE_SIZE_MAX)).transform((v) => v ?? SEARCH_PAGE_SIZE),
})

export const documentSearchRoutes = new Hono<BackendEnv>().get(
  '/api/documents/search',
  operation({
    summary: 'Search documents by number, title and metadata, with filters; a page and the total',
    tag: 'Documents',
    access: 'session',
    query: SearchQuerySchema,
    responses: { 200: { description: 'A page of documents the caller may see, and how many there are in all.', schema: SearchPageSchema }, 400: 'Invalid query parameters.', 404: 'No such project or folder.' },
  }),
  async (c) => {
    const session = requireSession(c)
    const { db, now } = c.get('deps')
    const query = c.req.valid('query')
    return c.json(await asMember(db, session, now(), (ctx) => searchDocuments(ctx, query)))
  },
)
