import { and, eq, inArray } from 'drizzle-orm'
import { documentFolders, documents } from '#server/db/schema-documents'
import { projects } from '#server/db/schema-reporting'
import { recordAuditIn, type AuditAction } from '#server/domain/audit'
import { Problem, problems } from '#server/http/problem'
import { atLeast } from '~/lib/documents/rules'
import type { Breadcrumb, PermissionLevel } from '~/lib/documents/types'
import { recordChange, type ChangeType } from '../tenancy/change-log'
import type { DomainContext } from '../tenancy/context'
import { isUuid } from '~/lib/schemas/uuid'
import { actorEntries, decide, levelAt, reachableProject, requireLevel, restrictedFolder, type Entry, type Place } from './access'

/**
 * Finding the project, folder or document a call names, with the caller's level there: an unknown
 * id, another organisation's and one the caller may not view are the same 404.
 */

export type ProjectRef = { id: string; title: string | null; code: string | null; status: string }
export type FolderRow = {
  id: string
  projectId: string
  parentId: string | null
  name: string
  path: string[]
  revision: number
  updatedBy: string | null
  createdAt: Date
  updatedAt: Date
}

export function notFound(): Problem {
  return new Problem(problems.notFound())
}

/**
 * The project, with the caller's level at its top. `restricted`: they may not view its top but may
 * view a folder or document inside (then `level` is below view, and only the way there is shown).
 */
export async function findProject(
  ctx: DomainContext,
  projectId: string,
  wanted: PermissionLevel = 'view',
): Promise<{ project: ProjectRef; level: PermissionLevel; restricted: boolean; entries: Entry[] }> {
  if (!isUuid(projectId)) throw notFound()
  const [project] = await ctx.tx
    .select({ id: projects.id, title: projects.title, code: projects.code, status: projects.status })
    .from(projects)
    .where(and(eq(projects.tenantId, ctx.actor.tenantId), eq(projects.id, projectId)))
    .limit(1)
  if (!project) throw notFound()
  if (ctx.actor.roleKey === 'admin') return { project, level: 'manage', restricted: false, entries: [] }
  const entries = await actorEntries(ctx, projectId)
  const level = decide(ctx.actor, entries, { projectId, folderPath: [] })
  if (wanted === 'view' && !atLeast(level, 'view') && reachableProject(ctx.actor, entries, projectId)) return { project, level, restricted: true, entries }
  requireLevel(level, wanted)
  return { project, level, restricted: false, entries }
}

/** Nothing new is filed in an archived project; what is there stays readable. */
export function ensureProjectActive(project: ProjectRef): void {
  if (project.status === 'archived')
    throw new Problem({
      status: 409,
      title: 'Conflict',
      detail: 'This project is archived: bring it back before adding to it.',
      code: 'KR_ARCHIVED',
      remediation: 'Unarchive the project first.',
    })
}

export const folderColumns = {
  id: documentFolders.id,
  projectId: documentFolders.projectId,
  parentId: documentFolders.parentId,
  name: documentFolders.name,
  path: documentFolders.path,
  revision: documentFolders.revision,
  updatedBy: documentFolders.updatedBy,
  createdAt: documentFolders.createdAt,
  updatedAt: documentFolders.updatedAt,
}

export async function findFolder(
  ctx: DomainContext,
  folderId: string,
  wanted: PermissionLevel = 'view',
  options: { lock?: boolean } = {},
): Promise<{ folder: FolderRow; level: PermissionLevel; restricted: boolean; entries: Entry[] }> {
  if (!isUuid(folderId)) throw notFound()
  const query = ctx.tx
    .select(folderColumns)
    .from(documentFolders)
    .where(and(eq(documentFolders.tenantId, ctx.actor.tenantId), eq(documentFolders.id, folderId)))
    .limit(1)
  const [folder] = options.lock ? await query.for('update') : await query
  if (!folder) throw notFound()
  if (ctx.actor.roleKey === 'admin') return { folder, level: 'manage', restricted: false, entries: [] }
  const entries = await actorEntries(ctx, folder.projectId)
  const level = decide(ctx.actor, entries, { projectId: folder.projectId, folderPath: folder.path })
  if (wanted === 'view' && !atLeast(level, 'view') && restrictedFolder(ctx.actor, entries, folder.projectId, folder.id)) return { folder, level, restricted: true, entries }
  requireLevel(level, wanted)
  return { folder, level, restricted: false, entries }
}

