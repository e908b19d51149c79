import { and, eq, inArray } from 'drizzle-orm'
import { memberships, users } from '#server/db/schema'
import { documentPermissions } from '#server/db/schema-documents'
import { Problem, problems, type FieldErrors } from '#server/http/problem'
import { ROLE_DEFAULT_LEVEL } from '~/lib/documents/rules'
import type { PermissionEntry, PermissionLevel, Permissions, PermissionTarget } from '~/lib/documents/types'
import { roleKeyLabel } from '~/lib/auth/role'
import { recordChange } from '../tenancy/change-log'
import type { DomainContext } from '../tenancy/context'
import { bumpListRevision, listRevision, refuseStaleWrite } from '../tenancy/edit-conflict'
import { requireLevel, type Place } from './access'
import { findDocument, findFolder, findProject, recordDocumentAudit } from './places'

/**
 * GET and PUT of the permission entries on a project, folder or document (docs/documents.md
 * "Permissions"). Reading and changing them needs manage there.
 */

export type EntryInput = { subjectKind: 'user' | 'role'; subject: string; level: PermissionLevel }

const ROLES_WITH_ENTRIES = ['read-write', 'read-only'] as const

async function placeOf(ctx: DomainContext, target: PermissionTarget, targetId: string): Promise<Place> {
  switch (target) {
    case 'project': {
      const { level } = await findProject(ctx, targetId)
      requireLevel(level, 'manage')
      return { projectId: targetId, folderPath: [] }
    }
    case 'folder': {
      const { folder, level } = await findFolder(ctx, targetId)
      requireLevel(level, 'manage')
      return { projectId: folder.projectId, folderPath: folder.path }
    }
    case 'document': {
      const { level, place } = await findDocument(ctx, targetId)
      requireLevel(level, 'manage')
      return place
    }
  }
}

type Row = { targetKind: string; targetId: string; subjectKind: string; subject: string; level: string }

/** The entries at each place above `place` (and at it), nearest last. */
async function entriesAbove(ctx: DomainContext, place: Place): Promise<Row[]> {
  const targets = [place.projectId, ...place.folderPath, ...(place.documentId ? [place.documentId] : [])]
  return ctx.tx
    .select({
      targetKind: documentPermissions.targetKind,
      targetId: documentPermissions.targetId,
      subjectKind: documentPermissions.subjectKind,
      subject: documentPermissions.subject,
      level: documentPermissions.level,
    })
    .from(documentPermissions)
    .where(and(eq(documentPermissions.tenantId, ctx.actor.tenantId), eq(documentPermissions.projectId, place.projectId), inArray(documentPermissions.targetId, targets)))
}

async function names(ctx: DomainContext, rows: Array<{ subjectKind: string; subject: string }>): Promise<Map<string, string>> {
  const userIds = [...new Set(rows.filter((r) => r.subjectKind === 'user').map((r) => r.subject))]
  const found = userIds.length === 0 ? [] : await ctx.tx.select({ id: users.id, displayName: users.displayName }).from(users).where(inArray(users.id, userIds))
  return new Map(found.map((u) => [u.id, u.displayName]))
}

function entryOf(row: { subjectKind: string; subject: string; level: string }, people: Map<string, string>): PermissionEntry {
  const subjectKind = row.subjectKind as 'user' | 'role'
  const subjectName = subjectKind === 'user' ? (people.get(row.subject) ?? 'Former member') : roleKeyLabel(row.subject)
  return { subjectKind, subject: row.subject, subjectName, level: row.level as PermissionLevel }
}

/** GET …/permissions: the entries set here, and what each role and each person named above gets here from above. */
export async function getPermissions(ctx: DomainContext, target: PermissionTarget, targetId: string): Promise<Permissions> {
  return permissionsAt(ctx, await placeOf(ctx, target, targetId), target, targetId)
}

