import { atLeast } from '~/lib/documents/rules'
import type { PermissionLevel } from '~/lib/documents/types'
import { useShellSession } from '~/root'

/**
 * Whether the signed-in user may change a project's parties, matrix and deliverables
 * (docs/doc-control.md "Who may do what"): `manage` at the project's top, and not a read-only
 * member. The screens offer their forms only then; the backend decides anyway.
 */
export function useCanManage(access: PermissionLevel | null | undefined): boolean {
  const session = useShellSession()
  if (!session || !access) return false
  if (session.isAdmin) return true
  return session.roles.includes('ReadWrite') && atLeast(access, 'manage')
}
