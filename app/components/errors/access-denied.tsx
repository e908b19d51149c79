import { ButtonLink } from '~/components/ui/button-link'

/** The /forbidden/admin screen (spec §2 "Access denied"), shown inside the signed-in shell. */
export function AccessDenied({ attemptedPath }: { attemptedPath?: string | null }) {
  return (
    <div className="flex w-full max-w-2xl flex-col gap-4">
      <h1 className="text-2xl font-semibold tracking-tight text-text">Access denied</h1>
      <p className="text-text">You are signed in, but your account does not have permission to view the Administration pages.</p>
      {attemptedPath ? (
        <p className="text-sm text-muted">
          Attempted path: <code className="font-mono break-all text-text">{attemptedPath}</code>
        </p>
      ) : null}
      <div>
        <ButtonLink to="/dashboard">Go to Dashboard</ButtonLink>
      </div>
    </div>
  )
}
