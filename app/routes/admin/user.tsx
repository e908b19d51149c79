import { revalidateAfterConflict } from '~/lib/revalidate-after-conflict'
import { data, Form, Link, useActionData, useParams } from 'react-router'
import { RoleForm, SetPasswordForm, UserEditForm } from '~/components/admin/users-forms'
import { UserStatusBadge } from '~/components/admin/users-status'
import { type ReportingActionData, resultFor, revisionFor } from '~/components/reporting/report-action'
import { Badge } from '~/components/ui/badge'
import { Banner } from '~/components/ui/banner'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { CsrfInput } from '~/components/ui/csrf-input'
import { DataTable, type DataTableColumn } from '~/components/ui/data-table'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { SubmitButton } from '~/components/ui/submit-button'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { type AdminMembership, type AdminUser, roleName } from '~/lib/admin/users'
import { createServerApi } from '~/lib/api.server'
import { formatDateTime } from '~/lib/format'
import { useLocale } from '~/root'
import type { Route } from './+types/user'
import { loadUserPage, userAction } from './user.server'
import { RevisionInput } from '~/components/ui/revision-input'

/**
 * Administration › Users › a member (spec §3 "Admin user"; docs/admin/users.md): their details
 * and memberships; edit names, position and MFA enforcement; change their role; suspend and
 * reactivate; mail a reset link or set a password; remove them (hard delete) after a confirmation
 * that says what goes and what stays. Every form works without JavaScript.
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { api, responseHeaders } = createServerApi(request, context)
  const page = await loadUserPage(api, params.userId, responseHeaders)
  return data(page, { headers: responseHeaders })
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  return userAction(api, params.userId, formData, responseHeaders)
}

const membershipColumns: Array<DataTableColumn<AdminMembership>> = [
  { key: 'organisation', header: 'Organisation', rowHeader: true, cell: (m) => m.organisationName },
  { key: 'role', header: 'Role', cell: (m) => <span className="whitespace-nowrap">{roleName(m.roleKey)}</span> },
  { key: 'status', header: 'Status', cell: (m) => <UserStatusBadge status={m.statusDisplayName} /> },
  { key: 'default', header: 'Default', hideOnMobile: true, cell: (m) => (m.isDefault ? 'Yes' : 'No') },
  {
    key: 'open',
    header: 'Sign-in link',
    cell: (m) => (
      <a href={m.namespacedUrl} className="text-primary-strong underline underline-offset-2 whitespace-nowrap">
        Open {m.organisationSlug}
      </a>
    ),
  },
]

export default function User({ loaderData }: Route.ComponentProps) {
  const { user } = loaderData
  const { userId } = useParams()
  useLiveRevalidation((change) => (change.entityType === 'User' || change.entityType === 'Membership') && change.entityId === userId)
  const actionData = useActionData<typeof action>() as ReportingActionData | undefined
  const locale = useLocale()
  const here = user.memberships[0]
  const notice = actionData?.notice
  return (
    <>
      <p className="mb-2 text-sm">
        <Link to="/admin/users" className="text-primary-strong underline underline-offset-2">
          ← Users
        </Link>
      </p>
      <PageHeader title={user.displayName} description={user.email} />
      {notice ? (
        <Banner tone="critical" title="That did not work" correlationId={notice.correlationId} className="mb-6">
          {notice.message}
        </Banner>
      ) : null}
      <div className="flex flex-col gap-10">
        <Section title="Account">
          <dl className="grid gap-x-6 gap-y-3 text-sm sm:grid-cols-[max-content_minmax(0,1fr)]">
            <dt className="font-medium text-muted">Status</dt>
            <dd>
              <UserStatusBadge status={user.status} />
            </dd>
            <dt className="font-medium text-muted">Role here</dt>
            <dd>{here ? roleName(here.roleKey) : '—'}</dd>
            <dt className="font-medium text-muted">Position</dt>
            <dd>{user.position ?? '—'}</dd>
            <dt className="font-medium text-muted">Authentication code</dt>
            <dd>{user.isMfaEnforced ? <Badge tone="info">Required at every sign-in</Badge> : 'As the organisation requires'}</dd>
            <dt className="font-medium text-muted">Account created</dt>
            <dd>{formatDateTime(user.createdAtUtc, locale)}</dd>
            <dt className="font-medium text-muted">Last changed</dt>
            <dd>{formatDateTime(user.updatedAtUtc, locale)}</dd>
          </dl>
        </Section>

        <Section title="Memberships" description="This organisation, and their other organisations that you administer too.">
          <DataTable caption="Memberships" captionHidden columns={membershipColumns} rows={user.memberships} rowKey={(m) => m.organisationId} />
        </Section>

        <Section title="Role and status" description="These apply in this organisation only.">
          <div className="flex flex-col gap-6">
            {here ? (
              <RoleForm
                key={`${here.roleKey}-${user.updatedAtUtc}`}
                user={user}
                roleKey={here.roleKey}
                revision={revisionFor(actionData, 'role', undefined, user.revision)}
                lastResult={resultFor(actionData, 'role')}
              />
            ) : null}
            <StatusAction user={user} />
          </div>
        </Section>

        <Section title="Details" description="Names and position belong to the person: every organisation they belong to sees the same.">
          <UserEditForm key={user.updatedAtUtc} user={user} revision={revisionFor(actionData, 'edit', undefined, user.revision)} lastResult={resultFor(actionData, 'edit')} />
        </Section>

        <Section title="Password">
          <div className="flex flex-col gap-6">
            <Form method="post" className="flex flex-col gap-2">
              <CsrfInput />
              <p className="text-sm text-muted">Mails {user.email} a link to choose a new password. It works for one hour.</p>
              <SubmitButton intent="reset-password" pendingLabel="Sending…" variant="secondary" className="self-start">
                Mail a reset link
              </SubmitButton>
            </Form>
            <SetPasswordForm user={user} lastResult={resultFor(actionData, 'set-password')} />
          </div>
        </Section>

        <Section title="Remove from the organisation">
          <ConfirmDialog triggerLabel="Remove member…" title={`Remove ${user.displayName}?`} confirmLabel="Yes, remove for good" pendingLabel="Removing…" intent="hard-delete">
            <p>Removed: their membership of this organisation, their registered devices and their sessions here.</p>
            <p className="mt-2">
              Kept: everything they made (projects, reports, items, photos, documents) stays, and the audit trail. If they belong to no other organisation, their account is
              anonymised: their name shows as “Deleted user”, their e-mail, password and authenticator are erased and they can no longer sign in. If they belong to another
              organisation, their account stays for it.
            </p>
            <p className="mt-2">This cannot be undone. To keep them for later, suspend them instead.</p>
          </ConfirmDialog>
        </Section>
      </div>
    </>
  )
}

function StatusAction({ user }: { user: AdminUser }) {
  if (user.status === 'Active') {
    return (
      <ConfirmDialog triggerLabel="Suspend…" title={`Suspend ${user.displayName}?`} confirmLabel="Yes, suspend" pendingLabel="Suspending…" intent="suspend" className="self-start">
        They are signed out of this organisation at once and cannot use it until they are reactivated. Their account, their other organisations and what they made are not affected.
      </ConfirmDialog>
    )
  }
  if (user.status === 'Suspended' || user.status === 'Invited') {
    return (
      <Form method="post" className="flex flex-col gap-2">
        <CsrfInput />
        <RevisionInput revision={user.revision} />
        <p className="text-sm text-muted">{user.status === 'Suspended' ? 'They cannot use this organisation until they are reactivated.' : 'They have not joined yet.'}</p>
        <SubmitButton intent="reactivate" pendingLabel="Reactivating…" className="self-start">
          Reactivate
        </SubmitButton>
      </Form>
    )
  }
  return null
}

export function meta({ data: loaded }: Route.MetaArgs) {
  return [{ title: `${loaded?.user.displayName ?? 'User'} · Users · Site Portal` }]
}

/** After a save refused as stale the screen reads its data again (app/lib/revalidate-after-conflict.ts). */
export const shouldRevalidate = revalidateAfterConflict
