import { createHash } from 'node:crypto'
import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { loadError } from '~/components/reporting/item-action'
import { formFailure, invalidForm, noticeFailure, noticeOf, type ReportingActionData } from '~/components/reporting/report-action'
import { type CreatedProjectInvite, INVITE_STATUSES, invitesHref, type InviteStatus } from '~/lib/admin/invites'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { InviteCreateSchema, ProjectInviteCreateSchema } from '~/lib/schemas/admin-invites'
import { isUuid } from '~/lib/schemas/uuid'
import { mailSetUp } from '~/lib/mail-status.server'

/** /admin/invites: what it loads and its actions (docs/admin/invites.md). */

const PROJECTS_MAX = 100

export type InvitesQuery = { status: InviteStatus | null; after: string | null; projectId: string | null; projectAfter: string | null }

export function invitesQuery(url: URL): InvitesQuery {
  const status = url.searchParams.get('status')
  const projectId = url.searchParams.get('projectId')
  return {
    status: (INVITE_STATUSES as readonly string[]).includes(status ?? '') ? (status as InviteStatus) : null,
    after: url.searchParams.get('after') || null,
    projectId: projectId && isUuid(projectId) ? projectId : null,
    projectAfter: url.searchParams.get('projectAfter') || null,
  }
}

export async function loadInvitesPage(api: ApiClient, query: InvitesQuery, headers: Headers) {
  const params = new URLSearchParams({ limit: '50' })
  if (query.status) params.set('status', query.status)
  if (query.after) params.set('after', query.after)
  const projectParams = new URLSearchParams({ limit: '50' })
  if (query.projectAfter) projectParams.set('after', query.projectAfter)
  const [invites, projects, projectInvites, entitlements] = await Promise.all([
    api.GET('/api/admin/invites', { query: params }),
    api.GET('/api/projects', { query: { limit: PROJECTS_MAX } }),
    query.projectId
      ? api.GET('/api/projects/{projectId}/invites', { path: { projectId: query.projectId }, query: projectParams })
      : null,
    // The seat warning (Settings › Admin › warn near the seat limit, docs/licensing.md): best effort.
    api.GET('/api/entitlements/me'),
  ])
  if (!invites.ok) throw loadError(invites.error, headers)
  return {
    invites: invites.data.items,
    nextCursor: invites.data.nextCursor,
    projects: projects.ok ? projects.data.items.map((p) => ({ id: p.id, title: p.title, status: p.status })) : [],
    projectInvites: projectInvites?.ok ? projectInvites.data.items : [],
    projectNextCursor: projectInvites?.ok ? projectInvites.data.nextCursor : null,
    seats: entitlements.ok && entitlements.data.seats.nearLimit ? entitlements.data.seats : null,
    notice: projectInvites && !projectInvites.ok ? noticeOf(projectInvites.error) : !projects.ok ? noticeOf(projects.error) : null,
  }
}

/** An organisation invite whose mail is queued (mail is not set up): its link, shown this once to pass on by hand. */
export type QueuedInvite = { email: string; link: string; resent: boolean }

export type InvitesActionData = ReportingActionData & { created?: CreatedProjectInvite | undefined; mailQueued?: boolean | undefined; queued?: QueuedInvite | undefined }

export async function createInvite(api: ApiClient, formData: FormData, query: InvitesQuery, headers: Headers) {
  const submission = parseWithZod(formData, { schema: InviteCreateSchema })
  if (submission.status !== 'success') return invalidForm('invite', submission)
  const result = await api.POST('/api/admin/invites', { body: submission.value, idempotencyKey: idempotencyKeyOf(formData, submission.value) })
  if (!result.ok) return formFailure('invite', submission, result.error, headers)
  // Mail not set up: the page answers with the link to copy (shown this once), not a redirect that would lose it.
  if (!(await mailSetUp(api)) && result.data.link) return data<InvitesActionData>({ intent: 'invite', queued: { email: result.data.email, link: result.data.link, resent: false } }, { headers })
  await setFlash(headers, { tone: 'success', message: `Invitation sent to ${result.data.email}. The link works for 7 days.` })
  throw redirect(invitesHref(query), { headers })
}

