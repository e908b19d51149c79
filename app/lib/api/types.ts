/** The shapes of the API client (spec §7 "Common to all calls", spec §8). */
import type { Answer, CallArgs, ContractMethod, PathsWith } from './typed'

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** Spec §8 "Fetch error kinds": three named kinds, or the numeric HTTP status. */
export type ErrorKind = 'FETCH_ERROR' | 'TIMEOUT_ERROR' | 'PARSING_ERROR' | number

/** Spec §3 "Error shape": RFC 9457 problem details as the backend sends them. */
export type ProblemDetails = {
  status?: number
  title?: string
  detail?: string
  correlationId?: string
  code?: string
  remediation?: string
  type?: string
  instance?: string
  retryAfterSeconds?: number
  /** Field-by-field validation errors, keyed by the request body's field names. */
  errors?: Record<string, string[]>
  [extension: string]: unknown
}

/**
 * A failed call. A plain object (no class, no Headers) so a loader can hand it to its component
 * as data.
 */
export type ApiError = {
  kind: ErrorKind
  /** The HTTP status when a response arrived (also for PARSING_ERROR), else undefined. */
  status: number | undefined
  /** The parsed body, or the raw text when it could not be parsed. */
  data: unknown
  problem: ProblemDetails | undefined
  correlationId: string | undefined
  /** The catalogue text of spec §8 "Messages" for this error. */
  message: string
}

export type ApiSuccess<T> = { ok: true; status: number; data: T; headers: Headers }
export type ApiFailure = { ok: false; error: ApiError }
export type ApiResult<T> = ApiSuccess<T> | ApiFailure

/** Why the client gave up on the session (spec §8 "Behaviour"). */
export type SignedOutReason = 'unauthorized' | 'blocked' | 'not-active' | 'expired'

export type Transport = (request: Request) => Promise<Response>

/** What the API client hands its request factory for one attempt. */
export type RequestParts = {
  method: string
  headers: Headers
  body: BodyInit | undefined
  /** Asked for only when something needs it: an AbortSignal is a cost of its own. */
  signal: () => AbortSignal
}

export type ApiClientOptions = {
  transport: Transport
  /**
   * Makes each attempt's request; default a web Request with the browser's cookies. The page
   * server's client makes a light one that stays in the process (app/lib/api/in-process-request.ts).
   */
  createRequest?: ((url: string, parts: RequestParts) => Request) | undefined
  /** Absolute origin the paths are resolved against, e.g. `https://portal.example`. */
  origin: string
  getCsrfToken: () => string | undefined
  clientId: string
  os: string
  /** Applies to each attempt when a call sets no timeout of its own; none when undefined. */
  defaultTimeoutMs?: number | undefined
  onSignedOut?: ((reason: SignedOutReason) => void) | undefined
  onBlocked?: ((correlationId: string | undefined) => void) | undefined
  onTenantCleared?: (() => void) | undefined
  /**
   * Whether a session refresh could succeed at all; default yes. The server-side client answers
   * no when the browser sent no session cookie: the refresh needs that cookie, so an anonymous
   * visitor's 401 is final and costs one backend call, not two.
   */
  canRefreshSession?: (() => boolean) | undefined
  /**
   * Hears every successful answer of a contract call (the typed surface) with its path template:
   * the browser checks it against the contract and reports a mismatch (app/lib/api/answer-check.ts).
   */
  onAnswer?: ((answer: { method: string; template: string; status: number; data: unknown; correlationId: string | undefined }) => void) | undefined
  /** Injected for tests; default setTimeout-based. */
  sleep?: ((ms: number) => Promise<void>) | undefined
  /** Injected for tests; default Date.now. */
  now?: (() => number) | undefined
}

export type RequestOptions = {
  method?: HttpMethod | undefined
  /** JSON-encoded unless FormData, Blob, ArrayBuffer (or a view of one) or URLSearchParams. */
  body?: unknown
  headers?: HeadersInit | undefined
  timeoutMs?: number | undefined
  signal?: AbortSignal | undefined
  /** true: a fresh key for this logical call; a string: that key. Added anyway for spec §5 areas. */
  idempotencyKey?: true | string | undefined
}

export type MethodOptions = Omit<RequestOptions, 'method' | 'body'>

/** A call of the contract: its path as the contract writes it, checked with its init and answer by the compiler. */
export type ContractCall<M extends ContractMethod> = <P extends PathsWith<M>>(path: P, ...init: CallArgs<P, M, MethodOptions>) => Promise<ApiResult<Answer<P, M>>>

export type ApiClient = {
  GET: ContractCall<'get'>
  POST: ContractCall<'post'>
  PUT: ContractCall<'put'>
  PATCH: ContractCall<'patch'>
  DELETE: ContractCall<'delete'>
  request: <T = unknown>(path: string, options?: RequestOptions) => Promise<ApiResult<T>>
  get: <T = unknown>(path: string, options?: MethodOptions) => Promise<ApiResult<T>>
  post: <T = unknown>(path: string, body?: unknown, options?: MethodOptions) => Promise<ApiResult<T>>
  put: <T = unknown>(path: string, body?: unknown, options?: MethodOptions) => Promise<ApiResult<T>>
  patch: <T = unknown>(path: string, body?: unknown, options?: MethodOptions) => Promise<ApiResult<T>>
  del: <T = unknown>(path: string, options?: MethodOptions & { body?: unknown }) => Promise<ApiResult<T>>
}
