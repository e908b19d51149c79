import { DEMO } from '#server/db/seed'

/**
 * What the benches that start the built server share: wait until it answers, then sign in as the
 * seeded demo user the way a browser does (CSRF cookie from GET /auth/session, then POST /auth/login).
 */
export async function waitForHealth(base: string, attempts = 300): Promise<void> {
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
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: cookieHeader(), 'x-csrf-token': csrf(), origin: base },
    body: JSON.stringify({ email: DEMO.user.email, password: DEMO.user.password }),
  })
  remember(login)
  if (!login.ok) throw new Error(`sign-in failed: ${login.status} ${await login.text()}`)
  await login.body?.cancel()
  return { cookies, headers: { cookie: cookieHeader(), 'x-csrf-token': csrf(), origin: base } }
}
