import { createHash } from 'node:crypto'
import * as client from 'openid-client'
import type { Logger } from '#server/http/logger'
import { providerDown, providerError } from './errors'

/**
 * The organisation's OpenID Connect provider as openid-client sees it (docs/identity-provider.md).
 * Discovery (`{issuer}/.well-known/openid-configuration`) is cached for a few minutes per issuer,
 * client and secret, so a sign-in costs the provider one discovery per instance and then only
 * the token call; a changed configuration is a new key, so it applies at once.
 */

/** What we ask for: the subject, the e-mail address and whether it is verified, a display name. */
export const OIDC_SCOPES = 'openid email profile'
/** Seconds openid-client waits for any one answer of the provider. */
export const PROVIDER_TIMEOUT_S = 10
const DISCOVERY_TTL_MS = 5 * 60_000
const CACHE_LIMIT = 200

export type ProviderSettings = { issuer: string; clientId: string; clientSecret: string }

const cache = new Map<string, { configuration: client.Configuration; until: number }>()

function cacheKey(settings: ProviderSettings): string {
  return createHash('sha256').update(`${settings.issuer}\n${settings.clientId}\n${settings.clientSecret}`).digest('base64url')
}

/** Plain http is allowed only for a provider on this machine (the configuration's own rule). */
function isLoopbackHttp(issuer: URL): boolean {
  return issuer.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(issuer.hostname)
}

export async function providerConfiguration(settings: ProviderSettings, log: Logger, nowMs: number = Date.now()): Promise<client.Configuration> {
  const key = cacheKey(settings)
  const cached = cache.get(key)
  if (cached && cached.until > nowMs) return cached.configuration
  const issuer = new URL(settings.issuer)
  try {
    // client_secret_basic: the method every provider must support (RFC 6749 §2.3.1, OIDC Core §9).
    const configuration = await client.discovery(issuer, settings.clientId, settings.clientSecret, client.ClientSecretBasic(settings.clientSecret), {
      execute: isLoopbackHttp(issuer) ? [client.allowInsecureRequests] : [],
      timeout: PROVIDER_TIMEOUT_S,
    })
    if (cache.size >= CACHE_LIMIT) cache.clear()
    cache.set(key, { configuration, until: nowMs + DISCOVERY_TTL_MS })
    return configuration
  } catch (error) {
    throw providerFailure(error, log, 'discovery')
  }
}

/** Forgets a provider's discovery (after it failed us: its keys or endpoints may have changed). */
export function forgetProvider(settings: ProviderSettings): void {
  cache.delete(cacheKey(settings))
}

/**
 * A failed exchange with the provider as a problem: unreachable, timed out or a 5xx is "did not
 * answer"; anything else (a malformed document, a bad signature) is "an answer we could not
 * accept". The cause is logged for the administrator, never shown.
 */
export function providerFailure(error: unknown, log: Logger, step: string) {
  const down = isUnreachable(error)
  log.warn({ err: error, step, oidc: down ? 'provider-down' : 'provider-error' }, 'identity provider failed')
  return down ? providerDown() : providerError()
}

function isUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return true
  if (error instanceof TypeError && error.message === 'fetch failed') return true
  const cause = (error as { cause?: unknown }).cause
  if (cause instanceof Response) return cause.status >= 500
  return cause instanceof Error && cause !== error && isUnreachable(cause)
}
