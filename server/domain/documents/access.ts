import { and, eq, inArray, or, sql, type SQL } from 'drizzle-orm'
import { documentFolders, documentPermissions } from '#server/db/schema-documents'
import { Problem, problems } from '#server/http/problem'
import { atLeast, ROLE_DEFAULT_LEVEL } from '~/lib/documents/rules'
import type { PermissionLevel, PermissionTarget } from '~/lib/documents/types'
import type { Actor, DomainContext } from '../reporting/context'

/**
 * Who may do what with documents (docs/documents.md "Permissions"). Levels none < view < upload <
 * edit < manage. An entry gives a member (by user id) or everyone of an organisation role a level on
 * a project, a folder or a document; the entry nearest the document decides (the document itself,
 * then its folder, then each folder above it, then the project), and at one place a member's own
 * entry beats their role's. With no entry at all, the organisation role's default applies
 * (administrator manage, read-write edit, read-only view). Organisation administrators always
 * manage: nobody can lock the organisation out of its own documents.
 *
 * Not seeing is not knowing: a document, folder or project below `view` answers 404 in every call,
 * exactly like one that does not exist, and search never counts it.
 */

export type Entry = { targetKind: PermissionTarget; targetId: string; subjectKind: 'user' | 'role'; level: PermissionLevel; depth: number }

/** Where a document or folder sits: its project, the folder ids from the top down (the folder itself last), and the document. */
export type Place = { projectId: string; folderPath: readonly string[]; documentId?: string }

/** The actor's entries (their own and their role's), with each folder entry's depth; optionally one project's. */
export async function actorEntries(ctx: DomainContext, projectId?: string): Promise<Entry[]> {
  const { actor } = ctx
  const rows = await ctx.tx
    .select({
      targetKind: documentPermissions.targetKind,
      targetId: documentPermissions.targetId,
      subjectKind: documentPermissions.subjectKind,
      level: documentPermissions.level,
      depth: sql<number | null>`array_length(${documentFolders.path}, 1)`,
    })
    .from(documentPermissions)
    .leftJoin(
      documentFolders,
      and(eq(documentPermissions.targetKind, 'folder'), eq(documentFolders.tenantId, documentPermissions.tenantId), eq(documentFolders.id, documentPermissions.targetId)),
    )
    .where(
      and(
        eq(documentPermissions.tenantId, actor.tenantId),
        projectId === undefined ? undefined : eq(documentPermissions.projectId, projectId),
        or(
          and(eq(documentPermissions.subjectKind, 'user'), eq(documentPermissions.subject, actor.userId)),
          and(eq(documentPermissions.subjectKind, 'role'), eq(documentPermissions.subject, actor.roleKey)),
        ),
      ),
    )
  return rows.map((row) => ({
    targetKind: row.targetKind as PermissionTarget,
    targetId: row.targetId,
    subjectKind: row.subjectKind as 'user' | 'role',
    level: row.level as PermissionLevel,
    depth: row.targetKind === 'folder' ? Number(row.depth ?? 0) : row.targetKind === 'document' ? Number.MAX_SAFE_INTEGER : 0,
  }))
}

export function roleDefault(actor: Actor): PermissionLevel {
  return ROLE_DEFAULT_LEVEL[actor.roleKey]
}

/** The level the nearest entry gives at `place` (pure: the rule above, for one place). */
export function decide(actor: Actor, entries: readonly Entry[], place: Place): PermissionLevel {
  if (actor.roleKey === 'admin') return 'manage'
  const at = (kind: PermissionTarget, id: string): PermissionLevel | undefined => {
    const here = entries.filter((e) => e.targetKind === kind && e.targetId === id)
    return (here.find((e) => e.subjectKind === 'user') ?? here.find((e) => e.subjectKind === 'role'))?.level
  }
  if (place.documentId !== undefined) {
    const own = at('document', place.documentId)
    if (own) return own
  }
  for (let i = place.folderPath.length - 1; i >= 0; i--) {
    const level = at('folder', place.folderPath[i] as string)
    if (level) return level
  }
  return at('project', place.projectId) ?? roleDefault(actor)
}

/** The actor's level at one place. */
export async function levelAt(ctx: DomainContext, place: Place): Promise<PermissionLevel> {
  if (ctx.actor.roleKey === 'admin') return 'manage'
  return decide(ctx.actor, await actorEntries(ctx, place.projectId), place)
}

