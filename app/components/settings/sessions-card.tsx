import { Form } from 'react-router'
import { Badge } from '~/components/ui/badge'
import { Card } from '~/components/ui/card'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { CsrfInput } from '~/components/ui/csrf-input'
import { SubmitButton } from '~/components/ui/submit-button'
import type { AccountSession } from '~/lib/settings/settings'

function when(iso: string, locale: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso))
}

function titleOf(s: AccountSession): string {
  const device = s.device ? (s.device.name ?? s.device.platform) : null
  return device ? `${device} · ${s.browser}` : `${s.browser} on ${s.os}`
}

/** Your sessions and devices: where you are signed in, signing out one or every other one. */
export function SessionsCard({ sessions, failed, locale }: { sessions: AccountSession[]; failed: boolean; locale: string }) {
  const others = sessions.filter((s) => !s.current).length
  return (
    <Card className="p-5" role="region" aria-label="Sessions and devices">
      <h2 className="mb-1 text-lg font-semibold">Sessions and devices</h2>
      <p className="mb-4 text-sm text-muted">Where you are signed in now. Sign out anything you do not recognise, then change your password.</p>
      {failed ? <p className="text-sm text-critical">Your sessions could not be loaded. Reload the page to try again.</p> : null}
      <ul className="mb-4 divide-y divide-border">
        {sessions.map((s) => (
          <li key={s.id} className="flex flex-wrap items-start justify-between gap-3 py-3" aria-label={titleOf(s)}>
            <div className="min-w-0 text-sm">
              <p className="font-medium">
                {titleOf(s)} {s.current ? <Badge tone="success">This session</Badge> : null} {s.kind === 'admin' ? <Badge tone="info">Admin</Badge> : null}
              </p>
              <p className="text-muted">
                {s.ip ? `${s.ip} · ` : ''}last active {when(s.lastSeenAtUtc, locale)} · signed in {when(s.signedInAtUtc, locale)}
              </p>
            </div>
            {s.current ? null : (
              <Form method="post">
                <CsrfInput />
                <input type="hidden" name="sessionId" value={s.id} />
                <SubmitButton intent="session-revoke" variant="secondary" size="sm" pendingLabel="Signing out…">
                  Sign out
                </SubmitButton>
              </Form>
            )}
          </li>
        ))}
      </ul>
      {others > 0 ? (
        <ConfirmDialog
          triggerLabel="Sign out other sessions"
          title={`Sign out ${others} other session${others === 1 ? '' : 's'}?`}
          confirmLabel="Yes, sign them out"
          pendingLabel="Signing out…"
          intent="sessions-revoke-others"
        >
          Every browser and device but this one will have to sign in again.
        </ConfirmDialog>
      ) : (
        <p className="text-sm text-muted">You are not signed in anywhere else.</p>
      )}
    </Card>
  )
}
