/**
 * The client's address, for throttling and audit. Behind a trusted proxy (TRUST_PROXY) it is the
 * last X-Forwarded-For entry: the one our proxy appended. Earlier entries were sent by the client
 * and prove nothing, so a client cannot choose its own address to escape its limits. Without
 * TRUST_PROXY the header is ignored and the socket's address counts.
 */
export function clientAddress(request: Request, socketAddress: string | undefined, trustProxy: boolean): string | undefined {
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for')?.split(',').at(-1)?.trim()
    if (forwarded) return forwarded
  }
  return socketAddress
}
