import { and, eq, inArray } from 'drizzle-orm'
import type { Database } from '#server/db/client'
import { documents } from '#server/db/schema-documents'
import { getFolder } from '#server/domain/documents/folders'
import { metadataFieldsOf } from '#server/domain/documents/naming'
import { type SearchQuery, searchDocuments, SEARCH_PAGE_MAX, SEARCH_PAGE_SIZE_MAX } from '#server/domain/documents/search'
import { requireProjectRow } from '#server/domain/reporting/projects'
import { asMember, type DomainContext } from '#server/domain/tenancy/context'
import { projectTitle } from '~/lib/reporting/types'
import type { DocumentSummary, MetadataField, MetadataValues } from '~/lib/documents/types'
import type { ExportColumn } from '#server/domain/formats/columns'

/**
 * The document register as rows (docs/exports.md): the documents screen's search (a project, a
 * folder, or text and filters) through the same call, GET /api/documents/search, so the caller
 * gets exactly the documents they may see, every page of them, a batch per short transaction, and
 * the project's metadata fields as columns.
 */

export type RegisterQuery = Omit<SearchQuery, 'page' | 'pageSize'>

export type RegisterRow = DocumentSummary & { metadata: MetadataValues }

type Session = { tenantId: string; userId: string }

/** How many documents the register holds (a project or folder the caller cannot reach is a 404). */
export async function countRegister(ctx: DomainContext, query: RegisterQuery): Promise<number> {
  return (await searchDocuments(ctx, { ...query, page: 1, pageSize: 1 })).total
}

/** The register's search in words, for a job's title ("Project: Tower · Folder: Drawings · “roof”"). */
export async function registerWords(ctx: DomainContext, query: RegisterQuery): Promise<string[]> {
  const words: string[] = []
  if (query.projectId) words.push(`Project: ${projectTitle((await requireProjectRow(ctx, query.projectId)).title)}`)
  if (query.folderId) words.push(`Folder: ${(await getFolder(ctx, query.folderId)).name}`)
  if (query.q) words.push(`“${query.q}”`)
  if (query.discipline) words.push(`Discipline: ${query.discipline}`)
  if (query.status) words.push(`Suitability: ${query.status}`)
  if (query.state) words.push(`State: ${query.state}`)
  return words
}

/** A project or folder the caller cannot reach is a 404 before anything is written; the metadata fields of the project searched. */
export async function registerFields(ctx: DomainContext, query: RegisterQuery): Promise<MetadataField[]> {
  await searchDocuments(ctx, { ...query, page: 1, pageSize: 1 })
  const projectId = query.projectId ?? (query.folderId ? (await getFolder(ctx, query.folderId)).projectId : undefined)
  return projectId ? metadataFieldsOf(ctx, projectId) : []
}

export async function* registerRows(db: Database, session: Session, now: () => Date, query: RegisterQuery): AsyncGenerator<RegisterRow[]> {
  for (let page = 1; page <= SEARCH_PAGE_MAX; page++) {
    const rows = await asMember(db, session, now(), async (ctx) => {
      const result = await searchDocuments(ctx, { ...query, page, pageSize: SEARCH_PAGE_SIZE_MAX })
      if (result.items.length === 0) return []
      const ids = result.items.map((d) => d.id)
      const metadata = new Map(
        (await ctx.tx.select({ id: documents.id, metadata: documents.metadata }).from(documents).where(and(eq(documents.tenantId, ctx.actor.tenantId), inArray(documents.id, ids)))).map((r) => [
          r.id,
          r.metadata,
        ]),
      )
      return result.items.map((d) => ({ ...d, metadata: metadata.get(d.id) ?? {} }))
    })
    if (rows.length > 0) yield rows
    if (rows.length < SEARCH_PAGE_SIZE_MAX) return
  }
}

function metadataText(value: MetadataValues[string] | undefined): string | number {
  return value ?? ''
}

export function registerColumns(fields: MetadataField[], publicUrl: string): ExportColumn<RegisterRow>[] {
  return [
    { header: 'Number', width: 34, value: (d) => d.number },
    { header: 'Title', width: 40, value: (d) => d.title },
    { header: 'Revision', width: 10, value: (d) => d.currentRevision?.code ?? '' },
    { header: 'Suitability', width: 12, value: (d) => d.status },
    { header: 'State', width: 12, value: (d) => d.state },
    { header: 'Discipline', width: 10, value: (d) => d.discipline },
    { header: 'Type', width: 8, value: (d) => d.docType },
    { header: 'Revision issued (UTC)', width: 22, value: (d) => d.currentRevision?.issuedAtUtc ?? '' },
    { header: 'Updated (UTC)', width: 22, value: (d) => d.updatedAtUtc },
    ...fields.map((field): ExportColumn<RegisterRow> => ({ header: field.label, width: 18, value: (d) => metadataText(d.metadata[field.key]) })),
    { header: 'Link', width: 40, value: (d) => `${publicUrl.replace(/\/$/, '')}/documents/${d.id}` },
  ]
}
