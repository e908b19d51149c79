import type { AppLoadContext } from 'react-router'
import { expect, test } from 'vitest'
import { loader } from '~/root'

// Issue 8 §4: an anonymous page load makes one backend call for the session, not two.

type LoaderArgs = Parameters<typeof loader>[0]

function countingBackend(reply: (request: Request) => Response) {
  const calls: string[] = []
  const silent = { info() {}, warn() {}, error() {} }
  const context: AppLoadContext = {
    backend: async (request) => {
      calls.push(`${request.method} ${new URL(request.url).pathname}`)
      return reply(request)
    },
    cspNonce: 'nonce',
    remoteAddress: '203.0.113.9',
    oidcEnabled: false,
    logger: silent,
  }
  return { context, calls }
}

function unauthorized(): Response {
  return new Response(JSON.stringify({ status: 401, title: 'Unauthorized' }), {
    status: 401,
    headers: { 'content-type': 'application/problem+json' },
  })
}

async function load(path: string, cookie: string, context: AppLoadContext): Promise<Response | unknown> {
  const request = new Request(`https://portal.test${path}`, { headers: { cookie, accept: 'text/html' } })
  try {
    return await loader({ request, context, params: {} } as unknown as LoaderArgs)
  } catch (thrown) {
    return thrown
  }
}

test('an anonymous visit to a public screen asks for the session once and renders signed out', async () => {
  const { context, calls } = countingBackend(unauthorized)
  const result = await load('/auth/login', 'sp_cid=client-abcdef12', context)
  expect(calls).toEqual(['GET /auth/session'])
  expect(result).toMatchObject({ data: { session: null } })
})

test('an anonymous visit to a signed-in screen asks once, then goes to sign-in keeping the path', async () => {
  const { context, calls } = countingBackend(unauthorized)
  const result = await load('/items?status=open', '', context)
  expect(calls).toEqual(['GET /auth/session'])
  expect(result).toBeInstanceOf(Response)
  const location = (result as Response).headers.get('location') ?? ''
  expect(location.startsWith('/auth/login')).toBe(true)
  expect(location).toContain(encodeURIComponent('/items?status=open'))
})

test('a browser that sent a session cookie still gets the one refresh of spec §8 on a 401', async () => {
  for (const name of ['sp_session', '__Host-sp_session']) {
    const { context, calls } = countingBackend(unauthorized)
    await load('/auth/login', `${name}=stale; sp_cid=client-abcdef12`, context)
    // With a session cookie the telemetry switches are asked beside the session (issue 37: both
    // in the page's one shared transaction); the two 401s share the one refresh.
    expect(calls).toEqual(['GET /auth/session', 'GET /api/telemetry/settings', 'POST /auth/session/refresh'])
  }
})
