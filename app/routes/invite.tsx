import { Link } from 'react-router'
import { AuthCard } from '~/components/auth/auth-card'
import { EmptyState } from '~/components/ui/empty-state'

/** Invite landing pages (spec §2). Invitations are not built yet: say so instead of pretending. */
export default function Invite() {
  return (
    <AuthCard title="Invitation">
      <EmptyState heading="Invitations are not available yet">
        Site Portal cannot open invitation links yet. Ask the person who invited you to add you directly, or{' '}
        <Link to="/auth/register" className="text-primary underline">
          create an account
        </Link>
        .
      </EmptyState>
    </AuthCard>
  )
}

export function meta() {
  return [{ title: 'Invitation · Site Portal' }]
}
