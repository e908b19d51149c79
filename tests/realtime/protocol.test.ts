import { expect, test } from 'vitest'
import { client, eventually, negotiate, rawSocket, RS, startHub } from './hub-server'

const CLOSE_WITH_ERROR = `{"type":7,"error":"Connection closed with an error."}${RS}`

test('handshake: messagepack and unsupported versions are refused with .NET texts, then closed', async () => {
  const server = await startHub()
  const messagepack = await rawSocket(server.url, { handshake: false })
  messagepack.send(`{"protocol":"messagepack","version":1}${RS}`)
  expect(await messagepack.closed).toBe(1000)
  expect(messagepack.received.join('')).toBe(`{"error":"The protocol 'messagepack' is not supported."}${RS}`)
  const version = await rawSocket(server.url, { handshake: false })
  version.send(`{"protocol":"json","version":3}${RS}`)
  await version.closed
  expect(version.received.join('')).toBe(`{"error":"The server does not support version 3 of the 'json' protocol."}${RS}`)
  // Version 2 only when stateful reconnect was negotiated.
  const notStateful = await rawSocket(server.url, { handshake: false })
  notStateful.send(`{"protocol":"json","version":2}${RS}`)
  await notStateful.closed
  expect(notStateful.received.join('')).toContain('does not support version 2')
  const stateful = await rawSocket(server.url, {
    handshake: false,
    id: String((await negotiate(server.url, 'negotiateVersion=1&useStatefulReconnect=true')).connectionToken),
  })
  stateful.send(`{"protocol":"json","version":2}${RS}`)
  await stateful.waitFor(`{}${RS}`)
  stateful.ws.close()
  await server.close()
})

test('handshake: a ping before it closes the connection; no handshake closes after the timeout', async () => {
  const server = await startHub()
  const ping = await rawSocket(server.url, { handshake: false })
  ping.send(`{"type":6}${RS}`)
  await ping.closed
  expect(ping.received.join('')).not.toContain(`{}${RS}`)
  const silent = await rawSocket(server.url, { handshake: false })
  await silent.closed
  expect(silent.received).toEqual([])
  expect(server.connected).toEqual([])
  await server.close()
})

test('handshake reply may be followed by messages; a handshake and an invocation in one frame both work', async () => {
  const server = await startHub()
  const raw = await rawSocket(server.url, { handshake: false })
  raw.send(`{"protocol":"json","version":1}${RS}{"type":1,"invocationId":"0","target":"echo","arguments":["x"]}${RS}`)
  await raw.waitFor(`{"type":3,"invocationId":"0","result":"x"}${RS}`)
  expect(raw.received.join('').startsWith(`{}${RS}`)).toBe(true)
  raw.ws.close()
  await server.close()
})

test('invoke errors carry .NET texts; a HubError reaches the client verbatim; other errors stay on the server', async () => {
  const server = await startHub()
  const alice = client(server.url)
  await alice.start()
  await expect(alice.invoke('Nope')).rejects.toThrow(/^Unknown hub method 'Nope'$/)
  await expect(alice.invoke('Echo', 42)).rejects.toThrow(/^Failed to invoke 'Echo' due to an error on the server\.$/)
  await expect(alice.invoke('Echo')).rejects.toThrow("Failed to invoke 'Echo' due to an error on the server.")
  await expect(alice.invoke('Refuse')).rejects.toThrow(/^An unexpected error occurred invoking 'Refuse' on the server\. HubException: Not in this room$/)
  const boom = alice.invoke('Boom')
  await expect(boom).rejects.toThrow(/^An unexpected error occurred invoking 'Boom' on the server\.$/)
  // Still connected after all of it.
  expect(await alice.invoke('ECHO', 'still here')).toBe('still here')
  await alice.stop()
  await server.close()
})

test('send() gets no Completion; invocations run one at a time in order', async () => {
  const server = await startHub()
  const raw = await rawSocket(server.url)
  raw.send(`{"type":1,"target":"Echo","arguments":["fire and forget"]}${RS}`)
  raw.send(`{"type":1,"target":"Nope","arguments":[]}${RS}`)
  raw.send(`{"type":1,"invocationId":"a","target":"Sleep","arguments":[100]}${RS}{"type":1,"invocationId":"b","target":"Echo","arguments":["b"]}${RS}`)
  await raw.waitFor('"invocationId":"b"')
  const text = raw.received.join('')
  expect(text).not.toContain('fire and forget')
  expect(text).not.toContain('Unknown hub method')
  expect(text.indexOf('"invocationId":"a"')).toBeLessThan(text.indexOf('"invocationId":"b"'))
  raw.ws.close()
  await server.close()
})

