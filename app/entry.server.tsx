import { PassThrough, Transform } from 'node:stream'
import { createReadableStreamFromReadable } from '@react-router/node'
import { isbot } from 'isbot'
import { renderToPipeableStream } from 'react-dom/server'
import { ServerRouter, type AppLoadContext, type EntryContext } from 'react-router'
import stylesheet from './app.css?inline'

export const streamTimeout = 5_000

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: AppLoadContext,
) {
  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false
    const userAgent = request.headers.get('user-agent')
    // Bots and SPA-mode builds wait for all content; browsers get the shell as soon as it is ready.
    const readyOption = (userAgent && isbot(userAgent)) || routerContext.isSpaMode ? 'onAllReady' : 'onShellReady'
    const nonce = loadContext.cspNonce

    const { pipe, abort } = renderToPipeableStream(
      <ServerRouter context={routerContext} url={request.url} nonce={nonce} />,
      {
        nonce,
        [readyOption]() {
          shellRendered = true
          const body = import.meta.env.DEV ? new PassThrough() : inlineStylesheet(nonce)
          const stream = createReadableStreamFromReadable(body)
          responseHeaders.set('Content-Type', 'text/html; charset=utf-8')
          resolve(new Response(stream, { headers: responseHeaders, status: responseStatusCode }))
          pipe(body)
        },
        onShellError(error: unknown) {
          reject(error)
        },
        onError(error: unknown) {
          responseStatusCode = 500
          if (shellRendered) console.error(error)
        },
      },
    )
    setTimeout(abort, streamTimeout + 1000)
  })
}

const HEAD_MARK = '<meta name="viewport"'

/**
 * The whole stylesheet (~6 KiB compressed) goes into the page's <head>, right after the viewport
 * tag and before every script and modulepreload: on a slow link the first paint then waits for the
 * HTML alone, not for a second round trip that scripts compete with (docs/performance.md "First
 * paint"). root.tsx links the stylesheet in development only, where Vite serves it. React leaves
 * the extra <style> alone when it hydrates <head>.
 */
function inlineStylesheet(nonce: string): Transform {
  let pending: string | undefined = ''
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (pending === undefined) return done(null, chunk)
      pending += chunk.toString('utf8')
      const mark = pending.indexOf(HEAD_MARK)
      const end = mark < 0 ? -1 : pending.indexOf('>', mark)
      if (end < 0) return done()
      const html = `${pending.slice(0, end + 1)}<style nonce="${nonce}">${stylesheet}</style>${pending.slice(end + 1)}`
      pending = undefined
      done(null, html)
    },
    flush(done) {
      done(null, pending || null)
    },
  })
}