/** The entries at a place, without checking the caller (they were checked, and may have just changed their own). */
async function permissionsAt(ctx: DomainContext, place: Place, target: PermissionTarget, targetId: string): Promise<Permissions> {
  const rows = await entriesAbove(ctx, place)
  const here = rows.filter((r) => r.targetKind === target && r.targetId === targetId)
  const order = [place.projectId, ...place.folderPath]
  const above = rows
    .filter((r) => !(r.targetKind === target && r.targetId === targetId) && r.targetKind !== 'document')
    .sort((a, b) => order.indexOf(b.targetId) - order.indexOf(a.targetId))
  const people = await names(ctx, rows)
  const inherited: PermissionEntry[] = []
  for (const role of ROLES_WITH_ENTRIES) {
    const nearest = above.find((r) => r.subjectKind === 'role' && r.subject === role)
    inherited.push(entryOf({ subjectKind: 'role', subject: role, level: nearest?.level ?? ROLE_DEFAULT_LEVEL[role] }, people))
  }
  const seen = new Set<string>()
  for (const row of above) {
    if (row.subjectKind !== 'user' || seen.has(row.subject)) continue
    seen.add(row.subject)
    inherited.push(entryOf(row, people))
  }
  const { revision } = await listRevision(ctx, 'permissions', targetId)
  return { target, targetId, entries: here.map((r) => entryOf(r, people)).sort(bySubject), inherited, revision }
}

function bySubject(a: PermissionEntry, b: PermissionEntry): number {
  return a.subjectKind.localeCompare(b.subjectKind) || a.subjectName.localeCompare(b.subjectName)
}

/**
 * PUT …/permissions: replaces the entries set here. A person must be an active member of the
 * organisation; a role must be read-write or read-only (administrators always manage). Each
 * subject once. A save against an older revision of the entries here is refused (409
 * KR_EDIT_CONFLICT with the entries as they are now).
 */
export async function putPermissions(ctx: DomainContext, target: PermissionTarget, targetId: string, entries: EntryInput[], expectedRevision?: number): Promise<Permissions> {
  const place = await placeOf(ctx, target, targetId)
  const saved = await listRevision(ctx, 'permissions', targetId, { lock: true })
  await refuseStaleWrite(ctx, { ...saved, what: 'permissions' }, expectedRevision, () => permissionsAt(ctx, place, target, targetId))
  const errors: FieldErrors = {}
  const userIds = entries.filter((e) => e.subjectKind === 'user').map((e) => e.subject)
  const members =
    userIds.length === 0
      ? []
      : await ctx.tx
          .select({ userId: memberships.userId })
          .from(memberships)
          .where(
            and(
              eq(memberships.tenantId, ctx.actor.tenantId),
              eq(memberships.status, 'active'),
              inArray(
                memberships.userId,
                userIds.filter((id) => /^[0-9a-f-]{36}$/i.test(id)),
              ),
            ),
          )
  const active = new Set(members.map((m) => m.userId))
  const seen = new Set<string>()
  entries.forEach((entry, index) => {
    const at = `entries.${index}.subject`
    const key = `${entry.subjectKind}:${entry.subject}`
    if (seen.has(key)) (errors[at] ??= []).push('This person or role is listed twice.')
    seen.add(key)
    if (entry.subjectKind === 'user' && !active.has(entry.subject)) (errors[at] ??= []).push('Choose an active member of this organisation.')
    if (entry.subjectKind === 'role' && !(ROLES_WITH_ENTRIES as readonly string[]).includes(entry.subject))
      (errors[at] ??= []).push(entry.subject === 'admin' ? 'Administrators always manage documents: no entry is needed.' : 'Choose the read-write or the read-only role.')
  })
  if (Object.keys(errors).length > 0) throw new Problem(problems.badRequest('Some permission entries have problems.', errors))
  const before = await permissionsAt(ctx, place, target, targetId)
  await ctx.tx
    .delete(documentPermissions)
    .where(and(eq(documentPermissions.tenantId, ctx.actor.tenantId), eq(documentPermissions.targetKind, target), eq(documentPermissions.targetId, targetId)))
  if (entries.length > 0) {
    await ctx.tx.insert(documentPermissions).values(
      entries.map((e) => ({
        tenantId: ctx.actor.tenantId,
        projectId: place.projectId,
        targetKind: target,
        targetId,
        subjectKind: e.subjectKind,
        subject: e.subject,
        level: e.level,
        updatedBy: ctx.actor.userId,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      })),
    )
  }
  await bumpListRevision(ctx, 'permissions', targetId)
  await recordDocumentAudit(ctx, 'documents.permissions.changed', target, targetId, { from: before.entries, to: entries })
  // Who sees what changed: screens showing it revalidate (a project's own entries reach its folders' screens through the tree).
  if (target !== 'project') await recordChange(ctx, target === 'folder' ? 'DocumentFolder' : 'Document', targetId, 'Updated')
  return permissionsAt(ctx, place, target, targetId)
}
