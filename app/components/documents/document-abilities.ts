import { atLeast, ROLE_DEFAULT_LEVEL } from '~/lib/documents/rules'
import type { PermissionLevel } from '~/lib/documents/types'
import { type ShellSession, useShellSession } from '~/root'

/**
 * What the signed-in user may do in a folder of /documents, so the screen only offers forms that
 * will work. The API gives a document's page the caller's own level (`access`); a folder's is not
 * in the tree answer, so here it is the organisation role's default (docs/documents.md
 * "Permissions"): administrators manage, read-write members edit, read-only members view. An entry
 * set on a project or folder can lower or raise that; the backend decides, and a 403 shows.
 */
export function roleLevel(session: Pick<ShellSession, 'isAdmin' | 'roles'> | null): PermissionLevel {
  if (session?.isAdmin) return ROLE_DEFAULT_LEVEL.admin
  return session?.roles.includes('ReadWrite') ? ROLE_DEFAULT_LEVEL['read-write'] : ROLE_DEFAULT_LEVEL['read-only']
}

export type FolderAbilities = { upload: boolean; createFolders: boolean }

export function useFolderAbilities(): FolderAbilities {
  const level = roleLevel(useShellSession())
  return { upload: atLeast(level, 'upload'), createFolders: atLeast(level, 'edit') }
}
