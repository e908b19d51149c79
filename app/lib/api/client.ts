import { CLIENT_VERSION, HEADERS } from '~/lib/constants'
import { fetchError, readResponse, timeoutError } from './errors'
import { isTenantProblem, signOutReasonOf } from './error-rules'
import { isUnsafeMethod, needsIdempotencyKey, resolveApiPath, SESSION_REFRESH_PATH, skipsSessionRefresh } from './paths'
import { randomUuid } from './random'
import { isRetryable, parseRetryAfter, retryDelayMs } from './retry'
import { createSessionRefresher } from './session-refresh'
import { callPath, type ContractMethod } from './typed'
import type { ApiClient, ApiClientOptions, ApiResult, ContractCall, HttpMethod, MethodOptions, RequestOptions, RequestParts, SignedOutReason } from './types'

type Attempt<T> = { result: ApiResult<T>; retryAfterMs?: number | undefined }

const TIMED_OUT = Symbol('timed out')

/**
 * The one API client of the app (DESIGN.md "One contract, two transports"): the rules of spec §7
 * "Common to all calls" and spec §8, over any `Request → Response` transport. It never throws for
 * a failed call; it answers `{ ok: false, error }`.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const sleep = options.sleep ?? defaultSleep
  const createRequest = options.createRequest ?? webRequest
  const now = options.now ?? Date.now
  const refreshSession = createSessionRefresher(async () => {
    const result = await request(SESSION_REFRESH_PATH, { method: 'POST' })
    if (result.ok) return 'refreshed'
    return signOutReasonOf(result.error) ? 'signed-out' : 'failed'
  }, now)

  function signOut(reason: SignedOutReason): void {
    options.onSignedOut?.(reason)
  }

  async function request<T = unknown>(path: string, init: RequestOptions = {}): Promise<ApiResult<T>> {
    const method = init.method ?? 'GET'
    const url = new URL(resolveApiPath(path), options.origin).href
    // One key for the whole logical call, so the server can tell a retry from a new request.
    const idempotencyKey =
      typeof init.idempotencyKey === 'string'
        ? init.idempotencyKey
        : init.idempotencyKey === true || needsIdempotencyKey(method, path)
          ? randomUuid()
          : undefined
    let retries = 0
    let refreshed = false
    let tenantRetried = false

    for (;;) {
      const { result, retryAfterMs } = await attempt<T>(url, method, init, idempotencyKey)
      if (result.ok) return result
      const { error } = result

      if (isRetryable(error) && !init.signal?.aborted) {
        const delay = retryDelayMs(retries, retryAfterMs)
        if (delay !== undefined) {
          retries += 1
          await sleep(delay)
          continue
        }
      }

      const reason = signOutReasonOf(error)
      if (reason) {
        if (reason === 'blocked') options.onBlocked?.(error.correlationId)
        signOut(reason)
        return result
      }

      if (isTenantProblem(error) && !tenantRetried) {
        tenantRetried = true
        options.onTenantCleared?.()
        continue
      }

      if (error.status === 401 && !skipsSessionRefresh(method, path)) {
        if (refreshed) {
          signOut('unauthorized')
          return result
        }
        refreshed = true
        const outcome = options.canRefreshSession?.() === false ? 'failed' : await refreshSession()
        if (outcome === 'signed-out') return result
        if (outcome === 'failed') {
          signOut('unauthorized')
          return result
        }
        // Refreshed, or throttled because another call refreshed moments ago: try once more.
        continue
      }

      return result
    }
  }

  async function attempt<T>(url: string, method: HttpMethod, init: RequestOptions, idempotencyKey: string | undefined): Promise<Attempt<T>> {
    if (init.signal?.aborted) return { result: { ok: false, error: fetchError(init.signal.reason ?? 'Aborted') } }
    const headers = buildHeaders(method, init, idempotencyKey)
    const body = encodeBody(init.body, headers)
    const controller = lazyAbortController()
    // Built outside the try: a malformed call (a GET with a body) is a bug to throw, not a network error.
    const request = createRequest(url, { method, headers, body, signal: () => controller.signal })
    const work = options.transport(request).then(async (response) => ({
      result: await readResponse<T>(response),
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), now()),
    }))
    try {
      const outcome = await withDeadline(work, init.timeoutMs ?? options.defaultTimeoutMs, controller, init.signal)
      if (outcome === TIMED_OUT) return { result: { ok: false, error: timeoutError() } }
      const { result } = outcome
      const problemRetryAfter = result.ok ? undefined : result.error.problem?.retryAfterSeconds
      const retryAfterMs = outcome.retryAfterMs ?? (problemRetryAfter === undefined ? undefined : problemRetryAfter * 1000)
      return { result, retryAfterMs }
    } catch (cause) {
      return { result: { ok: false, error: fetchError(cause) } }
    }
  }

  function buildHeaders(method: HttpMethod, init: RequestOptions, idempotencyKey: string | undefined): Headers {
    const headers = new Headers({
      Accept: 'application/json',
      [HEADERS.requestedWith]: 'XMLHttpRequest',
      [HEADERS.clientId]: options.clientId,
      [HEADERS.clientVersion]: CLIENT_VERSION,
      [HEADERS.clientOs]: options.os,
    })
    if (isUnsafeMethod(method)) {
      // Read per attempt: a refresh or sign-in in between may have rotated the token.
      const token = options.getCsrfToken()
      if (token) headers.set(HEADERS.csrf, token)
    }
    if (idempotencyKey) headers.set(HEADERS.idempotencyKey, idempotencyKey)
    new Headers(init.headers).forEach((value, name) => headers.set(name, value))
    return headers
  }

  /** The typed surface: the same request, with the path filled from the contract's template. */
  function contractCall<M extends ContractMethod>(method: M): ContractCall<M> {
    return ((template: string, init: MethodOptions & { path?: Record<string, unknown>; query?: Record<string, unknown> | URLSearchParams; body?: unknown } = {}) => {
      const { path, query, body, ...rest } = init
      const upper = method.toUpperCase() as HttpMethod
      const answered = request(callPath(template, path, query), { ...rest, method: upper, body })
      if (!options.onAnswer) return answered
      return answered.then((result) => {
        if (result.ok) {
          const correlationId = result.headers.get(HEADERS.correlationId) ?? undefined
          // A listener's failure is its own: the caller has its answer either way.
          try {
            options.onAnswer?.({ method: upper, template, status: result.status, data: result.data, correlationId })
          } catch {
            // ignored on purpose
          }
        }
        return result
      })
    }) as ContractCall<M>
  }

  return {
    GET: contractCall('get'),
    POST: contractCall('post'),
    PUT: contractCall('put'),
    PATCH: contractCall('patch'),
    DELETE: contractCall('delete'),
    request,
    get: (path, init) => request(path, { ...init, method: 'GET' }),
    post: (path, body, init) => request(path, { ...init, method: 'POST', body }),
    put: (path, body, init) => request(path, { ...init, method: 'PUT', body }),
    patch: (path, body, init) => request(path, { ...init, method: 'PATCH', body }),
    del: (path, init) => request(path, { ...init, method: 'DELETE' }),
  }
}

