import { and, asc, count, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm'
import { randomUUID } from 'node:crypto'
import { documentFolders, documents } from '#server/db/schema-documents'
import { Problem, problems } from '#server/http/problem'
import { atLeast } from '~/lib/documents/rules'
import type { Folder, FolderNode, PermissionLevel } from '~/lib/documents/types'
import type { DomainContext } from '../tenancy/context'
import { refuseStaleWrite } from '#server/domain/tenancy/edit-conflict'
import { folderVisibility, forbidden, requireLevel, visibleCondition, type Entry, type FolderVisibility } from './access'
import { breadcrumbsOf, ensureProjectActive, findFolder, findProject, folderColumns, recordDocumentChange, type FolderRow } from './places'

/** docs/documents.md "Folders". */
export const FOLDER_NAME_MAX = 120
/** Deep enough for any real tree (ISO 19650 containers rarely sit below five), bounded so paths stay small. */
export const MAX_FOLDER_DEPTH = 20

export type NewFolder = { name: string; parentId: string | null }
export type FolderChange = { name?: string | undefined; parentId?: string | null | undefined; expectedRevision?: number | undefined }

function fieldProblem(status: number, field: string, message: string, code = 'KR_VALIDATION'): Problem {
  return new Problem({ ...problems.badRequest(message, { [field]: [message] }), status, code, title: status === 409 ? 'Conflict' : 'Bad Request' })
}

/** Folder structure changes of one project run one at a time (sibling names, moves). */
async function lockTree(ctx: DomainContext, projectId: string): Promise<void> {
  await ctx.tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`folders:${projectId}`}, 0))`)
}

async function ensureFreeName(ctx: DomainContext, projectId: string, parentId: string | null, name: string, except?: string): Promise<void> {
  const [clash] = await ctx.tx
    .select({ id: documentFolders.id })
    .from(documentFolders)
    .where(
      and(
        eq(documentFolders.tenantId, ctx.actor.tenantId),
        eq(documentFolders.projectId, projectId),
        parentId === null ? isNull(documentFolders.parentId) : eq(documentFolders.parentId, parentId),
        sql`lower(${documentFolders.name}) = lower(${name})`,
        except === undefined ? undefined : sql`${documentFolders.id} <> ${except}::uuid`,
      ),
    )
    .limit(1)
  if (clash) throw fieldProblem(409, 'name', `There is already a folder called “${name}” here.`, 'KR_FOLDER_NAME_TAKEN')
}

/** POST /api/projects/{projectId}/folders: needs edit where the folder goes. */
export async function createFolder(ctx: DomainContext, projectId: string, input: NewFolder): Promise<Folder> {
  const { project, level: projectLevel } = await findProject(ctx, projectId)
  ensureProjectActive(project)
  let parentPath: string[] = []
  if (input.parentId !== null) {
    const { folder: parent, level } = await findFolder(ctx, input.parentId).catch((error: unknown) => {
      if (error instanceof Problem && error.init.status === 404) throw fieldProblem(400, 'parentId', 'Choose a folder of this project.')
      throw error
    })
    if (parent.projectId !== projectId) throw fieldProblem(400, 'parentId', 'Choose a folder of this project.')
    requireLevel(level, 'edit')
    parentPath = parent.path
  } else {
    requireLevel(projectLevel, 'edit')
  }
  if (parentPath.length >= MAX_FOLDER_DEPTH) throw fieldProblem(400, 'parentId', `Folders go at most ${MAX_FOLDER_DEPTH} levels deep.`)
  await lockTree(ctx, projectId)
  await ensureFreeName(ctx, projectId, input.parentId, input.name)
  const id = randomUUID()
  await ctx.tx.insert(documentFolders).values({
    tenantId: ctx.actor.tenantId,
    id,
    projectId,
    parentId: input.parentId,
    name: input.name,
    path: [...parentPath, id],
    createdBy: ctx.actor.userId,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  })
  await recordDocumentChange(ctx, 'DocumentFolder', id, 'Created', 'documents.folder.created', { projectId, name: input.name, parentId: input.parentId })
  return getFolder(ctx, id)
}

/**
 * PATCH /api/folders/{id}: rename, and move under another folder of the project (parentId) or to
 * its top (null). Needs manage on the folder and edit where it goes. A folder cannot move into
 * itself or below itself; its whole subtree's paths move in one statement.
 */
export async function updateFolder(ctx: DomainContext, folderId: string, change: FolderChange): Promise<Folder> {
  const { folder, level } = await findFolder(ctx, folderId, 'view', { lock: true })
  requireLevel(level, 'manage')
  // Renamed or moved by someone else since the editor opened it: 409 KR_EDIT_CONFLICT, nothing moves.
  await refuseStaleWrite(ctx, { ...folder, what: 'folder' }, change.expectedRevision, () => getFolder(ctx, folderId))
  await lockTree(ctx, folder.projectId)
  const name = change.name ?? folder.name
  const parentId = change.parentId === undefined ? folder.parentId : change.parentId
  let parentPath = folder.path.slice(0, -1)
  if (parentId !== folder.parentId) {
    if (parentId === null) {
      const { level: top } = await findProject(ctx, folder.projectId)
      if (!atLeast(top, 'edit')) throw forbidden('You may not add folders at the top of this project.')
      parentPath = []
    } else {
      const { folder: parent, level: there } = await findFolder(ctx, parentId).catch((error: unknown) => {
        if (error instanceof Problem && error.init.status === 404) throw fieldProblem(400, 'parentId', 'Choose a folder of this project.')
        throw error
      })
      if (parent.projectId !== folder.projectId) throw fieldProblem(400, 'parentId', 'Choose a folder of this project.')
      if (parent.path.includes(folder.id)) throw fieldProblem(409, 'parentId', 'A folder cannot move into itself or into a folder inside it.', 'KR_FOLDER_CYCLE')
      if (!atLeast(there, 'edit')) throw forbidden('You may not add folders to that folder.')
      parentPath = parent.path
    }
    const [deepest] = await ctx.tx
      .select({ depth: sql<number>`coalesce(max(array_length(${documentFolders.path}, 1)), 0)` })
      .from(documentFolders)
      .where(and(eq(documentFolders.tenantId, ctx.actor.tenantId), sql`${documentFolders.path} @> array[${folder.id}::uuid]`))
    const below = Number(deepest?.depth ?? folder.path.length) - folder.path.length
    if (parentPath.length + 1 + below > MAX_FOLDER_DEPTH) throw fieldProblem(400, 'parentId', `Folders go at most ${MAX_FOLDER_DEPTH} levels deep.`)
  }
  if (name === folder.name && parentId === folder.parentId) return getFolder(ctx, folderId)
  if (name.toLowerCase() !== folder.name.toLowerCase() || parentId !== folder.parentId) await ensureFreeName(ctx, folder.projectId, parentId, name, folder.id)
  if (parentId !== folder.parentId) {
    const oldPrefix = folder.path.length - 1
    const newPrefix = sql`${sql.raw(`'{${parentPath.join(',')}}'`)}::uuid[]`
    await ctx.tx
      .update(documentFolders)
      .set({ path: sql`${newPrefix} || ${documentFolders.path}[${oldPrefix + 1}:]` })
      .where(and(eq(documentFolders.tenantId, ctx.actor.tenantId), sql`${documentFolders.path} @> array[${folder.id}::uuid]`))
  }
  await ctx.tx
    .update(documentFolders)
    .set({ name, parentId, revision: sql`${documentFolders.revision} + 1`, updatedBy: ctx.actor.userId, updatedAt: ctx.now })
    .where(and(eq(documentFolders.tenantId, ctx.actor.tenantId), eq(documentFolders.id, folder.id)))
  await recordDocumentChange(ctx, 'DocumentFolder', folder.id, 'Updated', 'documents.folder.changed', {
    ...(name !== folder.name && { name: { from: folder.name, to: name } }),
    ...(parentId !== folder.parentId && { parentId: { from: folder.parentId, to: parentId } }),
  })
  return getFolder(ctx, folderId)
}

/** GET /api/folders/{id}: the folder with its breadcrumbs and what is directly inside. */
export async function getFolder(ctx: DomainContext, folderId: string): Promise<Folder> {
  // The caller's entries come with the folder (none for administrators, who see everything).
  const { folder, entries } = await findFolder(ctx, folderId)
  const [view] = await folderViews(ctx, folder.projectId, [folder], entries, await folderVisibility(ctx, folder.projectId, entries))
  if (!view) throw new Error('folder view not made')
  return view
}

/**
 * GET /api/projects/{projectId}/documents/tree: the folders under `folderId` (the project's top
 * when absent), one level (`depth` 1) or the whole subtree, each with its counts, nested; hidden
 * folders and everything below them left out. Four queries whatever the size of the tree.
 */
export async function folderTree(
  ctx: DomainContext,
  projectId: string,
  options: { folderId?: string | undefined; depth: number },
): Promise<{ folder: Folder | null; folders: FolderNode[]; access: PermissionLevel }> {
  const { level: projectLevel, entries } = await findProject(ctx, projectId)
  const found = options.folderId === undefined ? null : await findFolder(ctx, options.folderId)
  const start = found?.folder ?? null
  if (start && start.projectId !== projectId) throw new Problem(problems.notFound())
  const baseDepth = start ? start.path.length : 0
  const within: SQL[] = [eq(documentFolders.tenantId, ctx.actor.tenantId), eq(documentFolders.projectId, projectId)]
  if (start) within.push(sql`${documentFolders.path} @> array[${start.id}::uuid]`, sql`${documentFolders.id} <> ${start.id}::uuid`)
  within.push(sql`array_length(${documentFolders.path}, 1) <= ${baseDepth + options.depth}`)
  const rows = await ctx.tx
    .select(folderColumns)
    .from(documentFolders)
    .where(and(...within))
    .orderBy(asc(sql`lower(${documentFolders.name})`), asc(documentFolders.id))
  const visibility = await folderVisibility(ctx, projectId, entries)
  // A hidden folder hides what is below it, except the way to what the caller may view (restricted).
  const shown = (id: string) => !visibility.hidden.has(id) || visibility.restricted.has(id)
  const visible = rows.filter((row) => row.path.every(shown))
  const views = await folderViews(ctx, projectId, visible, entries, visibility)
  const nodes = new Map<string, FolderNode>(views.map((v) => [v.id, { ...v }]))
  const roots: FolderNode[] = []
  for (const row of visible) if (row.path.length - baseDepth < options.depth) (nodes.get(row.id) as FolderNode).children = []
  for (const row of visible) {
    const node = nodes.get(row.id) as FolderNode
    const depth = row.path.length - baseDepth
    const parent = row.parentId === null ? undefined : nodes.get(row.parentId)
    if (depth === 1 || !parent) roots.push(node)
    else (parent.children ??= []).push(node)
  }
  const [startView] = start ? await folderViews(ctx, projectId, [start], entries, visibility) : []
  return { folder: startView ?? null, folders: roots, access: found ? found.level : projectLevel }
}

/** Folder JSON for rows of one project: breadcrumbs and visible counts, in three queries for any number. */
async function folderViews(ctx: DomainContext, projectId: string, rows: FolderRow[], entries: readonly Entry[], visibility: FolderVisibility): Promise<Folder[]> {
  if (rows.length === 0) return []
  const ids = rows.map((r) => r.id)
  const ancestorIds = [...new Set(rows.flatMap((r) => r.path.slice(0, -1)))]
  const crumbs = new Map((await breadcrumbsOf(ctx, ancestorIds)).map((b) => [b.id, b.name]))
  const subfolders = await ctx.tx
    .select({ parentId: documentFolders.parentId, id: documentFolders.id })
    .from(documentFolders)
    .where(and(eq(documentFolders.tenantId, ctx.actor.tenantId), eq(documentFolders.projectId, projectId), inArray(documentFolders.parentId, ids)))
  const folderCounts = new Map<string, number>()
  for (const sub of subfolders) if (sub.parentId && (!visibility.hidden.has(sub.id) || visibility.restricted.has(sub.id))) folderCounts.set(sub.parentId, (folderCounts.get(sub.parentId) ?? 0) + 1)
  const pathOfDocumentFolder = sql`(select f.path from ${documentFolders} f where f.tenant_id = ${documents.tenantId} and f.id = ${documents.folderId})`
  const docCounts = await ctx.tx
    .select({ folderId: documents.folderId, n: count() })
    .from(documents)
    .where(
      and(
        eq(documents.tenantId, ctx.actor.tenantId),
        // With the project, the folder index finds these folders' rows, not the tenant's.
        eq(documents.projectId, projectId),
        inArray(documents.folderId, ids),
        visibleCondition(ctx.actor, entries, { documentId: sql`${documents.id}`, projectId: sql`${documents.projectId}`, folderPath: pathOfDocumentFolder }),
      ),
    )
    .groupBy(documents.folderId)
  const documentCounts = new Map(docCounts.map((c) => [c.folderId as string, Number(c.n)]))
  return rows.map((row) => ({
    id: row.id,
    projectId: row.projectId,
    parentId: row.parentId,
    name: row.name,
    ...(visibility.restricted.has(row.id) && { restricted: true }),
    breadcrumbs: row.path.slice(0, -1).map((id) => ({ id, name: crumbs.get(id) ?? '' })),
    folderCount: folderCounts.get(row.id) ?? 0,
    documentCount: documentCounts.get(row.id) ?? 0,
    revision: row.revision,
    createdAtUtc: row.createdAt.toISOString(),
    updatedAtUtc: row.updatedAt.toISOString(),
  }))
}