function inviteIdOf(formData: FormData): string {
  const id = String(formData.get('inviteId') ?? '')
  if (!isUuid(id)) throw data('Choose an invite.', { status: 400 })
  return id
}

/**
 * The Idempotency-Key of a form's call: the rendered form's key with what is sent. The same form sent
 * twice (a double click, a resend after a lost answer) is one call; sent again corrected after an
 * error (with script the page keeps its key, as a failed action does not reload it) it is a new one.
 */
export function idempotencyKeyOf(formData: FormData, body?: unknown): string | true {
  const key = formData.get('idempotencyKey')
  if (typeof key !== 'string' || key === '' || key.length > 100) return true
  return `${key}:${createHash('sha256')
    .update(JSON.stringify(body ?? null))
    .digest('base64url')}`
}

export async function resendInvite(api: ApiClient, formData: FormData, query: InvitesQuery, headers: Headers) {
  const inviteId = inviteIdOf(formData)
  const result = await api.POST('/api/invites/resend', { body: { inviteId }, idempotencyKey: true })
  if (!result.ok) return noticeFailure('resend', result.error, headers, inviteId)
  if (!(await mailSetUp(api)) && result.data.link) return data<InvitesActionData>({ intent: 'resend', queued: { email: result.data.email, link: result.data.link, resent: true } }, { headers })
  await setFlash(headers, { tone: 'success', message: `Invitation sent to ${result.data.email} again, with a new link. The old link no longer works.` })
  throw redirect(invitesHref(query), { headers })
}

export async function cancelInvite(api: ApiClient, formData: FormData, query: InvitesQuery, headers: Headers) {
  const inviteId = inviteIdOf(formData)
  const result = await api.POST('/api/invites/cancel', { body: { inviteId }, idempotencyKey: true })
  if (!result.ok) return noticeFailure('cancel', result.error, headers, inviteId)
  await setFlash(headers, { tone: 'success', message: `Invitation to ${result.data.email} cancelled. Its link no longer works.` })
  throw redirect(invitesHref(query), { headers })
}

/** Answers the page with the link and the code: they are shown this once and never again. */
export async function createProjectInvite(api: ApiClient, formData: FormData, query: InvitesQuery, headers: Headers) {
  const submission = parseWithZod(formData, { schema: ProjectInviteCreateSchema })
  if (!query.projectId) return data<InvitesActionData>({ intent: 'project-create', notice: { message: 'Choose a project first.', correlationId: null } }, { status: 400 })
  if (submission.status !== 'success') return invalidForm('project-create', submission)
  const result = await api.POST('/api/projects/{projectId}/invites/create', { path: { projectId: query.projectId }, body: submission.value, idempotencyKey: idempotencyKeyOf(formData, submission.value) })
  if (!result.ok) {
    if (result.error.status === 404) throw loadError(result.error, headers)
    return formFailure('project-create', submission, result.error, headers)
  }
  const mailQueued = submission.value.email ? !(await mailSetUp(api)) : false
  return data<InvitesActionData>({ intent: 'project-create', created: result.data, mailQueued }, { headers })
}

export async function cancelProjectInvite(api: ApiClient, formData: FormData, query: InvitesQuery, headers: Headers) {
  const inviteId = inviteIdOf(formData)
  const result = await api.POST('/api/project-invites/{inviteId}/cancel', { path: { inviteId }, idempotencyKey: true })
  if (!result.ok) return noticeFailure('project-cancel', result.error, headers, inviteId)
  await setFlash(headers, { tone: 'success', message: 'Project invitation cancelled. Its link and code no longer work.' })
  throw redirect(invitesHref(query), { headers })
}
