/**
 * What the Node server hands every loader and action. The web app reaches the backend only through
 * `backend`: in-process by default, over HTTP when BACKEND_URL is set (DESIGN.md "One contract,
 * two transports").
 */
export type BackendTransport = (request: Request) => Promise<Response>

declare module 'react-router' {
  interface AppLoadContext {
    backend: BackendTransport
    cspNonce: string
    /** The browser's address as the web server saw it, forwarded to the backend. */
    remoteAddress: string | undefined
    oidcEnabled: boolean
  }
}

export {}
