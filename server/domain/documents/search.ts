import { and, asc, eq, or, sql, type SQL } from 'drizzle-orm'
import type { SelectedFields } from 'drizzle-orm/pg-core'
import { documentFolders, documents } from '#server/db/schema-documents'
import type { CdeState, SearchPage } from '~/lib/documents/types'
import type { DomainContext } from '../tenancy/context'
import { actorEntries, visibleCondition } from './access'
import { documentColumns, findFolder, findProject, notFound } from './places'
import { documentSummaries } from './views'

/** docs/documents.md "Search". */
export const SEARCH_TEXT_MAX = 100
export const SEARCH_PAGE_SIZE = 25
export const SEARCH_PAGE_SIZE_MAX = 100
/** Offset paging: page × pageSize rows are read and thrown away, so a page number is bounded. */
export const SEARCH_PAGE_MAX = 1_000
/** A trigram index needs three characters to narrow anything down; shorter text matches by word only. */
const PARTIAL_MATCH_MIN = 3

export type SearchQuery = {
  projectId?: string | undefined
  folderId?: string | undefined
  q?: string | undefined
  discipline?: string | undefined
  status?: string | undefined
  state?: CdeState | undefined
  page: number
  pageSize: number
}

/** `%`, `_` and `\` mean themselves in a LIKE pattern made from what someone typed. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`)
}

/**
 * The full-text query of typed text: each run of letters and digits is a word, every word must
 * match, and each matches as a prefix ("arrang" finds "arrangement") except one-letter words,
 * which would match nearly everything. Only letters and digits reach to_tsquery, so nothing
 * typed is read as tsquery syntax. Undefined when the text has no word.
 */
export function textQueryOf(text: string): string | undefined {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
  if (words.length === 0) return undefined
  return words.map((word) => (word.length > 1 ? `${word}:*` : word)).join(' & ')
}

/**
 * GET /api/documents/search: documents by text and filters, one page at a time, with the total.
 *
 * `q` matches the number, title and metadata values (`search_text`): by word (full text over
 * `search_vector`, GIN) or as a piece of text anywhere (`search_text ILIKE '%q%'`, the trigram
 * GIN index), so "0012", "A-0012" and a word of the title all find SYM01-ARC-Z1-03-DR-A-0012.
 * Results are ranked: the number itself, then numbers starting with q, then numbers holding it,
 * then full-text rank, then by number. Without q, the page is in number order.
 *
 * What the caller may not see is never shown or counted: the one permission rule
 * (`visibleCondition`, the nearest entry for each document) is part of the query. A `folderId` lists the documents directly in that folder; with q it searches
 * the folder's whole subtree. Archived documents are left out unless `state=Archived` asks for them.
 */
export async function searchDocuments(ctx: DomainContext, query: SearchQuery): Promise<SearchPage> {
  const { page, count } = await searchQueries(ctx, query)
  const rows = await page
  // Past the last page the window count comes with no row: count on its own.
  const total = rows[0]?.total ?? (query.page > 1 ? ((await count)[0]?.n ?? 0) : 0)
  return { items: await documentSummaries(ctx, rows), total, page: query.page, pageSize: query.pageSize }
}

/**
 * The queries of a search, not yet run (the bench explains them): the page, with the total as a
 * window count, and the count alone. Checks the project and folder first (404).
 */
export async function searchQueries(ctx: DomainContext, query: SearchQuery) {
  const folder = query.folderId === undefined ? undefined : (await findFolder(ctx, query.folderId)).folder
  if (folder && query.projectId !== undefined && folder.projectId !== query.projectId) throw notFound()
  const projectId = folder?.projectId ?? query.projectId
  // A project or folder the caller cannot reach is not there (404), as in the tree.
  // Within a project its lookup brings the caller's entries; across projects they are read here.
  const entries = projectId !== undefined ? (await findProject(ctx, projectId)).entries : await actorEntries(ctx)

  const text = query.q?.trim() ?? ''
  const textQuery = text === '' ? undefined : textQueryOf(text)
  const tsQuery = textQuery === undefined ? undefined : sql`to_tsquery('simple', ${textQuery})`
  const pattern = text.length >= PARTIAL_MATCH_MIN ? `%${escapeLike(text)}%` : undefined

  const visible = visibleCondition(ctx.actor, entries, { documentId: sql`${documents.id}`, projectId: sql`${documents.projectId}`, folderPath: sql`${documentFolders.path}` })
  const subtree = folder !== undefined && text !== ''
  const conditions: Array<SQL | undefined> = [eq(documents.tenantId, ctx.actor.tenantId)]
  if (projectId !== undefined) conditions.push(eq(documents.projectId, projectId))
  if (folder) conditions.push(subtree ? sql`${documentFolders.path} @> array[${folder.id}::uuid]` : eq(documents.folderId, folder.id))
  if (query.discipline !== undefined) conditions.push(eq(documents.discipline, query.discipline))
  if (query.status !== undefined) conditions.push(eq(documents.status, query.status))
  conditions.push(query.state !== undefined ? eq(documents.state, query.state) : sql`${documents.state} <> 'Archived'`)
  if (text !== '') {
    const matches = [tsQuery && sql`${documents.searchVector} @@ ${tsQuery}`, pattern !== undefined ? sql`${documents.searchText} ilike ${pattern}` : undefined].filter((m) => m !== undefined)
    conditions.push(matches.length === 0 ? sql`false` : or(...matches))
  }
  conditions.push(visible)
  const where = and(...conditions)

  const order: SQL[] = []
  if (text !== '') {
    const number = escapeLike(text.toUpperCase())
    order.push(sql`case when ${documents.number} = ${text.toUpperCase()} then 0 when ${documents.number} like ${`${number}%`} then 1 when ${documents.number} like ${`%${number}%`} then 2 else 3 end`)
    if (tsQuery) order.push(sql`ts_rank(${documents.searchVector}, ${tsQuery}) desc`)
  }
  order.push(asc(documents.number), asc(documents.id))

  // The folder's path is needed only to decide folder entries or to search a subtree.
  const needsPath = subtree || (visible !== undefined && entries.some((e) => e.targetKind === 'folder'))
  const source = <S extends SelectedFields>(selection: S) => {
    const select = ctx.tx.select(selection).from(documents).$dynamic()
    return needsPath ? select.leftJoin(documentFolders, and(eq(documentFolders.tenantId, documents.tenantId), eq(documentFolders.id, documents.folderId))) : select
  }
  return {
    page: source({ ...summaryColumns, total: sql<number>`(count(*) over ())::int`.mapWith(Number) })
      .where(where)
      .orderBy(...order)
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize),
    count: source({ n: sql<number>`count(*)::int`.mapWith(Number) }).where(where),
  }
}

/** What a list row needs of a document (views.ts documentSummaries). */
const { metadata: _metadata, createdBy: _createdBy, createdAt: _createdAt, revision: _revision, ...summaryColumns } = documentColumns
