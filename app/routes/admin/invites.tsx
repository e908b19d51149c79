import { data, useActionData } from 'react-router'
import { InvitesTable, InviteStatusFilter } from '~/components/admin/invites-table'
import { ProjectPicker } from '~/components/documents/project-picker'
import { resultFor } from '~/components/reporting/report-action'
import { Banner } from '~/components/ui/banner'
import { PageHeader } from '~/components/ui/page-header'
import { Section } from '~/components/ui/section'
import { useLiveRevalidation } from '~/islands/realtime/use-live-revalidation'
import { createServerApi } from '~/lib/api.server'
import { invitesHref } from '~/lib/admin/invites'
import { projectTitle } from '~/lib/reporting/types'
import { useLocale } from '~/root'
import type { Route } from './+types/invites'
import { cancelInvite, cancelProjectInvite, createInvite, createProjectInvite, invitesQuery, loadInvitesPage, resendInvite } from './invites.server'
import type { InvitesActionData } from './invites.server'
import { deferred, partsBeforeNavigation } from '~/components/ui/deferred'

// The forms hydrate after the rest of the screen (app/components/ui/deferred.tsx), so the form
// library is not in the screen's first load.
const loadInviteCreateForm = async () => (await import('~/components/admin/invites-create-form')).InviteCreateForm
const InviteCreateForm = deferred(loadInviteCreateForm, import.meta.env.SSR ? await loadInviteCreateForm() : undefined)
const loadInviteQueued = async () => (await import('~/components/admin/invites-project')).InviteQueued
const InviteQueued = deferred(loadInviteQueued, import.meta.env.SSR ? await loadInviteQueued() : undefined)
const loadProjectInviteCreated = async () => (await import('~/components/admin/invites-project')).ProjectInviteCreated
const ProjectInviteCreated = deferred(loadProjectInviteCreated, import.meta.env.SSR ? await loadProjectInviteCreated() : undefined)
const loadProjectInviteForm = async () => (await import('~/components/admin/invites-project')).ProjectInviteForm
const ProjectInviteForm = deferred(loadProjectInviteForm, import.meta.env.SSR ? await loadProjectInviteForm() : undefined)
const loadProjectInvitesTable = async () => (await import('~/components/admin/invites-project')).ProjectInvitesTable
const ProjectInvitesTable = deferred(loadProjectInvitesTable, import.meta.env.SSR ? await loadProjectInvitesTable() : undefined)
await partsBeforeNavigation(InviteCreateForm, InviteQueued, ProjectInviteCreated, ProjectInviteForm, ProjectInvitesTable)

/**
 * Administration › Invites (docs/admin/invites.md): invite an address to the organisation with a
 * role, see every invitation with its status (filter and pages in the URL), resend or cancel one;
 * and project invitations: a link and a short code per project, shown once when made.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const query = invitesQuery(new URL(request.url))
  const { api, responseHeaders } = createServerApi(request, context)
  const page = await loadInvitesPage(api, query, responseHeaders)
  // One idempotency key per rendered form: submitting the same form twice invites once.
  return data({ query, ...page, idempotencyKey: crypto.randomUUID() }, { headers: responseHeaders })
}

export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData()
  const { api, responseHeaders } = createServerApi(request, context, { form: formData })
  const query = invitesQuery(new URL(request.url))
  switch (String(formData.get('intent') ?? '')) {
    case 'invite':
      return createInvite(api, formData, query, responseHeaders)
    case 'resend':
      return resendInvite(api, formData, query, responseHeaders)
    case 'cancel':
      return cancelInvite(api, formData, query, responseHeaders)
    case 'project-create':
      return createProjectInvite(api, formData, query, responseHeaders)
    case 'project-cancel':
      return cancelProjectInvite(api, formData, query, responseHeaders)
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

export default function Invites({ loaderData }: Route.ComponentProps) {
  const { query, invites, nextCursor, projects, projectInvites, projectNextCursor, notice: loadNotice, idempotencyKey, seats } = loaderData
  const actionData = useActionData<typeof action>() as InvitesActionData | undefined
  const locale = useLocale()
  useLiveRevalidation((change) => change.entityType === 'Invite' || change.entityType === 'Membership')
  const notice = actionData?.notice ?? loadNotice
  const project = projects.find((p) => p.id === query.projectId)
  return (
    <>
      <PageHeader title="Invites" description="Invite people to the organisation, and make invitations to a project that people can open as a link or type as a code." />
      {notice ? (
        <Banner tone="critical" title="That did not work" correlationId={notice.correlationId} className="mb-6">
          {notice.message}
        </Banner>
      ) : null}
      {seats ? (
        <Banner tone="warning" title={seats.free === 0 ? 'No free seat' : 'One seat left'} className="mb-6">
          {seats.used} of {seats.total} seats are held and {seats.reserved} reserved by pending invites.{' '}
          {seats.free === 0 && seats.enforced ? 'New invites are refused until a seat is free: cancel an invite, revoke a seat, or buy more seats in Settings › Billing.' : 'Buy more seats in Settings › Billing before you run out.'}
        </Banner>
      ) : null}
      {actionData?.queued ? <InviteQueued {...actionData.queued} /> : null}
      <div className="flex flex-col gap-10">
        <Section title="Invite someone" description="They get an e-mail with a link to join. The link works for 7 days; resending makes a new one.">
          <InviteCreateForm lastResult={resultFor(actionData, 'invite')} idempotencyKey={idempotencyKey} />
        </Section>
        <Section title="Invitations" description="Newest first.">
          <InviteStatusFilter status={query.status} hrefFor={(status) => invitesHref({ status, projectId: query.projectId })} />
          <InvitesTable invites={invites} locale={locale} nextCursor={nextCursor} isFirstPage={!query.after} filtered={query.status !== null} />
        </Section>
        <Section
          title="Project invites"
          description="A link and a short code for one project. Whoever accepts joins the organisation (unless a member already) and gets the project."
        >
          <ProjectPicker projects={projects} projectId={query.projectId} action="/admin/invites" selectId="invites-project" className="mb-6" />
          {actionData?.created ? <ProjectInviteCreated created={actionData.created} mailQueued={actionData.mailQueued === true} /> : null}
          {query.projectId ? (
            <div className="flex flex-col gap-8">
              <div>
                <h3 className="mb-3 text-lg font-semibold">New invitation to {project ? projectTitle(project.title) : 'this project'}</h3>
                <ProjectInviteForm lastResult={resultFor(actionData, 'project-create')} idempotencyKey={idempotencyKey} />
              </div>
              <ProjectInvitesTable invites={projectInvites} locale={locale} nextCursor={projectNextCursor} isFirstPage={!query.projectAfter} />
            </div>
          ) : (
            <p className="text-sm text-muted">Choose a project to make an invitation to it or to see its invitations.</p>
          )}
        </Section>
      </div>
    </>
  )
}

export function meta() {
  return [{ title: 'Invites · Site Portal' }]
}
