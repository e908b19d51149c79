import { redirect } from 'react-router'
import { parseCookieHeader } from '~/lib/api/cookies'

/**
 * The project a person works on in Documents and Document control (docs/doc-control.md "One
 * project context"): always in the address (`?projectId=`), and remembered in a cookie for the
 * next visit. A screen opened without a project goes to the remembered one, if the person can
 * still open it (it is in the list of projects the screen offered); otherwise it asks, as before.
 * The cookie is a convenience only: it names a project, grants nothing, and the API decides.
 */
export const PROJECT_COOKIE = 'sp_project'
const ONE_YEAR_S = 365 * 24 * 60 * 60
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function rememberedProjectId(request: Request): string | null {
  const value = parseCookieHeader(request.headers.get('cookie')).get(PROJECT_COOKIE) ?? ''
  return UUID.test(value) ? value.toLowerCase() : null
}

/** Remembers the project on screen (a year, the whole site, readable by the server only). */
export function rememberProject(request: Request, headers: Headers, projectId: string): void {
  if (rememberedProjectId(request) === projectId.toLowerCase()) return
  const secure = new URL(request.url).protocol === 'https:'
  headers.append('set-cookie', `${PROJECT_COOKIE}=${projectId}; Path=/; Max-Age=${ONE_YEAR_S}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`)
}

/**
 * A page opened without `projectId` (GET only) goes to the same page with the remembered project,
 * when that project is among `offered` (the projects the person may open); a forgotten or
 * unreachable one is dropped, and the page asks for a project.
 */
export function goToRememberedProject(request: Request, headers: Headers, offered: ReadonlyArray<{ id: string }>): void {
  if (request.method !== 'GET') return
  const url = new URL(request.url)
  if (url.searchParams.get('projectId')) return
  const remembered = rememberedProjectId(request)
  if (!remembered) return
  if (!offered.some((project) => project.id.toLowerCase() === remembered)) {
    headers.append('set-cookie', `${PROJECT_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`)
    return
  }
  const params = new URLSearchParams(url.searchParams)
  params.set('projectId', remembered)
  throw redirect(`${url.pathname}?${params}`, { headers })
}
