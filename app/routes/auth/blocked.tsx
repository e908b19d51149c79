import { Link } from 'react-router'
import { AuthCard } from '~/components/auth/auth-card'
import { Banner } from '~/components/ui/banner'
import type { Route } from './+types/blocked'

/** Spec §2: shown after a blocked-user response, carrying its correlation id. */
export function loader({ request }: Route.LoaderArgs) {
  return { correlationId: new URL(request.url).searchParams.get('cid') }
}

export default function Blocked({ loaderData }: Route.ComponentProps) {
  return (
    <AuthCard title="Your account is blocked">
      <Banner tone="critical" correlationId={loaderData.correlationId}>
        You have been signed out because your account is blocked. Contact your administrator and give them the correlation id below.
      </Banner>
      <p className="mt-6 text-sm">
        <Link to="/auth/login" className="text-primary underline">
          Back to sign in
        </Link>
      </p>
    </AuthCard>
  )
}

export function meta() {
  return [{ title: 'Account blocked · Site Portal' }]
}
