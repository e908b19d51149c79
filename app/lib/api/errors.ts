import { HEADERS } from '~/lib/constants'
import { messageFor } from './messages'
import type { ApiError, ApiResult, ErrorKind, ProblemDetails } from './types'

export function createApiError(init: {
  kind: ErrorKind
  status?: number | undefined
  data?: unknown
  problem?: ProblemDetails | undefined
  correlationId?: string | undefined
}): ApiError {
  return {
    kind: init.kind,
    status: init.status,
    data: init.data,
    problem: init.problem,
    correlationId: init.correlationId ?? init.problem?.correlationId,
    message: messageFor(init),
  }
}

/** The transport threw: the network failed (or the call was aborted by its caller). */
export function fetchError(cause: unknown): ApiError {
  return createApiError({ kind: 'FETCH_ERROR', data: cause instanceof Error ? cause.message : String(cause) })
}

export function timeoutError(): ApiError {
  return createApiError({ kind: 'TIMEOUT_ERROR' })
}

const NO_BODY_STATUSES = new Set([204, 205, 304])

/**
 * Turns a response into a result. The body is parsed as JSON whatever the content type claims,
 * as the client always asks for JSON. When that fails, it is a PARSING_ERROR (status and raw text
 * kept) if the response said it was JSON or succeeded; an error status with a non-JSON body (a
 * proxy's HTML error page) stays an HTTP error carrying the text, so the status rules of spec §8
 * (retry on 429, refresh on 401, the 5xx message) still apply to it.
 */
export async function readResponse<T>(response: Response): Promise<ApiResult<T>> {
  const { status, headers } = response
  const text = NO_BODY_STATUSES.has(status) ? '' : await response.text()
  const headerCorrelationId = headers.get(HEADERS.correlationId) ?? undefined
  let data: unknown
  if (text.trim() !== '') {
    try {
      data = JSON.parse(text)
    } catch {
      if (response.ok || isJsonContentType(headers.get('content-type'))) {
        return { ok: false, error: createApiError({ kind: 'PARSING_ERROR', status, data: text, correlationId: headerCorrelationId }) }
      }
      data = text
    }
  }
  if (response.ok) return { ok: true, status, data: data as T, headers }
  const problem = toProblemDetails(data, headers.get('content-type'))
  return {
    ok: false,
    error: createApiError({ kind: status, status, data, problem, correlationId: problem?.correlationId ?? headerCorrelationId }),
  }
}

export function isJsonContentType(contentType: string | null): boolean {
  if (!contentType) return false
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? ''
  return type === 'application/json' || type.endsWith('+json')
}

const STRING_FIELDS = ['title', 'detail', 'correlationId', 'code', 'remediation', 'type', 'instance'] as const
const KNOWN_FIELDS = new Set<string>([...STRING_FIELDS, 'status', 'retryAfterSeconds', 'errors'])

/**
 * The body typed as problem details when it looks like one: declared as problem+json, or an
 * object with a numeric status, a title or a code. Members of the wrong type are dropped, so
 * callers can trust the types.
 */
export function toProblemDetails(data: unknown, contentType: string | null = null): ProblemDetails | undefined {
  if (!isRecord(data)) return undefined
  const declared = contentType?.toLowerCase().includes('application/problem+json') ?? false
  const looksLikeOne = typeof data.status === 'number' || typeof data.title === 'string' || typeof data.code === 'string'
  if (!declared && !looksLikeOne) return undefined

  const problem: ProblemDetails = {}
  for (const [key, value] of Object.entries(data)) {
    // Extensions pass through; `__proto__` from JSON.parse would otherwise replace the prototype.
    if (!KNOWN_FIELDS.has(key) && key !== '__proto__') problem[key] = value
  }
  if (typeof data.status === 'number') problem.status = data.status
  for (const field of STRING_FIELDS) {
    const value = data[field]
    if (typeof value === 'string') problem[field] = value
  }
  if (typeof data.retryAfterSeconds === 'number') problem.retryAfterSeconds = data.retryAfterSeconds
  const errors = toFieldErrors(data.errors)
  if (errors) problem.errors = errors
  return problem
}

function toFieldErrors(value: unknown): Record<string, string[]> | undefined {
  if (!isRecord(value)) return undefined
  const errors: Record<string, string[]> = {}
  for (const [field, messages] of Object.entries(value)) {
    if (Array.isArray(messages)) errors[field] = messages.filter((m): m is string => typeof m === 'string')
    else if (typeof messages === 'string') errors[field] = [messages]
  }
  return errors
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