export const documentColumns = {
  id: documents.id,
  projectId: documents.projectId,
  folderId: documents.folderId,
  number: documents.number,
  title: documents.title,
  discipline: documents.discipline,
  docType: documents.docType,
  status: documents.status,
  state: documents.state,
  currentRevisionId: documents.currentRevisionId,
  metadata: documents.metadata,
  createdBy: documents.createdBy,
  updatedBy: documents.updatedBy,
  createdAt: documents.createdAt,
  updatedAt: documents.updatedAt,
  revision: documents.revision,
}

export type DocumentRow = {
  id: string
  projectId: string
  folderId: string | null
  number: string
  title: string
  discipline: string
  docType: string
  status: string
  state: string
  currentRevisionId: string | null
  metadata: Record<string, string | number>
  createdBy: string | null
  updatedBy: string | null
  createdAt: Date
  updatedAt: Date
  revision: number
}

/** The folder path of a document's folder (empty at the project's top). */
export async function folderPathOf(ctx: DomainContext, folderId: string | null): Promise<string[]> {
  if (folderId === null) return []
  const [row] = await ctx.tx
    .select({ path: documentFolders.path })
    .from(documentFolders)
    .where(and(eq(documentFolders.tenantId, ctx.actor.tenantId), eq(documentFolders.id, folderId)))
    .limit(1)
  return row?.path ?? []
}

export async function documentPlace(ctx: DomainContext, doc: Pick<DocumentRow, 'id' | 'projectId' | 'folderId'>): Promise<Place> {
  return { projectId: doc.projectId, folderPath: await folderPathOf(ctx, doc.folderId), documentId: doc.id }
}

export async function findDocument(
  ctx: DomainContext,
  documentId: string,
  wanted: PermissionLevel = 'view',
  options: { lock?: boolean } = {},
): Promise<{ doc: DocumentRow; level: PermissionLevel; place: Place }> {
  if (!isUuid(documentId)) throw notFound()
  const query = ctx.tx
    .select(documentColumns)
    .from(documents)
    .where(and(eq(documents.tenantId, ctx.actor.tenantId), eq(documents.id, documentId)))
    .limit(1)
  const [doc] = options.lock ? await query.for('update') : await query
  if (!doc) throw notFound()
  const place = await documentPlace(ctx, doc)
  const level = await levelAt(ctx, place)
  requireLevel(level, wanted)
  return { doc, level, place }
}

/** Names of the folders of a path, in its order (one query). */
export async function breadcrumbsOf(ctx: DomainContext, path: readonly string[]): Promise<Breadcrumb[]> {
  if (path.length === 0) return []
  const rows = await ctx.tx
    .select({ id: documentFolders.id, name: documentFolders.name })
    .from(documentFolders)
    .where(and(eq(documentFolders.tenantId, ctx.actor.tenantId), inArray(documentFolders.id, [...path])))
  const names = new Map(rows.map((r) => [r.id, r.name]))
  return path.flatMap((id) => (names.has(id) ? [{ id, name: names.get(id) as string }] : []))
}

/** An audited change that is not an entity of the change log (a project's naming standard, its fields). */
export async function recordDocumentAudit(ctx: DomainContext, action: AuditAction, targetType: string, targetId: string, data?: Record<string, unknown>): Promise<void> {
  await recordAuditIn(ctx.tx, { tenantId: ctx.actor.tenantId, actorUserId: ctx.actor.userId, action, targetType, targetId, data, at: ctx.now })
}

/**
 * Every change of a document or folder: the change log (so realtime screens update), and the
 * audit trail, in the caller's transaction. Returns the new tenant revision.
 */
export async function recordDocumentChange(
  ctx: DomainContext,
  entity: 'Document' | 'DocumentFolder',
  id: string,
  changeType: ChangeType,
  action: AuditAction,
  data?: Record<string, unknown>,
): Promise<number> {
  const revision = await recordChange(ctx, entity, id, changeType)
  await recordAuditIn(ctx.tx, {
    tenantId: ctx.actor.tenantId,
    actorUserId: ctx.actor.userId,
    action,
    targetType: entity,
    targetId: id,
    data,
    at: ctx.now,
  })
  return revision
}
