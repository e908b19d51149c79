import { randomBytes, randomUUID } from 'node:crypto'
import type { BlobStore } from '#server/storage/blob-store'
import type { ConfigTestKind, ConfigTestResult } from '~/lib/admin/config'

/**
 * The configuration tests other than SMTP (server/mail/smtp.ts): each checks what it can from
 * here and says in words an admin acts on what failed. They run outside any transaction: an
 * unreachable server must not hold a database connection for its timeout.
 */

export type CheckResult = Omit<ConfigTestResult, 'testedBy'>

/** How long a test waits for a remote server: an admin is waiting for the answer. */
export const CHECK_TIMEOUT_MS = 10_000
/** A discovery document is a few KB; anything this large is not one. */
const DISCOVERY_MAX_BYTES = 512 * 1024

function timer(kind: ConfigTestKind, now: () => Date) {
  const started = performance.now()
  const testedAtUtc = now().toISOString()
  return (ok: boolean, message: string, detail?: string): CheckResult => ({ kind, ok, message, detail, testedAtUtc, durationMs: Math.round(performance.now() - started) })
}

function errorCode(error: unknown): string | undefined {
  const seen = new Set<unknown>()
  let current: unknown = error
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current)
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string') return code
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

const REQUIRED_DISCOVERY = ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const

/**
 * OIDC: fetches `{issuer}/.well-known/openid-configuration` and checks that it names the same
 * issuer and the endpoints sign-in needs (OpenID Connect Discovery 1.0 §4).
 */
export async function checkOidc(issuer: string, now: () => Date, timeoutMs = CHECK_TIMEOUT_MS): Promise<CheckResult> {
  const done = timer('oidc', now)
  const base = issuer.replace(/\/+$/, '')
  const url = `${base}/.well-known/openid-configuration`
  let response: Response
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow', headers: { accept: 'application/json' } })
  } catch (error) {
    const code = errorCode(error)
    if (code === 'ABORT_ERR' || code === 'UND_ERR_CONNECT_TIMEOUT' || (error instanceof Error && error.name === 'TimeoutError')) {
      return done(
        false,
        `The identity provider did not answer within ${Math.round(timeoutMs / 1000)} seconds. Check the issuer address and that the provider is reachable from this server.`,
        url,
      )
    }
    if (code === 'ECONNREFUSED') return done(false, `Nothing answers at ${new URL(url).host}. Check the issuer address and that the identity provider is running.`, code)
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return done(false, `The name ${new URL(url).hostname} does not resolve. Check the spelling of the issuer address.`, code)
    if (code?.startsWith('ERR_TLS') || code?.includes('CERT'))
      return done(false, `The identity provider’s TLS certificate is not trusted by this server (${code}). Check the issuer address, or its certificate.`, code)
    return done(false, `The identity provider could not be reached. Check the issuer address.`, code ?? messageOf(error))
  }
  if (!response.ok) {
    await response.body?.cancel()
    return done(
      false,
      response.status === 404
        ? `The identity provider has no discovery document at ${url}. Check the issuer address: it is usually the address of the realm or tenant, without /.well-known.`
        : `The identity provider answered ${response.status} for its discovery document. Check the issuer address and the provider’s state.`,
      `HTTP ${response.status}`,
    )
  }
  const raw = await response.text()
  if (raw.length > DISCOVERY_MAX_BYTES)
    return done(false, 'The address answered with something far too large for a discovery document. Check the issuer address.', `${raw.length} bytes`)
  let document: Record<string, unknown>
  try {
    const parsed: unknown = JSON.parse(raw)
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object')
    document = parsed as Record<string, unknown>
  } catch {
    return done(false, `The address answered, but not with a discovery document (JSON). Check the issuer address.`, response.headers.get('content-type') ?? undefined)
  }
  const named = typeof document.issuer === 'string' ? document.issuer : undefined
  if (!named) return done(false, 'The discovery document names no issuer. The provider is not set up for OpenID Connect.', undefined)
  if (named.replace(/\/+$/, '') !== base) {
    return done(false, `The provider calls itself ${named}, not ${issuer}. Enter exactly the issuer it names, or sign-in will be refused.`, `issuer: ${named}`)
  }
  const missing = REQUIRED_DISCOVERY.filter((key) => typeof document[key] !== 'string' || document[key] === '')
  if (missing.length > 0) return done(false, `The discovery document lacks ${missing.join(', ')}. The provider is not set up for sign-in with a client secret.`, undefined)
  return done(true, `The identity provider ${named} answered with a complete discovery document (sign-in, token and key addresses).`, undefined)
}

