/** What the server's hub says when it refuses on purpose (.NET's HubException), before its sentence. */
const HUB_EXCEPTION = 'HubException: '

/**
 * The readable sentence of a refused invoke ("… HubException: Message too long."), or undefined
 * when the failure was not a deliberate refusal (a lost connection, a server fault).
 */
export function hubRefusal(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : ''
  const at = message.indexOf(HUB_EXCEPTION)
  if (at === -1) return undefined
  const text = message.slice(at + HUB_EXCEPTION.length).trim()
  return text === '' ? undefined : text
}
