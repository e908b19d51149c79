import type { Config } from '#server/config'
import type { Database } from '#server/db/client'
import type { AuthSession } from '#server/domain/auth/sessions'
import type { LogRing } from '#server/domain/observability/log-ring'
import type { RequestScope } from '#server/domain/tenancy/request-scope'
import type { Logger } from './logger'

/**
 * The types every backend module shares: what the backend is built from and what each request
 * carries. They live apart from `server/api/app.ts` so that route files and middleware depend on
 * this module, and only `app.ts` depends on the route files (arrows point one way).
 */
export type BackendDeps = {
  config: Config
  db: Database
  logger: Logger
  /** Injected so tests can move time; defaults to the wall clock. */
  now: () => Date
  /** The logger's in-memory ring, for the admin logs tail (absent: the tail answers no lines). */
  logRing?: LogRing | undefined
}

/**
 * What the transport knows about the caller: the socket's address, for throttling and audit; and,
 * for the calls of one page request in process, the page's one request context (its session read
 * once, its reads in one tenant transaction: server/domain/tenancy/request-scope.ts).
 */
export type BackendBindings = { remoteAddress?: string | undefined; scope?: RequestScope<AuthSession | undefined> | undefined }

export type BackendEnv = {
  Bindings: BackendBindings
  Variables: {
    deps: BackendDeps
    correlationId: string
    log: Logger
    ip: string
    session: AuthSession | undefined
    sessionToken: string | undefined
    csrfToken: string
  }
}
