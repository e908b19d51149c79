import { AccessDenied } from '~/components/errors/access-denied'
import type { Route } from './+types/forbidden-admin'

export function loader({ request }: Route.LoaderArgs) {
  return { attemptedPath: new URL(request.url).searchParams.get('from') }
}

export default function ForbiddenAdmin({ loaderData }: Route.ComponentProps) {
  return <AccessDenied attemptedPath={loaderData.attemptedPath} />
}

export function meta() {
  return [{ title: 'Access denied · Site Portal' }]
}
