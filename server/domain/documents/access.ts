import { and, eq, inArray, or, sql, type SQL } from 'drizzle-orm'
import { documentFolders, documentPermissions, documents } from '#server/db/schema-documents'
import { Problem, problems } from '#server/http/problem'
import { atLeast, ROLE_DEFAULT_LEVEL } from '~/lib/documents/rules'
import type { PermissionLevel, PermissionTarget } from '~/lib/documents/types'
import type { Actor, DomainContext } from '../tenancy/context'

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
 * exactly like one that does not exist, and search never counts it. One exception keeps a deeper
 * entry reachable: the folders above a folder or document the caller may view are shown as
 * *restricted* (name only, nothing of what else is in them), as are their projects, so the tree
 * leads there (as ACC shows the parents of a folder one may open).
 */

export type Entry = {
  targetKind: PermissionTarget
  targetId: string
  projectId: string
  subjectKind: 'user' | 'role'
  level: PermissionLevel
  depth: number
  /** The folder path of the target: a folder's own, a document's folder's; empty for a project or a document at the top. */
  path: readonly string[]
}

/** Where a document or folder sits: its project, the folder ids from the top down (the folder itself last), and the document. */
export type Place = { projectId: string; folderPath: readonly string[]; documentId?: string }

/** The actor's entries (their own and their role's), with each folder entry's depth; optionally one project's. */
export async function actorEntries(ctx: DomainContext, projectId?: string): Promise<Entry[]> {
  return entriesFor(ctx, { userIds: [ctx.actor.userId], roleKeys: [ctx.actor.roleKey] }, projectId)
}

export type SubjectEntry = Entry & { subject: string }

/**
 * The entries of these people and of these roles (every role when none are named), each with its
 * subject: the actor's own through `actorEntries`, or many people's at once (who may review).
 */
export async function entriesFor(ctx: DomainContext, who: { userIds: readonly string[]; roleKeys?: readonly string[] }, projectId?: string): Promise<SubjectEntry[]> {
  const roles = who.roleKeys === undefined ? undefined : [...who.roleKeys]
  const rows = await ctx.tx
    .select({
      targetKind: documentPermissions.targetKind,
      targetId: documentPermissions.targetId,
      subjectKind: documentPermissions.subjectKind,
      subject: documentPermissions.subject,
      projectId: documentPermissions.projectId,
      level: documentPermissions.level,
      path: documentFolders.path,
    })
    .from(documentPermissions)
    .leftJoin(documents, and(eq(documentPermissions.targetKind, 'document'), eq(documents.tenantId, documentPermissions.tenantId), eq(documents.id, documentPermissions.targetId)))
    .leftJoin(
      documentFolders,
      and(
        eq(documentFolders.tenantId, documentPermissions.tenantId),
        or(
          and(eq(documentPermissions.targetKind, 'folder'), eq(documentFolders.id, documentPermissions.targetId)),
          and(eq(documentPermissions.targetKind, 'document'), eq(documentFolders.id, documents.folderId)),
        ),
      ),
    )
    .where(
      and(
        eq(documentPermissions.tenantId, ctx.actor.tenantId),
        projectId === undefined ? undefined : eq(documentPermissions.projectId, projectId),
        or(
          who.userIds.length === 0 ? undefined : and(eq(documentPermissions.subjectKind, 'user'), inArray(documentPermissions.subject, [...who.userIds])),
          roles === undefined
            ? eq(documentPermissions.subjectKind, 'role')
            : roles.length === 0
              ? undefined
              : and(eq(documentPermissions.subjectKind, 'role'), inArray(documentPermissions.subject, roles)),
        ),
      ),
    )
  return rows.map((row) => ({
    targetKind: row.targetKind as PermissionTarget,
    targetId: row.targetId,
    projectId: row.projectId,
    subjectKind: row.subjectKind as 'user' | 'role',
    subject: row.subject,
    level: row.level as PermissionLevel,
    depth: row.targetKind === 'folder' ? (row.path?.length ?? 0) : row.targetKind === 'document' ? Number.MAX_SAFE_INTEGER : 0,
    path: row.path ?? [],
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

/** Entries whose target the actor may view (by the whole rule, not the entry alone): everything above those targets is reachable. */
function grants(actor: Actor, entries: readonly Entry[], projectId: string): Entry[] {
  return entries.filter(
    (e) =>
      e.projectId === projectId &&
      e.targetKind !== 'project' &&
      atLeast(e.level, 'view') &&
      atLeast(decide(actor, entries, { projectId, folderPath: e.path, ...(e.targetKind === 'document' && { documentId: e.targetId }) }), 'view'),
  )
}

/** A project the actor may not view at its top, but with a folder or document inside they may view. */
export function reachableProject(actor: Actor, entries: readonly Entry[], projectId: string): boolean {
  return grants(actor, entries, projectId).length > 0
}

/** A folder the actor may not view, above a folder or document they may view: shown by name only. */
export function restrictedFolder(actor: Actor, entries: readonly Entry[], projectId: string, folderId: string): boolean {
  return grants(actor, entries, projectId).some((e) => e.path.includes(folderId) && !(e.targetKind === 'folder' && e.targetId === folderId))
}

export type FolderVisibility = { hidden: Set<string>; restricted: Set<string> }

/**
 * Which folders of a project the actor may not view (`hidden`), and which of those lead to something
 * they may view (`restricted`: shown by name only). One query, and only when entries can hide
 * anything; every caller of a request shares the answer.
 */
export async function folderVisibility(ctx: DomainContext, projectId: string, entries: readonly Entry[]): Promise<FolderVisibility> {
  const none: FolderVisibility = { hidden: new Set(), restricted: new Set() }
  if (ctx.actor.roleKey === 'admin') return none
  const topVisible = atLeast(decide(ctx.actor, entries, { projectId, folderPath: [] }), 'view')
  if (topVisible && !entries.some((e) => e.targetKind === 'folder' && e.projectId === projectId)) return none
  const rows = await ctx.tx
    .select({ id: documentFolders.id, path: documentFolders.path })
    .from(documentFolders)
    .where(and(eq(documentFolders.tenantId, ctx.actor.tenantId), eq(documentFolders.projectId, projectId)))
  const leadsTo = new Set(grants(ctx.actor, entries, projectId).flatMap((e) => e.path))
  const result: FolderVisibility = { hidden: new Set(), restricted: new Set() }
  for (const row of rows) {
    if (atLeast(decide(ctx.actor, entries, { projectId, folderPath: row.path }), 'view')) continue
    result.hidden.add(row.id)
    if (leadsTo.has(row.id)) result.restricted.add(row.id)
  }
  return result
}