/** Redis (the realtime backplane): PING at REDIS_URL, never showing its password. */
export async function checkRedis(redisUrl: string | undefined, now: () => Date, timeoutMs = CHECK_TIMEOUT_MS): Promise<CheckResult> {
  const done = timer('redis', now)
  if (!redisUrl) {
    return done(
      true,
      'No Redis is set up: live updates run in memory, which is right for a single server. Nothing to check. Several servers need Redis, set up by whoever runs the server (operations guide).',
      'not-configured',
    )
  }
  const { hostname, port } = new URL(redisUrl)
  const where = `${hostname}:${port || '6379'}`
  let lastError: unknown
  // Loaded here, not with the server: only a server with Redis set up needs it.
  const { Redis } = await import('ioredis')
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  })
  // ioredis reports connection failures as events too; the answer below says what went wrong.
  redis.on('error', (error: unknown) => {
    lastError = error
  })
  try {
    await redis.connect()
    const answer = await redis.ping()
    return done(answer === 'PONG', answer === 'PONG' ? `Redis at ${where} answered.` : `Redis at ${where} answered unexpectedly.`, answer)
  } catch (error) {
    const failure = lastError ?? error
    const code = errorCode(failure)
    const text = messageOf(failure)
    if (code === 'ECONNREFUSED') return done(false, `Nothing answers at ${where}. Check that Redis is running and that the server’s Redis address names it.`, code)
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return done(false, `The name ${hostname} in the server’s Redis address does not resolve. Check its spelling.`, code)
    if (/NOAUTH|WRONGPASS|invalid password/i.test(text)) return done(false, `Redis at ${where} refused the password in the server’s Redis address.`, text.split('\n')[0])
    if (code === 'ETIMEDOUT' || /timed? ?out/i.test(text)) return done(false, `Redis at ${where} did not answer within ${Math.round(timeoutMs / 1000)} seconds.`, code ?? text)
    return done(false, `Redis at ${where} could not be reached.`, code ?? text.split('\n')[0])
  } finally {
    redis.disconnect()
  }
}

/** Storage: writes a small blob under the organisation's prefix, reads it back, removes it. */
export async function checkStorage(store: BlobStore, tenantId: string, now: () => Date): Promise<CheckResult> {
  const done = timer('storage', now)
  const key = `${tenantId}/config-test-${randomUUID()}`
  const bytes = randomBytes(1024)
  let step = 'write'
  try {
    await store.put(key, bytes)
    step = 'read'
    const chunks: Buffer[] = []
    for await (const chunk of store.read(key)) chunks.push(Buffer.from(chunk as Uint8Array))
    if (!Buffer.concat(chunks).equals(bytes))
      return done(false, 'A test file was written, but read back different. The storage is not reliable: check the disk.', 'content differs')
    step = 'delete'
    await store.delete(key)
    return done(true, 'A test file was written, read back and removed.', undefined)
  } catch (error) {
    await store.delete(key).catch(() => undefined)
    const code = errorCode(error)
    const why = code === 'ENOSPC' ? 'The disk is full.' : code === 'EACCES' || code === 'EPERM' ? 'The server may not write to its data folder.' : 'Check the server’s data folder.'
    return done(false, `The storage test could not ${step} a file. ${why}`, code ?? messageOf(error))
  }
}