test('streaming invocations are answered with Completion errors and the connection stays open', async () => {
  const server = await startHub()
  const raw = await rawSocket(server.url)
  raw.send(`{"type":4,"invocationId":"s1","target":"Echo","arguments":["x"]}${RS}`)
  await raw.waitFor(`{"type":3,"invocationId":"s1","error":"The client attempted to invoke the non-streaming 'Echo' method with a streaming invocation."}${RS}`)
  raw.send(`{"type":1,"invocationId":"s2","target":"Echo","arguments":["x"],"streamIds":["0"]}${RS}`)
  await raw.waitFor(`{"type":3,"invocationId":"s2","error":"An unexpected error occurred invoking 'Echo' on the server."}${RS}`)
  // Client stream items, completions, cancellations and unknown types are ignored.
  raw.send(`{"type":2,"invocationId":"0","item":1}${RS}{"type":3,"invocationId":"0"}${RS}{"type":5,"invocationId":"0"}${RS}{"type":42}${RS}`)
  raw.send(`{"type":1,"invocationId":"s3","target":"Echo","arguments":["alive"]}${RS}`)
  await raw.waitFor('"result":"alive"')
  raw.ws.close()
  await server.close()
})

const malformed = [
  ['invalid JSON', `{"type":1,${RS}`],
  ['a JSON array', `[1]${RS}`],
  ['a missing type', `{"target":"Echo","arguments":[]}${RS}`],
  ['a string type', `{"type":"1","target":"Echo","arguments":[]}${RS}`],
  ['an invocation without target', `{"type":1,"invocationId":"1","arguments":[]}${RS}`],
  ['an invocation with non-array arguments', `{"type":1,"invocationId":"1","target":"Echo","arguments":"x"}${RS}`],
  ['a completion with both result and error', `{"type":3,"invocationId":"1","result":1,"error":"e"}${RS}`],
  ['a message over 32 KB', `{"type":1,"target":"Echo","arguments":["${'x'.repeat(33 * 1024)}"]}${RS}`],
  ['33 KB without a record separator', 'y'.repeat(33 * 1024)],
] as const

for (const [name, frame] of malformed) {
  test(`${name} → Close with an error, socket closed, others unaffected`, async () => {
    const server = await startHub()
    const bystander = client(server.url)
    await bystander.start()
    const raw = await rawSocket(server.url)
    raw.send(frame)
    expect(await raw.closed).toBe(1000)
    expect(raw.received.join('')).toBe(`{}${RS}${CLOSE_WITH_ERROR}`)
    expect(await bystander.invoke('Echo', 'fine')).toBe('fine')
    await bystander.stop()
    await eventually(() => server.hub.stats().connections === 0)
    await server.close()
  })
}

test('a binary frame holding valid JSON is read as UTF-8 text, as .NET does', async () => {
  const server = await startHub()
  const raw = await rawSocket(server.url)
  raw.ws.send(Buffer.from(`{"type":1,"invocationId":"1","target":"Echo","arguments":["bïnary"]}${RS}`), { binary: true })
  await raw.waitFor('"result":"bïnary"')
  raw.ws.close()
  await server.close()
})

test('server pings keep an idle official client connected past its server timeout', async () => {
  const server = await startHub()
  const alice = client(server.url)
  let closed = false
  alice.onclose(() => {
    closed = true
  })
  await alice.start()
  // The client's server timeout is 1.5 s; stay idle for three times that.
  await new Promise((resolve) => setTimeout(resolve, 4500))
  expect(closed).toBe(false)
  expect(alice.state).toBe('Connected')
  await alice.stop()
  await server.close()
})

test('a raw client that sends nothing is closed after clientTimeoutMs with allowReconnect', async () => {
  const server = await startHub()
  const raw = await rawSocket(server.url)
  await raw.waitFor(`{"type":6}${RS}`)
  expect(await raw.closed).toBe(1000)
  expect(raw.received.join('')).toContain(`{"type":7,"allowReconnect":true}${RS}`)
  await eventually(() => server.hub.stats().connections === 0)
  await server.close()
})

test('the client timeout pauses while a method runs', async () => {
  const server = await startHub()
  const raw = await rawSocket(server.url)
  raw.send(`{"type":1,"invocationId":"1","target":"Sleep","arguments":[2500]}${RS}`)
  await raw.waitFor('"result":"slept"', 5000)
  expect(raw.received.join('')).not.toContain('"type":7')
  raw.ws.close()
  await server.close()
})
