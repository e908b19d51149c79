import { DEMO } from '#server/db/demo-accounts'
import { currentTotp } from '#server/domain/auth/totp'

/**
 * What the benches that start the built server share: wait until it answers, then sign in as the
 * seeded demo user the way a browser does (CSRF cookie from GET /auth/session, then POST /auth/login).
 * A first start builds the data folder: up to three minutes on a busy machine.
 */
export async function waitForHealth(base: string, attempts = 900): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) return
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error('server did not start')
}

export type DemoSession = {
  /** Every cookie the server set, by name. */
  cookies: Map<string, string>
  /** The headers of a signed-in unsafe call: cookie, CSRF token and origin. */
  headers: Record<string, string>
}

export async function signInDemo(base: string): Promise<DemoSession> {
  return signIn(base, 'user')
}

/** The demo administrator through the admin sign-in and its second factor, as the Administration area needs. */
export async function signInDemoAdmin(base: string): Promise<DemoSession> {
  return signIn(base, 'admin')
}

async function signIn(base: string, kind: 'user' | 'admin'): Promise<DemoSession> {
  const cookies = new Map<string, string>()
  const remember = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const at = pair.indexOf('=')
      if (at > 0) cookies.set(pair.slice(0, at), pair.slice(at + 1))
    }
  }
  const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  const session = await fetch(`${base}/auth/session`, { headers: { accept: 'application/json' } })
  remember(session)
  await session.body?.cancel()
  const csrf = () => cookies.get([...cookies.keys()].find((k) => k.endsWith('csrf')) ?? 'sp_csrf') ?? ''
  const who = kind === 'admin' ? DEMO.admin : DEMO.user
  const login = await fetch(`${base}/auth/${kind === 'admin' ? 'admin/login' : 'login'}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: cookieHeader(), 'x-csrf-token': csrf(), origin: base },
    body: JSON.stringify({ email: who.email, password: who.password }),
  })
  remember(login)
  if (!login.ok) throw new Error(`sign-in failed: ${login.status} ${await login.text()}`)
  await login.body?.cancel()
  if (kind === 'admin') {
    const verify = await fetch(`${base}/auth/mfa/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: cookieHeader(), 'x-csrf-token': csrf(), origin: base },
      body: JSON.stringify({ code: await currentTotp(DEMO.adminTotpSecret) }),
    })
    remember(verify)
    if (!verify.ok) throw new Error(`second factor failed: ${verify.status} ${await verify.text()}`)
    await verify.body?.cancel()
  }
  return { cookies, headers: { cookie: cookieHeader(), 'x-csrf-token': csrf(), origin: base } }
}
