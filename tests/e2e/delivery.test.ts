import { request as httpRequest } from 'node:http'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startPortal, type Portal } from './harness'

// How the built server delivers pages and assets (docs/performance.md "First paint"). Raw HTTP,
// so the bytes and headers are what a browser receives, not what fetch() decoded.

let portal: Portal

beforeAll(async () => {
  portal = await startPortal()
})

afterAll(async () => {
  await portal?.stop()
})

type Raw = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }

function get(path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, portal.baseUrl), { headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

async function signInPage(): Promise<string> {
  const page = await get('/auth/login', { accept: 'text/html' })
  expect(page.status).toBe(200)
  return page.body.toString('utf8')
}

test('the stylesheet is inlined ahead of every script, under the CSP nonce; scripts are fetched only after the first frame', async () => {
  const page = await get('/auth/login', { accept: 'text/html' })
  expect(page.status).toBe(200)
  const html = page.body.toString('utf8')
  const head = html.slice(0, html.indexOf('</head>'))
  const style = /<style nonce="([^"]+)">/.exec(head)
  expect(style).not.toBeNull()
  // Nothing in the head fetches a script while the HTML is still arriving.
  expect(head).not.toMatch(/<link[^>]+rel="modulepreload"/)
  const firstScript = html.search(/<script/)
  expect(firstScript).toBeGreaterThan(-1)
  expect(style?.index ?? Infinity).toBeLessThan(firstScript)
  // The real stylesheet, not an empty tag: Tailwind's banner and the page's utilities are in it.
  expect(head).toContain('tailwindcss')
  expect(String(page.headers['content-security-policy'])).toContain(`style-src 'self' 'nonce-${style?.[1]}'`)
  // React Router's bootstrap imports the route modules only after the first frame.
  const bootstrap = /<script[^>]+type="module"[^>]*>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? ''
  expect(bootstrap).toContain('requestAnimationFrame')
  expect(bootstrap).not.toMatch(/^import \* as/m)
  // …then fetches the route modules and their shared chunks at once, the framework among them.
  const wait = bootstrap.indexOf('requestAnimationFrame')
  const framework = bootstrap.search(/import\("\/assets\/framework-[^"]+\.js"\)/)
  expect(framework).toBeGreaterThan(wait)
})

test('a hashed asset is served precompressed (brotli, else gzip) with immutable caching', async () => {
  const html = await signInPage()
  const scripts = [...html.matchAll(/import\("(\/assets\/[^"]+\.js)"\)/g)].map((m) => m[1] ?? '')
  const framework = scripts.find((href) => href.includes('framework'))
  const app = scripts.find((href) => /\/app-[^/]+\.js$/.test(href))
  expect(framework).toBeDefined()
  expect(app).toBeDefined()

  for (const href of [framework ?? '', app ?? '']) {
    const plain = await get(href, { 'accept-encoding': 'identity' })
    expect(plain.status).toBe(200)
    expect(plain.headers['content-encoding']).toBeUndefined()

    const br = await get(href, { 'accept-encoding': 'gzip, deflate, br, zstd' })
    expect(br.status).toBe(200)
    expect(br.headers['content-encoding']).toBe('br')
    expect(String(br.headers.vary)).toMatch(/accept-encoding/i)
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(Number(br.headers['content-length'])).toBe(br.body.length)
    expect(br.body.length).toBeLessThan(plain.body.length)
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true)

    const gz = await get(href, { 'accept-encoding': 'gzip' })
    expect(gz.headers['content-encoding']).toBe('gzip')
    expect(String(gz.headers.vary)).toMatch(/accept-encoding/i)
    expect(gz.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true)
  }
})

test('pages are compressed on the fly and never cached', async () => {
  const page = await get('/auth/login', { accept: 'text/html', 'accept-encoding': 'gzip, deflate, br' })
  expect(page.status).toBe(200)
  expect(['gzip', 'br']).toContain(page.headers['content-encoding'])
  expect(String(page.headers.vary)).toMatch(/accept-encoding/i)
  expect(page.headers['cache-control']).toBe('no-store')
  const html = (page.headers['content-encoding'] === 'br' ? brotliDecompressSync(page.body) : gunzipSync(page.body)).toString('utf8')
  expect(html.startsWith('<!DOCTYPE html>')).toBe(true)
})
