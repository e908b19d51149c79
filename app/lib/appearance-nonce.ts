/**
 * The CSP nonce of the document in the browser. A <style> the appearance renders must carry the
 * nonce of the page's Content-Security-Policy; the root loader's `cspNonce` is that of the request
 * it answered, which after a client-side revalidation is not the document's. In the browser the
 * document's own nonce is read back from an element the server sent with it; on the server the
 * request's nonce is the document's.
 */
export function documentNonce(loaderNonce: string | undefined): string | undefined {
  if (typeof document === 'undefined') return loaderNonce
  const element = document.querySelector<HTMLElement>('script[nonce], style[nonce]')
  return element?.nonce || loaderNonce
}
