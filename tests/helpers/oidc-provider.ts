import { generateKeyPairSync } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'

/**
 * A real OpenID Connect provider in the test process (oidc-provider, the certified OP by the
 * author of openid-client), on a random localhost port: one confidential client, PKCE required,
 * and our own tiny login page instead of its dev interactions, so a test decides who signs in and
 * which `amr` the ID token asserts. Consent is granted automatically. The login page is plain
 * HTML a browser (e2e) or `signInAt` (API tests, fetch with a cookie jar) can drive.
 */

export type TestAccount = { email?: string; emailVerified?: boolean; name?: string; amr?: string[] }

export type TestOidcProvider = {
  issuer: string
  clientId: string
  clientSecret: string
  /** Accounts by subject; add or change them at any time. */
  accounts: Map<string, TestAccount>
  /**
   * Follows an authorization URL as a browser would, signs in as `subject` on the login page (or
   * cancels, which the provider answers with access_denied), and answers the address the provider
   * sends the browser back to (our callback with code, state and iss, or error).
   */
  signInAt(authorizationUrl: string, subject: string | { cancel: true }): Promise<URL>
  close(): Promise<void>
}

export async function startOidcProvider(options: { redirectUris: string[]; clientId?: string; clientSecret?: string }): Promise<TestOidcProvider> {
  const clientId = options.clientId ?? 'site-portal'
  const clientSecret = options.clientSecret ?? 'test-client-secret-0123456789'
  const accounts = new Map<string, TestAccount>()

  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end()
  const server: Server = createServer((req, res) => handle(req, res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test-key', alg: 'RS256', use: 'sig' }] },
    cookies: { keys: ['oidc-test-cookie-key'] },
    // amr goes into every ID token, as Entra ID and Okta do (oidc-provider only sends the claims of the scopes asked for).
    claims: { openid: ['sub', 'amr'], email: ['email', 'email_verified'], profile: ['name'] },
    pkce: { required: () => true },
    // Explicit lifetimes (seconds), so the provider does not print a notice for each default it uses.
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 3600, IdToken: 600, Interaction: 600, Session: 3600 },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    // Consent is not what these tests are about: every sign-in grants the scopes asked for.
    async loadExistingGrant(ctx: { oidc: { client: { clientId: string }; session: { accountId: string }; provider: Provider } }) {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId })
      grant.addOIDCScope('openid email profile')
      await grant.save()
      return grant
    },
    async findAccount(_ctx: unknown, sub: string) {
      const account = accounts.get(sub)
      if (!account) return undefined
      return {
        accountId: sub,
        async claims() {
          return {
            sub,
            ...(account.email !== undefined && { email: account.email }),
            ...(account.emailVerified !== undefined && { email_verified: account.emailVerified }),
            ...(account.name !== undefined && { name: account.name }),
          }
        },
      }
    },
    async renderError(ctx: { type: string; body: string }, out: Record<string, string>) {
      ctx.type = 'html'
      ctx.body = `<!doctype html><title>Provider error</title><p>${escapeHtml(out.error ?? 'error')}: ${escapeHtml(out.error_description ?? '')}</p>`
    },
  })
  const callback = provider.callback()

  handle = (req, res) => {
    const match = /^\/interaction\/([\w-]+)(\/login|\/cancel)?$/.exec(req.url ?? '')
    if (!match) return callback(req, res)
    interaction(req, res, match[2]).catch((error: unknown) => {
      res.statusCode = 500
      res.end(String(error))
    })
  }

  async function interaction(req: IncomingMessage, res: ServerResponse, action: string | undefined) {
    const details = await provider.interactionDetails(req, res)
    if (req.method === 'GET') {
      res.setHeader('content-type', 'text/html; charset=utf-8')
      res.end(loginPage(details.uid))
      return
    }
    const form = new URLSearchParams(await bodyOf(req))
    if (action === '/cancel') {
      await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The person cancelled the sign-in.' }, { mergeWithLastSubmission: false })
      return
    }
    const subject = form.get('login') ?? ''
    const account = accounts.get(subject)
    if (!account) {
      res.statusCode = 400
      res.setHeader('content-type', 'text/html; charset=utf-8')
      res.end(loginPage(details.uid, 'No such account.'))
      return
    }
    await provider.interactionFinished(req, res, { login: { accountId: subject, ...(account.amr && { amr: account.amr }) } }, { mergeWithLastSubmission: false })
  }

  async function signInAt(authorizationUrl: string, subject: string | { cancel: true }): Promise<URL> {
    const cookies = new Map<string, string>()
    const send = async (url: string, init: RequestInit = {}) => {
      const headers = new Headers(init.headers)
      headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '))
      const response = await fetch(url, { ...init, headers, redirect: 'manual' })
      for (const line of response.headers.getSetCookie()) {
        const [pair = ''] = line.split(';')
        const at = pair.indexOf('=')
        if (at > 0) cookies.set(pair.slice(0, at), pair.slice(at + 1))
      }
      await response.body?.cancel()
      return response
    }
    const location = (response: Response, base: string) => {
      const target = response.headers.get('location')
      if (!target) throw new Error(`The provider answered ${response.status} without a redirect at ${base}`)
      return new URL(target, base).href
    }
    let url = location(await send(authorizationUrl), authorizationUrl)
    const uid = /\/interaction\/([\w-]+)$/.exec(new URL(url).pathname)?.[1]
    if (!uid) return new URL(url)
    const body = typeof subject === 'string' ? new URLSearchParams({ login: subject }) : new URLSearchParams()
    url = location(await send(`${issuer}/interaction/${uid}/${typeof subject === 'string' ? 'login' : 'cancel'}`, { method: 'POST', body }), issuer)
    // The provider resumes the authorization (/auth/{uid}) and redirects to the client.
    for (let hop = 0; hop < 3 && url.startsWith(issuer); hop++) url = location(await send(url), url)
    return new URL(url)
  }

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    signInAt,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function loginPage(uid: string, error?: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test identity provider</title></head><body><main>
<h1>Test identity provider</h1>${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/interaction/${uid}/login"><label>Account <input name="login" autocomplete="username"></label> <button type="submit">Sign in at the provider</button></form>
<form method="post" action="/interaction/${uid}/cancel"><button type="submit">Cancel</button></form>
</main></body></html>`
}

function bodyOf(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (text += chunk))
    req.on('end', () => resolve(text))
    req.on('error', reject)
  })
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}
