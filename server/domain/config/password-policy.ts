import type { Tx } from '#server/db/client'
import { Problem, problems } from '#server/http/problem'
import { passwordMinLengthIn } from './effective'

/**
 * Security › shortest password (admin configuration): a member's new password must be at least
 * this long where it is set for the organisation (changed, set by an admin, chosen with an
 * invitation). The instance's own minimum is checked first by the form schemas.
 */
export async function ensurePasswordPolicyIn(tx: Tx, tenantId: string, password: string, field: string): Promise<void> {
  const min = await passwordMinLengthIn(tx, tenantId)
  if (password.length >= min) return
  const message = `Use at least ${min} characters: your organisation asks for passwords this long.`
  throw new Problem(problems.badRequest(message, { [field]: [message] }))
}
