import { StoreError } from './store-facts'

/**
 * One call to a store's API with a deadline: a network failure or the deadline is `unavailable`
 * (nothing was decided, try again later); a 429 or 5xx too, with the store's Retry-After; the
 * caller reads the other statuses. Never throws anything but StoreError.
 */
export async function storeFetch(storeName: string, url: string, init: RequestInit, timeoutMs: number): Promise<Response> {
  let response: Response
  try {
    response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) })
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === 'TimeoutError'
    throw new StoreError({
      kind: 'unavailable',
      detail: timedOut ? `${storeName} did not answer within ${Math.round(timeoutMs / 1000) || 1} s.` : `${storeName} could not be reached.`,
      retryAfterSeconds: 30,
    })
  }
  if (response.status === 429 || response.status >= 500) {
    discard(response)
    const retryAfter = Number(response.headers.get('retry-after'))
    throw new StoreError({
      kind: 'unavailable',
      detail: response.status === 429 ? `${storeName} is limiting our requests just now.` : `${storeName} answered with an error (${response.status}).`,
      retryAfterSeconds: Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 3600 ? retryAfter : 30,
    })
  }
  return response
}

/** The JSON body of a store's answer, or `bad-response`. */
export async function storeJson(storeName: string, response: Response): Promise<unknown> {
  try {
    return (await response.json()) as unknown
  } catch {
    throw new StoreError({ kind: 'bad-response', detail: `${storeName} answered something that is not JSON.` })
  }
}

/** Our credentials were refused: an operator must fix the configuration. */
export function credentialsRefused(storeName: string, status: number): StoreError {
  return new StoreError({ kind: 'bad-response', detail: `${storeName} refused our credentials (${status}); an operator must check the store configuration.` })
}

/**
 * Lets go of an answer whose body we do not read. Not awaited: some fetch implementations (msw's
 * interceptor among them) settle a cancelled stream only once it is read.
 */
export function discard(response: Response): void {
  response.body?.cancel().catch(() => undefined)
}
