import { ERROR_CODES } from '~/lib/constants'
import type { ApiError, SignedOutReason } from './types'

/**
 * Spec §8 "Behaviour": the errors after which the local session is gone for good, whatever
 * call answered them: a blocked user (403 with the blocked code), a user no longer active (the
 * code, on any status) and an expired session (419).
 */
export function signOutReasonOf(error: ApiError): SignedOutReason | undefined {
  const code = error.problem?.code
  if (error.status === 403 && code === ERROR_CODES.userBlocked) return 'blocked'
  if (code === ERROR_CODES.userNotActive) return 'not-active'
  if (error.status === 419) return 'expired'
  return undefined
}

/** Spec §8: a 403 with a KR-TENANT- code means the stored tenant is stale. */
export function isTenantProblem(error: ApiError): boolean {
  return error.status === 403 && (error.problem?.code?.startsWith(ERROR_CODES.tenantPrefix) ?? false)
}
