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

test('after the first frame the bootstrap fetches every script the head preloaded at once, the entry by a module preload', () => {
  const modules = ['/assets/entry.client-C.js', '/assets/framework-D.js', '/assets/root-A.js', '/assets/app-E.js', '/assets/login-B.js']
  const deferred = deferBootstrap(BOOTSTRAP, modules)
  const wait = deferred.indexOf('requestAnimationFrame')
  const preload = deferred.indexOf('document.head.append(Object.assign(document.createElement("link"), { rel: "modulepreload", href: "/assets/entry.client-C.js" }));')
  const load = deferred.indexOf(
    'const [route0, route1] = await Promise.all([import("/assets/root-A.js"), import("/assets/login-B.js"), import("/assets/framework-D.js"), import("/assets/app-E.js")]);',
  )
  expect(preload).toBeGreaterThan(wait)
  expect(load).toBeGreaterThan(preload)
  // The entry is evaluated last, once the route modules are set, as React Router has it.
  expect(deferred.indexOf('import("/assets/entry.client-C.js")')).toBeGreaterThan(deferred.indexOf('window.__reactRouterRouteModules'))
  expect(deferred.match(/import\("\/assets\/entry\.client-C\.js"\)/g)).toHaveLength(1)
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

test('however React splits the stream, the stylesheet lands after the viewport tag, the preloads leave the head for the deferred bootstrap', async () => {
  const page =
    '<!DOCTYPE html><html><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width"/>' +
    '<link rel="modulepreload" href="/assets/entry.client-C.js" nonce="n0nce"/><link rel="modulepreload" href="/assets/root-A.js" nonce="n0nce"/>' +
    '<link rel="modulepreload" href="/assets/app-E.js" nonce="n0nce"/><title>x</title></head>' +
    `<body><main>Hello</main><script nonce="n0nce" type="module" async="">${BOOTSTRAP}</script><script>tail()</script></body></html>`
  for (const size of [1, 7, 64, page.length]) {
    const html = await rewrite(page, size)
    const style = html.indexOf('<style nonce="n0nce">')
    expect(style).toBe(html.indexOf('/>', html.indexOf('<meta name="viewport"')) + 2)
    expect(html).toContain('</style><title>x</title></head>')
    expect(html).not.toContain('<link rel="modulepreload"')
    const bootstrap = deferBootstrap(BOOTSTRAP, ['/assets/entry.client-C.js', '/assets/root-A.js', '/assets/app-E.js'])
    expect(bootstrap).toContain('import("/assets/app-E.js")')
    expect(html).toContain(`type="module" async="">${bootstrap}</script><script>tail()</script></body></html>`)
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
