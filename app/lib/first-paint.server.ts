import { Transform } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'
import stylesheet from '~/app.css?inline'

/**
 * Rewrites the server-rendered HTML stream so the page paints before any script is fetched or run
 * (docs/performance.md "First paint", decision 007):
 *
 * 1. The whole stylesheet (~6 KiB compressed) goes into <head> right after the viewport tag, ahead
 *    of everything else, so the first paint waits for the HTML alone, not for a second round trip.
 *    React leaves the extra <style> alone when it hydrates <head>.
 * 2. The `<link rel="modulepreload">` tags leave <head>: they fetched the screen's scripts (~120 KiB)
 *    while the HTML was still arriving, sharing a slow link with it, for nothing the first paint
 *    needs. Lighthouse's simulation also counts every request that finished before the observed
 *    largest paint as delaying it, so the documents list's was modelled at 2.3–3.0 s against 0.7 s.
 * 3. React Router's bootstrap module waits for the first frame (see deferBootstrap), then fetches
 *    the same scripts the links named, all at once (no waterfall), and starts the app as before.
 */
export function firstPaintHtml(nonce: string): Transform {
  // React splits its output into 2 KB pieces at any byte, so a character may span two of them.
  const decoder = new StringDecoder('utf8')
  let html = ''
  let stage: 'head' | 'bootstrap' | 'done' = 'head'
  /** The scripts the head's module preloads named, in their order. */
  let modules: string[] = []
  let pieces: Buffer[] = []
  let scheduled = false

  /** What of the text so far can be sent on, rewritten; the rest stays in `html`. */
  function rewrite(text: string): string {
    if (stage === 'done') return text
    html += text
    let out = ''
    if (stage === 'head') {
      const mark = html.indexOf(HEAD_MARK)
      const end = mark < 0 ? -1 : html.indexOf('>', mark)
      const headEnd = end < 0 ? -1 : html.indexOf(HEAD_END, end)
      if (headEnd < 0) return ''
      const head = html.slice(end + 1, headEnd)
      modules = [...head.matchAll(MODULE_PRELOAD)].map((m) => m[1] ?? '')
      out = `${html.slice(0, end + 1)}<style nonce="${nonce}">${stylesheet}</style>${head.replaceAll(MODULE_PRELOAD, '')}`
      html = html.slice(headEnd)
      stage = 'bootstrap'
    }
    const open = html.indexOf(BOOTSTRAP_OPEN)
    const close = open < 0 ? -1 : html.indexOf('</script>', open)
    if (close < 0) {
      // Hold back only from the bootstrap's opening tag on; React keeps the rest streaming.
      const keep = open >= 0 ? open : Math.max(0, html.length - BOOTSTRAP_OPEN.length)
      out += html.slice(0, keep)
      html = html.slice(keep)
      return out
    }
    const start = open + BOOTSTRAP_OPEN.length
    out += html.slice(0, start) + deferBootstrap(html.slice(start, close), modules) + html.slice(close)
    html = ''
    stage = 'done'
    return out
  }

  /** Sends on, as one piece, what React wrote since the last time. */
  function sendPieces(): void {
    scheduled = false
    if (pieces.length === 0) return
    const text = rewrite(decoder.write(Buffer.concat(pieces)))
    pieces = []
    if (text) stream.push(text)
  }

  const stream = new Transform({
    // React writes what is ready in one turn, in 2 KB pieces (about 70 for the items list); each
    // piece went alone through the web stream, the compressor and on to the socket. The pieces of
    // one turn are taken at once and sent on together, at the end of the turn.
    transform(chunk: Buffer, _encoding, done) {
      pieces.push(chunk)
      if (!scheduled) {
        scheduled = true
        setImmediate(sendPieces)
      }
      done()
    },
    flush(done) {
      sendPieces()
      done(null, html + decoder.end() || null)
    },
  })
  return stream
}

const HEAD_MARK = '<meta name="viewport"'
const HEAD_END = '</head>'
// React Router writes `<link rel="modulepreload" href="…" nonce="…"/>`.
const MODULE_PRELOAD = /<link rel="modulepreload" href="([^"]+)"[^>]*>/g
// React Router's <Scripts> writes its bootstrap as an async module script (react-router 7.18).
const BOOTSTRAP_OPEN = 'type="module" async="">'
const STATIC_IMPORT = /^import \* as (\w+) from ("[^"]+");$/gm
const ENTRY_IMPORT = /^import\(("[^"]+")\);$/m

/**
 * The bootstrap's static imports (`import * as route0 from "…";`) become dynamic imports that run
 * after the first frame has been painted, or at once for a hidden page, which paints no frames.
 * With them, in parallel, go the other `modules` the head's preloads named (the route modules'
 * shared chunks), so the browser fetches the whole set at once instead of finding each level of
 * imports after the one before. They are evaluated as the route modules' imports would have been.
 * The app's entry module, imported last (it hydrates the page and wants the route modules set), is
 * fetched beside them by one module preload. A bootstrap of another shape is left as it is.
 */
export function deferBootstrap(script: string, modules: readonly string[] = []): string {
  const imports = [...script.matchAll(STATIC_IMPORT)]
  if (imports.length === 0) return script
  const names = imports.map((m) => m[1]).join(', ')
  const routeModules = imports.map((m) => m[2])
  const rest = script.replace(STATIC_IMPORT, '')
  const entry = ENTRY_IMPORT.exec(rest)?.[1]
  const others = modules.map((href) => JSON.stringify(href)).filter((href) => href !== entry && !routeModules.includes(href))
  const specifiers = [...routeModules, ...others].map((href) => `import(${href})`).join(', ')
  const preloadEntry = entry ? `\ndocument.head.append(Object.assign(document.createElement("link"), { rel: "modulepreload", href: ${entry} }));` : ''
  return (
    '\nawait new Promise((resolve) => document.visibilityState === "hidden" ? resolve() : requestAnimationFrame(() => setTimeout(resolve, 0)));' +
    preloadEntry +
    `\nconst [${names}] = await Promise.all([${specifiers}]);` +
    rest
  )
}
