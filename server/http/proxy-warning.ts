import type { Context } from 'hono'
import type { Config } from '#server/config'
import type { BackendEnv } from '#server/http/env'
import type { Logger } from '#server/http/logger'

const warned = new WeakSet<Config>()

/**
 * Behind a reverse proxy without TRUST_PROXY, every request comes from the proxy's address, so the
 * per-address limits (sign-in failures, mail-sending calls) would count all users together and
 * lock them all out at once. A request carrying X-Forwarded-For while the setting is off is the
 * sign of that set-up: say so once per server, on the first such request.
 */
export function warnIfProxyUntrusted(server: { config: Config; logger: Logger }, request: Request): void {
  const { config, logger } = server
  if (config.trustProxy || warned.has(config) || !request.headers.has('x-forwarded-for')) return
  warned.add(config)
  logger.warn(
    { event: 'Config.TrustProxy.Off' },
    'Requests carry X-Forwarded-For but TRUST_PROXY is off: every client behind the proxy shares its address for the sign-in ' +
      'and mail limits, so one person’s failures can lock everyone out. Set TRUST_PROXY=true if a proxy you trust sets this header.',
  )
}

/** The backend's auth calls check each request they throttle. */
export function warnForRequest(c: Context<BackendEnv>): void {
  warnIfProxyUntrusted(c.get('deps'), c.req.raw)
}
