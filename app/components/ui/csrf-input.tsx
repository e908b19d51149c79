import { useRouteLoaderData } from 'react-router'

/** The root loader's CSRF token (DESIGN.md "Identity and sessions": forms carry it as a hidden field). */
export function useCsrfToken(): string | undefined {
  const data: unknown = useRouteLoaderData('root')
  if (typeof data !== 'object' || data === null || !('csrfToken' in data)) return undefined
  return typeof data.csrfToken === 'string' ? data.csrfToken : undefined
}

/** The hidden `csrf` field every unsafe HTML form carries; its value comes from the root loader. */
export function CsrfInput() {
  return <input type="hidden" name="csrf" value={useCsrfToken() ?? ''} />
}
