import { Transform } from 'node:stream'
import stylesheet from '~/app.css?inline'

/**
 * Rewrites the server-rendered HTML stream so the page paints before any script is fetched or run
 * (docs/performance.md "First paint", decision 005):
 *
 * 1. The whole stylesheet (~6 KiB compressed) goes into <head> right after the viewport tag, so the
 *    first paint waits for the HTML alone, not for a second round trip. React leaves the extra
 *    <style> alone when it hydrates <head>.
 * 2. The modulepreload links React hoists into <head> come out, and React Router's bootstrap module
 *    adds them back after the first frame, then imports the route modules and starts the app (see
 *    deferBootstrap). On a slow link the scripts then never share it with the HTML and images the
 *    first paint needs, and no script runs before it.
 */
export function firstPaintHtml(nonce: string): Transform {
  let html = ''
  let stage: 'head' | 'bootstrap' | 'done' = 'head'
  const preloads: string[] = []
  const withoutPreloads = (part: string) =>
    part.replace(MODULEPRELOAD, (_tag, href: string) => {
      preloads.push(href)
      return ''
    })
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (stage === 'done') return done(null, chunk)
      html += chunk.toString('utf8')
      let out = ''
      if (stage === 'head') {
        const mark = html.indexOf(HEAD_MARK)
        const end = mark < 0 ? -1 : html.indexOf('>', mark)
        if (end < 0) return done()
        out = `${html.slice(0, end + 1)}<style nonce="${nonce}">${stylesheet}</style>`
        html = html.slice(end + 1)
        stage = 'bootstrap'
      }
      const open = html.indexOf(BOOTSTRAP_OPEN)
      const close = open < 0 ? -1 : html.indexOf('</script>', open)
      if (close < 0) {
        // Hold back from the bootstrap's opening tag, or from a tag not yet complete; the rest streams on.
        const keep = open >= 0 ? open : unfinishedTagStart(html)
        out += withoutPreloads(html.slice(0, keep))
        html = html.slice(keep)
        return done(null, out || null)
      }
      const start = open + BOOTSTRAP_OPEN.length
      out += withoutPreloads(html.slice(0, start))
      out += deferBootstrap(html.slice(start, close), preloads) + html.slice(close)
      html = ''
      stage = 'done'
      done(null, out)
    },
    flush(done) {
      done(null, html || null)
    },
  })
}

/** Where a tag that has not been closed yet starts (the end of the text when none). */
function unfinishedTagStart(html: string): number {
  const lastOpen = html.lastIndexOf('<')
  return lastOpen >= 0 && html.indexOf('>', lastOpen) < 0 ? lastOpen : html.length
}

const HEAD_MARK = '<meta name="viewport"'
// React Router's <Scripts> writes its bootstrap as an async module script (react-router 7.18).
const BOOTSTRAP_OPEN = 'type="module" async="">'
const STATIC_IMPORT = /^import \* as (\w+) from ("[^"]+");$/gm
const MODULEPRELOAD = /<link rel="modulepreload" href="(\/[^"]+)"[^>]*\/>/g

/**
 * The bootstrap's static imports (`import * as route0 from "…";`) become dynamic imports that run
 * after the first frame has been painted (at once for a hidden page, which paints no frames),
 * right after the page's modulepreload links are put back, so every script still loads in
 * parallel. A bootstrap of another shape is left as it is, and the links go back at once.
 */
export function deferBootstrap(script: string, preloads: string[] = []): string {
  const restore =
    preloads.length === 0
      ? ''
      : `\nfor (const href of ${JSON.stringify(preloads)}) { const link = document.createElement("link"); link.rel = "modulepreload"; link.href = href; document.head.append(link); }`
  const imports = [...script.matchAll(STATIC_IMPORT)]
  if (imports.length === 0) return restore + script
  const names = imports.map((m) => m[1]).join(', ')
  const specifiers = imports.map((m) => `import(${m[2]})`).join(', ')
  const rest = script.replace(STATIC_IMPORT, '')
  return (
    '\nawait new Promise((resolve) => document.visibilityState === "hidden" ? resolve() : requestAnimationFrame(() => setTimeout(resolve, 0)));' +
    restore +
    `\nconst [${names}] = await Promise.all([${specifiers}]);` +
    rest
  )
}
