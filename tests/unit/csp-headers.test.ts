import { expect, test } from 'vitest'
import type { Backend } from '#server/api/app'
import { loadConfig } from '#server/config'
import { verifyCspReportToken } from '#server/domain/observability/csp'
import { createLogger } from '#server/http/logger'
import { createFrontDoor } from '#server/web/front-door'

/** The CSP of a page names the report endpoint (server/web/front-door.ts), with the organisation's token when drawn for a member. */

const SECRET = 'unit-test-secret-0123456789abcdefghijklmnopqrstuv'
const TENANT = '3f2c1e6a-9b7d-4c2e-8a1f-0d9e8c7b6a51'

function frontDoor(publicUrl: string, session: object | null) {
  const config = loadConfig({ NODE_ENV: 'production', SESSION_SECRET: SECRET, PUBLIC_URL: publicUrl, DATA_DIR: '/tmp/sp-unit-csp', LOG_LEVEL: 'silent' })
  const backend = {
    fetch: () => Promise.resolve(session ? Response.json(session) : Response.json({ title: 'Unauthorized' }, { status: 401 })),
  } as unknown as Backend
  return createFrontDoor({
    config,
    logger: createLogger('silent'),
    backend,
    clientDir: undefined,
    web: async (_request, context) => {
      await context.backend(new Request('http://portal.test/auth/session'))
      return new Response('<html></html>', { headers: { 'content-type': 'text/html' } })
    },
  })
}

test('over https: report-to with Reporting-Endpoints and report-uri, both with the organisation’s signed token', async () => {
  const response = await frontDoor('https://portal.example', { tenantId: TENANT, requiresMfa: false }).request('https://portal.example/dashboard')
  const csp = response.headers.get('content-security-policy') ?? ''
  const endpoints = response.headers.get('reporting-endpoints') ?? ''
  expect(csp).toMatch(/; report-uri \/telemetry\/csp-reports\?o=\S+; report-to csp-endpoint$/)
  const token = decodeURIComponent(/o=([^";\s]+)/.exec(endpoints)![1]!)
  expect(endpoints).toBe(`csp-endpoint="/telemetry/csp-reports?o=${encodeURIComponent(token)}"`)
  expect(verifyCspReportToken(SECRET, token, new Date())).toBe(TENANT)
})

test('over http: report-uri alone (Chromium ignores Reporting-Endpoints there, and report-uri beside report-to)', async () => {
  const response = await frontDoor('http://portal.lan:3000', { tenantId: TENANT, requiresMfa: false }).request('http://portal.lan:3000/dashboard')
  expect(response.headers.get('content-security-policy')).toMatch(/; report-uri \/telemetry\/csp-reports\?o=\S+$/)
  expect(response.headers.get('reporting-endpoints')).toBeNull()
})

test('a page for no one signed in, or half signed in, reports without a token', async () => {
  for (const session of [null, { tenantId: TENANT, requiresMfa: true }]) {
    const response = await frontDoor('https://portal.example', session).request('https://portal.example/auth/login')
    expect(response.headers.get('content-security-policy')).toContain('; report-uri /telemetry/csp-reports; report-to csp-endpoint')
    expect(response.headers.get('reporting-endpoints')).toBe('csp-endpoint="/telemetry/csp-reports"')
  }
})
