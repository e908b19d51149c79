import { createCookie } from 'react-router'
import type { Flash } from '~/components/ui/toast'

/**
 * A message an action leaves for the page it redirects to (Post/Redirect/Get). It lives a minute
 * at most and is cleared by the root loader that shows it. It holds only our own text.
 */
const flashCookie = createCookie('sp_flash', { path: '/', httpOnly: true, sameSite: 'lax', maxAge: 60 })

export async function setFlash(headers: Headers, flash: Flash): Promise<Headers> {
  headers.append('Set-Cookie', await flashCookie.serialize({ ...flash, id: crypto.randomUUID() }))
  return headers
}

export async function takeFlash(request: Request, headers: Headers): Promise<Flash | null> {
  const value: unknown = await flashCookie.parse(request.headers.get('Cookie'))
  if (!value || typeof value !== 'object' || !('message' in value) || typeof value.message !== 'string') return null
  headers.append('Set-Cookie', await flashCookie.serialize('', { maxAge: 0 }))
  return value as Flash
}