export function forbidden(detail = 'You do not have permission to perform this action.'): Problem {
  return new Problem({ status: 403, title: 'Forbidden', detail, code: 'KR_FORBIDDEN' })
}

/**
 * Refuses unless the actor has `wanted` at a place: below view it is a 404 (the place is not
 * there for them), at view or more but below `wanted` a 403.
 */
export function requireLevel(level: PermissionLevel, wanted: PermissionLevel): void {
  if (!atLeast(level, 'view')) throw new Problem(problems.notFound())
  if (!atLeast(level, wanted)) throw forbidden()
}

/**
 * A SQL condition true for the rows the actor may see, given SQL for a row's document id, project
 * id and folder path (null at the project's top). The entries are few (they are the actor's own and
 * their role's), so the nearest-entry rule becomes one CASE: document entries, then folder entries
 * deepest first, then project entries, then the role's default. No subquery per row.
 */
export function visibleCondition(actor: Actor, entries: readonly Entry[], row: { documentId?: SQL; projectId: SQL; folderPath: SQL }): SQL | undefined {
  if (actor.roleKey === 'admin' || entries.length === 0) return atLeast(roleDefault(actor), 'view') ? undefined : sql`false`
  const nearest = (kind: PermissionTarget) => {
    const byTarget = new Map<string, Entry>()
    for (const entry of entries.filter((e) => e.targetKind === kind)) {
      const seen = byTarget.get(entry.targetId)
      if (!seen || (entry.subjectKind === 'user' && seen.subjectKind === 'role')) byTarget.set(entry.targetId, entry)
    }
    return [...byTarget.values()].sort((a, b) => b.depth - a.depth)
  }
  // Literals, not parameters: a CASE of untyped parameters would be text, not boolean.
  const seen = (level: PermissionLevel) => sql.raw(atLeast(level, 'view') ? 'true' : 'false')
  const branches: SQL[] = []
  if (row.documentId) {
    for (const entry of nearest('document')) branches.push(sql`when ${row.documentId} = ${entry.targetId}::uuid then ${seen(entry.level)}`)
  }
  for (const entry of nearest('folder')) branches.push(sql`when ${row.folderPath} @> array[${entry.targetId}::uuid] then ${seen(entry.level)}`)
  for (const entry of nearest('project')) branches.push(sql`when ${row.projectId} = ${entry.targetId}::uuid then ${seen(entry.level)}`)
  return sql`(case ${sql.join(branches, sql` `)} else ${seen(roleDefault(actor))} end)`
}

/** The project ids among `projectIds` the actor may see at their top (for pickers and search filters). */
export function visibleProjects(actor: Actor, entries: readonly Entry[], projectIds: readonly string[]): string[] {
  return projectIds.filter((projectId) => atLeast(decide(actor, entries, { projectId, folderPath: [] }), 'view'))
}

/** Folder ids (of one project) the actor may not see: a hidden folder hides everything below it. */
export async function hiddenFolderIds(ctx: DomainContext, projectId: string, entries: readonly Entry[]): Promise<Set<string>> {
  const folderEntries = entries.filter((e) => e.targetKind === 'folder')
  if (ctx.actor.roleKey === 'admin' || (folderEntries.length === 0 && atLeast(decide(ctx.actor, entries, { projectId, folderPath: [] }), 'view'))) return new Set()
  const rows = await ctx.tx
    .select({ id: documentFolders.id, path: documentFolders.path })
    .from(documentFolders)
    .where(and(eq(documentFolders.tenantId, ctx.actor.tenantId), eq(documentFolders.projectId, projectId)))
  const hidden = new Set<string>()
  for (const row of rows) if (!atLeast(decide(ctx.actor, entries, { projectId, folderPath: row.path }), 'view')) hidden.add(row.id)
  return hidden
}

/** Which of `ids` name folders (of any project of the tenant); used to check permission targets. */
export async function existingFolders(ctx: DomainContext, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const rows = await ctx.tx
    .select({ id: documentFolders.id })
    .from(documentFolders)
    .where(and(eq(documentFolders.tenantId, ctx.actor.tenantId), inArray(documentFolders.id, [...ids])))
  return new Set(rows.map((r) => r.id))
}
