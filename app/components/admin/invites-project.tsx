import { getFormProps, getInputProps, getSelectProps, getTextareaProps, type SubmissionResult, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from 'react-router'
import { Badge, type BadgeTone } from '~/components/ui/badge'
import { Banner } from '~/components/ui/banner'
import { ConfirmDialog } from '~/components/ui/confirm-dialog'
import { CopyLinkField } from '~/components/ui/copy-link-field'
import { CsrfInput } from '~/components/ui/csrf-input'
import { DataTable } from '~/components/ui/data-table'
import { EmptyState } from '~/components/ui/empty-state'
import { Field } from '~/components/ui/field'
import { FormError } from '~/components/ui/form-error'
import { SelectField } from '~/components/ui/select-field'
import { SubmitButton } from '~/components/ui/submit-button'
import { TextareaField } from '~/components/ui/textarea-field'
import { type CreatedProjectInvite, PROJECT_INVITE_STATUS_LABELS, type ProjectInvite, type ProjectInviteStatus } from '~/lib/admin/invites'
import { formatDateTime } from '~/lib/format'
import { ProjectInviteCreateSchema } from '~/lib/schemas/admin-invites'
import { ROLE_OPTIONS } from './invites-create-form'

const TONES: Record<ProjectInviteStatus, BadgeTone> = { active: 'info', 'used-up': 'neutral', cancelled: 'neutral', expired: 'warning' }

/**
 * An organisation invite made (or sent again) while mail is not set up: what really happened, and
 * its link to pass on by hand, shown this once (the link is stored only as its hash).
 */
export function InviteQueued({ email, link, resent }: { email: string; link: string; resent: boolean }) {
  return (
    <Banner tone="success" title={resent ? 'New invitation link made' : 'Invitation created'} className="mb-6">
      <p>
        {resent ? 'New invitation link made' : 'Invitation created'}; the e-mail is queued because mail is not set up (Administration › Configuration › Mail). Pass the link on to{' '}
        {email} yourself meanwhile: it works for 7 days{resent ? ', and the old link no longer works' : ''}.
      </p>
      <div className="mt-3">
        <CopyLinkField label={`Invitation link for ${email}`} link={link} testId="invite-link" />
      </div>
    </Banner>
  )
}

/** The link and the code of the invite just made: shown this once, never stored in readable form. */
export function ProjectInviteCreated({ created, mailQueued }: { created: CreatedProjectInvite; mailQueued: boolean }) {
  return (
    <Banner tone="success" title="Project invitation made" className="mb-6">
      <p>
        {mailQueued && created.invite.email
          ? `Invitation created; the e-mail to ${created.invite.email} is queued because mail is not set up (Administration › Configuration › Mail). Pass the link on yourself meanwhile.`
          : 'Copy the link and the code now: they are shown only this once.'}
      </p>
      <div className="mt-3 grid gap-3">
        <CopyLinkField label="Invitation link" link={created.link} testId="project-invite-link" />
        <dl>
          <dt className="text-sm font-medium">Invite code (typed on the Join page)</dt>
          <dd>
            <code className="text-xl font-semibold tracking-widest" data-testid="project-invite-code">
              {created.code}
            </code>
          </dd>
        </dl>
      </div>
    </Banner>
  )
}

export function ProjectInviteForm({ lastResult, idempotencyKey }: { lastResult: SubmissionResult<string[]> | undefined; idempotencyKey: string }) {
  const [form, fields] = useForm({
    id: 'project-invite-create',
    lastResult,
    defaultNoValidate: false,
    constraint: getZodConstraint(ProjectInviteCreateSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ProjectInviteCreateSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} className="flex max-w-xl flex-col gap-4">
      <CsrfInput />
      <input type="hidden" name="idempotencyKey" value={idempotencyKey} />
      <FormError id={form.errorId} errors={form.errors} />
      <SelectField
        label="Role for people who are not members yet"
        help="Members keep their role. Everyone who accepts gets this role’s level on the project’s documents."
        selectProps={getSelectProps(fields.roleKey)}
        options={ROLE_OPTIONS}
        placeholder="Choose a role"
        errors={fields.roleKey.errors}
      />
      <Field
        label="E-mail address (optional)"
        help="Mails the link and the code to this address; only this address can accept. Leave empty for a code to hand out on site."
        inputProps={{ ...getInputProps(fields.email, { type: 'email' }), autoComplete: 'off', spellCheck: false }}
        errors={fields.email.errors}
      />
      <div className="grid gap-4 sm:grid-cols-2">
        <Field
          label="Maximum uses (optional)"
          help="Empty: no limit."
          inputProps={{ ...getInputProps(fields.maxUses, { type: 'number' }), inputMode: 'numeric' }}
          errors={fields.maxUses.errors}
        />
        <Field
          label="Valid for days (optional)"
          help="14 days unless you say otherwise."
          inputProps={{ ...getInputProps(fields.expiresInDays, { type: 'number' }), inputMode: 'numeric' }}
          errors={fields.expiresInDays.errors}
        />
      </div>
      <TextareaField label="Message (optional)" textareaProps={{ ...getTextareaProps(fields.message), rows: 2 }} errors={fields.message.errors} />
      <div>
        <SubmitButton intent="project-create" pendingLabel="Making the invitation…">
          Make link and code
        </SubmitButton>
      </div>
    </Form>
  )
}

export function ProjectInvitesTable({
  invites,
  locale,
  nextCursor,
  isFirstPage,
}: {
  invites: readonly ProjectInvite[]
  locale: string
  nextCursor: string | null
  isFirstPage: boolean
}) {
  return (
    <DataTable
      caption="Invitations to this project"
      rows={invites}
      rowKey={(invite) => invite.id}
      emptyState={<EmptyState heading="No invitations to this project yet">Make a link and a code with the form above.</EmptyState>}
      pagination={{
        previous: isFirstPage ? null : { projectAfter: null },
        next: nextCursor ? { projectAfter: nextCursor } : null,
        label: 'Project invitation pages',
      }}
      columns={[
        { key: 'made', header: 'Made', rowHeader: true, cell: (invite) => formatDateTime(invite.createdAtUtc, locale) },
        { key: 'for', header: 'For', cell: (invite) => <span className="break-all">{invite.email ?? 'Anyone with the code'}</span> },
        { key: 'role', header: 'Role', cell: (invite) => invite.roleName },
        { key: 'status', header: 'Status', cell: (invite) => <Badge tone={TONES[invite.status]}>{PROJECT_INVITE_STATUS_LABELS[invite.status]}</Badge> },
        { key: 'uses', header: 'Used', hideOnMobile: true, cell: (invite) => (invite.maxUses === null ? `${invite.useCount}` : `${invite.useCount} of ${invite.maxUses}`) },
        { key: 'expires', header: 'Works until', hideOnMobile: true, cell: (invite) => formatDateTime(invite.expiresAtUtc, locale) },
        {
          key: 'actions',
          header: <span className="sr-only">Actions</span>,
          cell: (invite) =>
            invite.status === 'active' ? (
              <ConfirmDialog
                triggerLabel="Cancel…"
                title="Cancel this project invitation?"
                confirmLabel="Yes, cancel invitation"
                pendingLabel="Cancelling…"
                intent="project-cancel"
                fields={{ inviteId: invite.id }}
              >
                Its link and its code stop working. People who already accepted keep their access.
              </ConfirmDialog>
            ) : null,
        },
      ]}
    />
  )
}
