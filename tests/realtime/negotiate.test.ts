import * as signalR from '@microsoft/signalr'
import { expect, test } from 'vitest'
import { ALLOWED_ORIGIN, client, negotiate, startHub } from './hub-server'

test('negotiate v1 answers a public id, a URL-safe token and the three transports', async () => {
  const server = await startHub()
  const body = await negotiate(server.url)
  expect(body.negotiateVersion).toBe(1)
  expect(body.connectionId).toMatch(/^[A-Za-z0-9_-]+$/)
  expect(body.connectionToken).toMatch(/^[A-Za-z0-9_.-]+$/)
  expect(body.connectionToken).not.toBe(body.connectionId)
  expect(body.availableTransports).toEqual([
    { transport: 'WebSockets', transferFormats: ['Text', 'Binary'] },
    { transport: 'ServerSentEvents', transferFormats: ['Text'] },
    { transport: 'LongPolling', transferFormats: ['Text', 'Binary'] },
  ])
  expect(body).not.toHaveProperty('useStatefulReconnect')
  await server.close()
})

test('negotiate without a version is v0: the token is the connectionId; the client connects with it', async () => {
  const server = await startHub()
  const body = await negotiate(server.url, '')
  expect(body.negotiateVersion).toBe(0)
  expect(body).not.toHaveProperty('connectionToken')
  expect(body.connectionId).toMatch(/^[A-Za-z0-9_.-]+\.[A-Za-z0-9_-]+$/)
  // The query key is case-insensitive; above the maximum answers the maximum.
  expect((await negotiate(server.url, 'NEGOTIATEVERSION=7')).negotiateVersion).toBe(1)
  expect(await negotiate(server.url, 'negotiateVersion=abc')).toEqual({ error: "The client requested an invalid protocol version 'abc'" })
  expect(await negotiate(server.url, 'negotiateVersion=-1')).toHaveProperty('error')
  await server.close()
})

test('the official client rejects with negotiate error text', async () => {
  const server = await startHub()
  const connection = new signalR.HubConnectionBuilder()
    .withUrl(`${server.url}?negotiateVersion=x`, { accessTokenFactory: () => 'alice-token' })
    .configureLogging(signalR.LogLevel.None)
    .build()
  await expect(connection.start()).rejects.toThrow("The client requested an invalid protocol version 'x'")
  await server.close()
})

test('useStatefulReconnect is answered only when asked for', async () => {
  const server = await startHub()
  expect((await negotiate(server.url, 'negotiateVersion=1&useStatefulReconnect=true')).useStatefulReconnect).toBe(true)
  expect(await negotiate(server.url, 'negotiateVersion=1&useStatefulReconnect=false')).not.toHaveProperty('useStatefulReconnect')
  await server.close()
})

test('negotiate: 401 without a principal, 405 for GET, 403 for a disallowed Origin', async () => {
  const server = await startHub()
  const anonymous = await fetch(`${server.url}/negotiate?negotiateVersion=1`, { method: 'POST' })
  expect(anonymous.status).toBe(401)
  const wrong = await fetch(`${server.url}/negotiate?negotiateVersion=1`, { method: 'POST', headers: { cookie: 'session=nope' } })
  expect(wrong.status).toBe(401)
  const viaCookie = await fetch(`${server.url}/negotiate?negotiateVersion=1`, { method: 'POST', headers: { cookie: 'session=bob-token' } })
  expect(viaCookie.status).toBe(200)
  expect((await fetch(`${server.url}/negotiate?negotiateVersion=1`, { headers: { authorization: 'Bearer alice-token' } })).status).toBe(405)
  const evil = await fetch(`${server.url}/negotiate?negotiateVersion=1`, {
    method: 'POST',
    headers: { origin: 'https://evil.example', authorization: 'Bearer alice-token' },
  })
  expect(evil.status).toBe(403)
  expect(evil.headers.get('access-control-allow-origin')).toBeNull()
  const stranger = client(server.url, { token: 'nobody' })
  await expect(stranger.start()).rejects.toThrow("Status code '401'")
  expect((await fetch(`http://127.0.0.1:${server.port}/elsewhere`)).status).toBe(404)
  await server.close()
})

test('CORS: an allowed Origin is reflected with credentials; the preflight answers 204 with the client headers', async () => {
  const server = await startHub()
  const preflight = await fetch(`${server.url}/negotiate?negotiateVersion=1`, {
    method: 'OPTIONS',
    headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-signalr-user-agent, authorization' },
  })
  expect(preflight.status).toBe(204)
  expect(preflight.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN)
  expect(preflight.headers.get('access-control-allow-credentials')).toBe('true')
  expect(preflight.headers.get('access-control-allow-headers')).toContain('x-signalr-user-agent')
  expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization')
  expect(preflight.headers.get('access-control-allow-methods')).toContain('DELETE')
  const post = await fetch(`${server.url}/negotiate?negotiateVersion=1`, {
    method: 'POST',
    headers: { origin: ALLOWED_ORIGIN, authorization: 'Bearer alice-token' },
  })
  expect(post.status).toBe(200)
  expect(post.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN)
  const evilPreflight = await fetch(`${server.url}`, { method: 'OPTIONS', headers: { origin: 'https://evil.example' } })
  expect(evilPreflight.status).toBe(403)
  await server.close()
})