/** Spec §7: bodies are JSON, except binary and form bodies, which pass untouched (chunked uploads). */
function encodeBody(body: unknown, headers: Headers): BodyInit | undefined {
  if (body === undefined) return undefined
  if (
    body instanceof FormData ||
    body instanceof Blob ||
    body instanceof URLSearchParams ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body)
  ) {
    return body as BodyInit
  }
  if (!headers.has('content-type')) headers.set('content-type', 'application/json')
  return JSON.stringify(body)
}

/** The browser's request, and the default: a web Request, with the browser's cookies. */
export function webRequest(url: string, parts: RequestParts): Request {
  return new Request(url, { method: parts.method, headers: parts.headers, body: parts.body, credentials: 'include', signal: parts.signal() })
}

/**
 * An AbortController made when its signal is first asked for, aborted then if the attempt already
 * ended: a call that stays in the process rarely asks (issue 37).
 */
function lazyAbortController(): Pick<AbortController, 'signal' | 'abort'> {
  let controller: AbortController | undefined
  let aborted: { reason: unknown } | undefined
  return {
    get signal() {
      controller ??= new AbortController()
      if (aborted && !controller.signal.aborted) controller.abort(aborted.reason)
      return controller.signal
    },
    abort(reason?: unknown) {
      aborted ??= { reason }
      controller?.abort(reason)
    },
  }
}

/**
 * Settles with the work, or TIMED_OUT when the timeout passes first, or rejects when the caller
 * aborts. The whole attempt (headers and body) counts, and the request is aborted either way so a
 * real fetch stops downloading.
 */
function withDeadline<T>(
  work: Promise<T>,
  timeoutMs: number | undefined,
  controller: Pick<AbortController, 'abort'>,
  callerSignal: AbortSignal | undefined,
): Promise<T | typeof TIMED_OUT> {
  return new Promise((resolve, reject) => {
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            cleanup()
            controller.abort(new DOMException('The request timed out.', 'TimeoutError'))
            resolve(TIMED_OUT)
          }, timeoutMs)
    function onAbort(): void {
      cleanup()
      controller.abort(callerSignal?.reason)
      reject(callerSignal?.reason ?? new DOMException('The request was aborted.', 'AbortError'))
    }
    function cleanup(): void {
      if (timer !== undefined) clearTimeout(timer)
      callerSignal?.removeEventListener('abort', onAbort)
    }
    callerSignal?.addEventListener('abort', onAbort, { once: true })
    work.then(
      (value) => {
        cleanup()
        resolve(value)
      },
      (error: unknown) => {
        cleanup()
        reject(error)
      },
    )
  })
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
