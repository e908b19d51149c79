import { atLeast } from '~/lib/documents/rules'
import type { PermissionLevel } from '~/lib/documents/types'

/**
 * What the signed-in user may do in a folder of /documents, so the screen only offers forms that
 * will work: from their own level there (the tree answer's `access`, docs/documents.md
 * "Permissions"). The backend decides again on every call.
 */
export type FolderAbilities = { upload: boolean; createFolders: boolean }

export function folderAbilities(level: PermissionLevel): FolderAbilities {
  return { upload: atLeast(level, 'upload'), createFolders: atLeast(level, 'edit') }
}
