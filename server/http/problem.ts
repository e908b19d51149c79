/**
 * RFC 9457 problem details with the fields of spec §3 "Error shape". Domain code throws these;
 * the backend's error handler turns them into application/problem+json responses.
 */
import type { ZodError } from 'zod'

export type FieldErrors = Record<string, string[]>

/** A zod failure as field errors, keyed by the dotted path of each field ('_' for the whole body). */
export function fieldErrors(error: ZodError): FieldErrors {
  return groupErrors(error.issues.map((issue) => [issue.path.join('.') || '_', issue.message]))
}

/**
 * Messages grouped by field. A Map, not a plain object: field names come from the request, and a
 * name like "valueOf" or "__proto__" must be a field like any other, not the object's prototype.
 */
export function groupErrors(entries: Iterable<[string, string]>): FieldErrors {
  const grouped = new Map<string, string[]>()
  for (const [field, message] of entries) grouped.set(field, [...(grouped.get(field) ?? []), message])
  return Object.fromEntries(grouped)
}

export type ProblemInit = {
  status: number
  title: string
  detail?: string | undefined
  code?: string | undefined
  remediation?: string | undefined
  type?: string | undefined
  retryAfterSeconds?: number | undefined
  /** Field-by-field validation errors, keyed by the request body's field names. */
  errors?: FieldErrors | undefined
  /** Extra members, e.g. the expected offset of an upload. */
  extensions?: Record<string, unknown> | undefined
}

export class Problem extends Error {
  readonly init: ProblemInit
  constructor(init: ProblemInit) {
    super(init.detail ?? init.title)
    this.init = init
  }
}

export type ProblemBody = {
  type: string
  title: string
  status: number
  detail?: string
  instance: string
  correlationId: string
  code?: string
  remediation?: string
  retryAfterSeconds?: number
  errors?: FieldErrors
  [extension: string]: unknown
}

export function problemBody(init: ProblemInit, instance: string, correlationId: string): ProblemBody {
  return {
    ...init.extensions,
    type: init.type ?? 'about:blank',
    title: init.title,
    status: init.status,
    ...(init.detail !== undefined && { detail: init.detail }),
    instance,
    correlationId,
    ...(init.code !== undefined && { code: init.code }),
    ...(init.remediation !== undefined && { remediation: init.remediation }),
    ...(init.retryAfterSeconds !== undefined && { retryAfterSeconds: init.retryAfterSeconds }),
    ...(init.errors !== undefined && { errors: init.errors }),
  }
}

export function problemResponse(init: ProblemInit, instance: string, correlationId: string): Response {
  const headers = new Headers({
    'content-type': 'application/problem+json',
    'cache-control': 'no-store',
    'x-correlation-id': correlationId,
  })
  if (init.retryAfterSeconds !== undefined) headers.set('retry-after', String(init.retryAfterSeconds))
  return new Response(JSON.stringify(problemBody(init, instance, correlationId)), { status: init.status, headers })
}

// Common problems, so the same case reads the same everywhere.
export const problems = {
  badRequest: (detail: string, errors?: FieldErrors): ProblemInit => ({
    status: 400,
    title: 'Invalid request',
    detail,
    code: 'KR_VALIDATION',
    remediation: 'Correct the fields listed in errors and send the request again.',
    errors,
  }),
  unauthorized: (detail = 'Sign in to continue.'): ProblemInit => ({
    status: 401,
    title: 'Unauthorized',
    detail,
    code: 'KR_UNAUTHENTICATED',
  }),
  forbidden: (detail = 'You do not have permission to perform this action.', code = 'KR_FORBIDDEN'): ProblemInit => ({
    status: 403,
    title: 'Forbidden',
    detail,
    code,
  }),
  notFound: (detail = 'The requested resource was not found.'): ProblemInit => ({
    status: 404,
    title: 'Not found',
    detail,
    code: 'KR_NOT_FOUND',
  }),
}
