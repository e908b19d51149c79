/**
 * What the Node server hands every loader and action. The web app reaches the backend only through
 * `backend`: in-process by default, over HTTP when BACKEND_URL is set (DESIGN.md "One contract,
 * two transports").
 */
export type BackendTransport = (request: Request) => Promise<Response>

/** The server's structured logger (pino), so the web app's lines share its format and LOG_LEVEL. */
export type WebLogger = {
  info(fields: Record<string, unknown>, message: string): void
  warn(fields: Record<string, unknown>, message: string): void
  error(fields: Record<string, unknown>, message: string): void
}

declare module 'react-router' {
  interface AppLoadContext {
    backend: BackendTransport
    cspNonce: string
    /** The browser's address as the web server saw it, forwarded to the backend. */
    remoteAddress: string | undefined
    oidcEnabled: boolean
    logger: WebLogger
  }
}

export {}
