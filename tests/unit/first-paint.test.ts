import { Readable } from 'node:stream'
import { expect, test } from 'vitest'
import { deferBootstrap, firstPaintHtml } from '~/lib/first-paint.server'

// The shape React Router 7.18's <Scripts> gives its bootstrap module.
const BOOTSTRAP = `;
import * as route0 from "/assets/root-A.js";
import * as route1 from "/assets/login-B.js";
  window.__reactRouterManifest = {"entry":{"module":"/assets/entry.client-C.js"}};
  window.__reactRouterRouteModules = {"root":route0,"routes/auth/login":route1};

import("/assets/entry.client-C.js");`

test('the bootstrap imports its route modules only after the first frame, then starts the app', () => {
  const deferred = deferBootstrap(BOOTSTRAP)
  expect(deferred).not.toMatch(/^import \* as/m)
  const wait = deferred.indexOf('requestAnimationFrame')
  const load = deferred.indexOf('const [route0, route1] = await Promise.all([import("/assets/root-A.js"), import("/assets/login-B.js")]);')
  const start = deferred.indexOf('import("/assets/entry.client-C.js")')
  expect(wait).toBeGreaterThan(-1)
  expect(load).toBeGreaterThan(wait)
  expect(deferred.indexOf('window.__reactRouterRouteModules')).toBeGreaterThan(load)
  expect(start).toBeGreaterThan(load)
})

test('a bootstrap of another shape is left as it is', () => {
  const other = 'import("/assets/entry.client-C.js");'
  expect(deferBootstrap(other)).toBe(other)
})

async function rewrite(html: string, pieceSize: number): Promise<string> {
  const pieces: Buffer[] = []
  for (let i = 0; i < html.length; i += pieceSize) pieces.push(Buffer.from(html.slice(i, i + pieceSize)))
  const out: string[] = []
  for await (const chunk of Readable.from(pieces).pipe(firstPaintHtml('n0nce'))) out.push(String(chunk))
  return out.join('')
}

test('however React splits the stream, the stylesheet lands after the viewport tag and the bootstrap is deferred', async () => {
  const page =
    '<!DOCTYPE html><html><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width"/><link rel="modulepreload" href="/assets/root-A.js"/></head>' +
    `<body><main>Hello</main><script nonce="n0nce" type="module" async="">${BOOTSTRAP}</script><script>tail()</script></body></html>`
  for (const size of [1, 7, 64, page.length]) {
    const html = await rewrite(page, size)
    const style = html.indexOf('<style nonce="n0nce">')
    expect(style).toBe(html.indexOf('/>', html.indexOf('<meta name="viewport"')) + 2)
    expect(style).toBeLessThan(html.indexOf('modulepreload'))
    expect(html).toContain('</style><link rel="modulepreload" fetchpriority="low" href="/assets/root-A.js"/>')
    expect(html).toContain(`type="module" async="">${deferBootstrap(BOOTSTRAP)}</script><script>tail()</script></body></html>`)
  }
})

test('a page without the marks passes through whole', async () => {
  const page = '<!DOCTYPE html><html><head><title>x</title></head><body>plain</body></html>'
  expect(await rewrite(page, 5)).toBe(page)
})

test('a character React splits between two pieces arrives whole', async () => {
  const page = '<!DOCTYPE html><html><head><meta name="viewport" content="width=device-width"/></head><body>Rename “Quay Wall” – 10 m²</body></html>'
  const bytes = Buffer.from(page)
  const stream = firstPaintHtml('n0nce')
  const out: string[] = []
  stream.on('data', (chunk) => out.push(String(chunk)))
  const ended = new Promise((resolve) => stream.on('end', resolve))
  // One byte at a time: every multi-byte character is cut.
  for (let i = 0; i < bytes.length; i++) stream.write(bytes.subarray(i, i + 1))
  stream.end()
  await ended
  const html = out.join('')
  expect(html).toContain('<body>Rename “Quay Wall” – 10 m²</body>')
  expect(html).not.toContain('\uFFFD')
})

test('what React writes in one turn goes on as one piece', async () => {
  const stream = firstPaintHtml('n0nce')
  const out: string[] = []
  stream.on('data', (chunk) => out.push(String(chunk)))
  stream.write(Buffer.from('<!DOCTYPE html><html><head><meta name="viewport" content="width=device-width"/></head><body>'))
  for (let i = 0; i < 70; i++) stream.write(Buffer.from(`<p>row ${i}</p>`))
  await new Promise((resolve) => setImmediate(resolve))
  expect(out).toHaveLength(1)
  // (The last few characters wait in case they begin the bootstrap's script.)
  expect(out[0]).toContain('<p>row 67</p>')
  stream.end()
})
