import { Transform } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'
import stylesheet from '~/app.css?inline'

/**
 * Rewrites the server-rendered HTML stream so the page paints before any script runs
 * (docs/performance.md "First paint", decision 007):
 *
 * 1. The whole stylesheet (~6 KiB compressed) goes into <head> right after the viewport tag, ahead
 *    of every script and modulepreload, so the first paint waits for the HTML alone, not for a
 *    second round trip that scripts compete with. React leaves the extra <style> alone when it
 *    hydrates <head>.
 * 2. React Router's bootstrap module (route modules, manifest, then entry.client) waits for the
 *    first frame before it imports anything (see deferBootstrap). The modulepreload links still
 *    fetch the scripts at once; only running them waits.
 * 3. Those links say `fetchpriority="low"`: nothing in the first paint needs them. Chromium gives a
 *    module preload high priority, and Lighthouse's simulation counts every high-priority script
 *    that finished before the observed first paint as blocking it, so short pages scored a first
 *    paint of 2 s against the 0.8 s measured (docs/performance.md "First paint").
 */
export function firstPaintHtml(nonce: string): Transform {
  // React splits its output into 2 KB pieces at any byte, so a character may span two of them.
  const decoder = new StringDecoder('utf8')
  let html = ''
  let stage: 'head' | 'bootstrap' | 'done' = 'head'
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
      out = `${html.slice(0, end + 1)}<style nonce="${nonce}">${stylesheet}</style>${html.slice(end + 1, headEnd).replaceAll(MODULE_PRELOAD, LOW_MODULE_PRELOAD)}`
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
    out += html.slice(0, start) + deferBootstrap(html.slice(start, close)) + html.slice(close)
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
const MODULE_PRELOAD = '<link rel="modulepreload" '
const LOW_MODULE_PRELOAD = '<link rel="modulepreload" fetchpriority="low" '
// React Router's <Scripts> writes its bootstrap as an async module script (react-router 7.18).
const BOOTSTRAP_OPEN = 'type="module" async="">'
const STATIC_IMPORT = /^import \* as (\w+) from ("[^"]+");$/gm

/**
 * The bootstrap's static imports (`import * as route0 from "…";`) become dynamic imports that run
 * after the first frame has been painted, or at once for a hidden page, which paints no frames.
 * A bootstrap of another shape is left as it is.
 */
export function deferBootstrap(script: string): string {
  const imports = [...script.matchAll(STATIC_IMPORT)]
  if (imports.length === 0) return script
  const names = imports.map((m) => m[1]).join(', ')
  const specifiers = imports.map((m) => `import(${m[2]})`).join(', ')
  const rest = script.replace(STATIC_IMPORT, '')
  return (
    '\nawait new Promise((resolve) => document.visibilityState === "hidden" ? resolve() : requestAnimationFrame(() => setTimeout(resolve, 0)));' +
    `\nconst [${names}] = await Promise.all([${specifiers}]);` +
    rest
  )
}
