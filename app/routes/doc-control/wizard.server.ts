import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { loadProjectChoice } from '~/components/doc-control/project-choice.server'
import { idsOf, transmittalPage, wizardPage } from '~/components/doc-control/transmittal-paths'
import { isUuid } from '~/lib/schemas/uuid'
import { picksOf, withPicks, withoutRevision } from '~/components/doc-control/wizard-picks'
import { isStep, previousStep, type ScreenStep, stepOf } from '~/components/doc-control/wizard-steps'
import { loadError } from '~/components/reporting/item-action'
import { conflictRevision, formFailure, noticeFailure, noticeOf, type Notice, type ReportingActionData } from '~/components/reporting/report-action'
import { revisionFromForm } from '~/lib/schemas/edit-conflict'
import type { ApiClient, ApiError } from '~/lib/api/types'
import type { DocumentSet, Party, Transmittal } from '~/lib/doc-control/types'
import { parseDocumentsQuery, searchParamsOf } from '~/lib/documents/query'
import type { SearchPage } from '~/lib/documents/types'
import { setFlash } from '~/lib/flash.server'
import { failureStatus } from '~/lib/forms'
import type { Member } from '~/lib/reporting/types'
import { TRANSMITTAL_MESSAGE_MAX, TRANSMITTAL_SUBJECT_MAX, TransmittalPatchSchema } from '~/lib/schemas/transmittals'
import { PurposeSchema } from '~/lib/schemas/sets'
import { MAILS_QUEUED, mailSetUp } from '~/lib/mail-status.server'

/**
 * /doc-control/wizard (docs/doc-control.md "Transmittals"): issuing documents step by step. The
 * state lives in the server, on a draft transmittal made at the start: each step's form saves to
 * it (PUT revisions, PUT recipients, PATCH fields) and PATCHes `wizardStep`, and the address
 * names the draft (`?transmittalId=`), so a reload, a lost connection or another device continues
 * where the user was. Without JavaScript every step is a plain form post.
 */

export type WizardActionData = ReportingActionData & {
  /** Recipients as posted, when the step came back with a problem: the ticks stay as they were. */
  chosen?: { userIds: string[]; partyIds: string[] }
  /** The rule book's warnings when a suitability does not fit the purpose: Send again with the confirmation ticked. */
  purposeWarnings?: string[]
}

type Choice = Awaited<ReturnType<typeof loadProjectChoice>>

export type WizardScreen =
  | ({ kind: 'choose' } & Choice)
  | ({ kind: 'start'; sets: DocumentSet[]; setId: string | null; drafts: Transmittal[]; notice: Notice | null } & Choice)
  | ({
      kind: 'draft'
      transmittal: Transmittal
      step: ScreenStep
      picker: { query: ReturnType<typeof parseDocumentsQuery>; list: SearchPage | null; disciplines: Array<{ code: string; description: string }> } | null
      sets: DocumentSet[]
      members: Member[]
      parties: Party[]
      notice: Notice | null
    } & Choice)

export async function loadWizard(api: ApiClient, request: Request, headers: Headers): Promise<WizardScreen> {
  const url = new URL(request.url)
  const transmittalId = url.searchParams.get('transmittalId')
  if (transmittalId !== null) {
    const transmittal = await draftOf(api, transmittalId, headers)
    // The draft decides the project: an address without it (or with another) is put right.
    if (url.searchParams.get('projectId') !== transmittal.projectId) {
      const fixed = new URLSearchParams(url.searchParams)
      fixed.set('projectId', transmittal.projectId)
      throw redirect(`/doc-control/wizard?${fixed}`, { headers })
    }
    return loadDraft(api, request, transmittal, headers)
  }
  const choice = await loadProjectChoice(api, request, headers)
  if (!choice.projectId) return { kind: 'choose', ...choice }
  const setId = url.searchParams.get('setId')
  const [sets, drafts] = await Promise.all([
    api.GET('/api/projects/{projectId}/sets', { path: { projectId: choice.projectId }, query: { pageSize: 100 } }),
    api.GET('/api/projects/{projectId}/transmittals', { path: { projectId: choice.projectId }, query: { status: 'draft', pageSize: 25 } }),
  ])
  const failed = [sets, drafts].find((result) => !result.ok)
  return {
    kind: 'start',
    ...choice,
    sets: sets.ok ? sets.data.items : [],
    setId: isUuid(setId) ? setId : null,
    drafts: drafts.ok ? drafts.data.items : [],
    notice: failed && !failed.ok ? noticeOf(failed.error) : null,
  }
}

/** The draft of the address. A sent one opens on its own page; an unknown, another tenant's or malformed id is the 404 screen. */
async function draftOf(api: ApiClient, transmittalId: string, headers: Headers): Promise<Transmittal> {
  if (!isUuid(transmittalId)) throw loadError(notFoundError(), headers)
  const found = await api.GET('/api/transmittals/{transmittalId}', { path: { transmittalId } })
  if (!found.ok) throw loadError(found.error, headers)
  if (found.data.status !== 'draft') throw redirect(transmittalPage(found.data.id, found.data.projectId), { headers })
  return found.data
}

/** What the draft's step needs: the document search and the sets (revisions), the people and parties (recipients). */
async function loadDraft(api: ApiClient, request: Request, transmittal: Transmittal, headers: Headers): Promise<WizardScreen> {
  const choice = await loadProjectChoice(api, request, headers)
  const step = stepOf(transmittal.wizardStep)
  const projectId = transmittal.projectId
  const base = { kind: 'draft' as const, ...choice, transmittal, step, picker: null, sets: [], members: [], parties: [], notice: null }
  if (step === 'revisions') {
    const query = parseDocumentsQuery(new URL(request.url).searchParams)
    const [list, naming, sets] = await Promise.all([
      api.GET('/api/documents/search', { query: new URLSearchParams(searchParamsOf({ ...query, projectId, folderId: null })) }),
      api.GET('/api/projects/{id}/naming-standard', { path: { id: projectId } }),
      api.GET('/api/projects/{projectId}/sets', { path: { projectId }, query: { pageSize: 100 } }),
    ])
    const failed = [list, sets].find((result) => !result.ok)
    return {
      ...base,
      picker: { query, list: list.ok ? list.data : null, disciplines: naming.ok ? (naming.data.fields.find((f) => f.key === 'role')?.codes ?? []) : [] },
      sets: sets.ok ? sets.data.items.filter((set) => set.revisions.length > 0) : [],
      notice: failed && !failed.ok ? noticeOf(failed.error) : null,
    }
  }
  if (step === 'recipients') {
    const [members, parties] = await Promise.all([api.GET('/api/members'), api.GET('/api/projects/{id}/parties', { path: { id: projectId } })])
    const failed = [members, parties].find((result) => !result.ok)
    return { ...base, members: members.ok ? members.data.items : [], parties: parties.ok ? parties.data.items : [], notice: failed && !failed.ok ? noticeOf(failed.error) : null }
  }
  return base
}

// ---- Actions ----

/** "Start": a new draft (with a set's revisions when one was chosen), then its first step. */
export async function startDraft(api: ApiClient, projectId: string, formData: FormData, headers: Headers) {
  const setId = String(formData.get('setId') ?? '')
  if (setId !== '' && !isUuid(setId)) return fieldProblem('start', { setId: ['Choose a set from the list.'] })
  const created = await api.POST('/api/projects/{projectId}/transmittals', { path: { projectId }, body: setId ? { setId } : {}, idempotencyKey: true })
  if (!created.ok) return failure('start', created.error, headers)
  throw redirect(wizardPage(projectId, { transmittalId: created.data.id }), { headers })
}

/** Every other intent works on the draft of the address, as it is now. */
export async function draftAction(api: ApiClient, request: Request, formData: FormData, headers: Headers) {
  const transmittalId = new URL(request.url).searchParams.get('transmittalId')
  if (!transmittalId) throw data('The draft is missing.', { status: 400 })
  const draft = await draftForAction(api, transmittalId, headers)
  const intent = String(formData.get('intent') ?? '')
  const posted = String(formData.get('step') ?? '')
  // A page left open in another tab may be a step behind: show where the draft is now.
  if ((intent === 'next' || intent === 'back') && posted !== stepOf(draft.wizardStep)) throw redirect(here(draft), { headers })
  // Next and Back carry what the step's form holds: saved against the draft as the page showed it
  // (a change by someone else since is a conflict, what was typed or ticked kept). Adding or
  // removing revisions and Change work on the draft as just read.
  const opened = revisionFromForm(formData.get('expectedRevision'))
  const asOpened = opened === undefined ? draft : { ...draft, revision: opened }
  switch (intent) {
    case 'add-revisions':
      return addRevisions(api, draft, formData, request, headers)
    case 'remove-revision':
      return removeRevision(api, draft, formData, request, headers)
    case 'add-set':
      return addSet(api, draft, formData, request, headers)
    case 'next':
      return next(api, asOpened, formData, headers)
    case 'back':
      return back(api, asOpened, formData, headers)
    case 'goto': {
      const to = String(formData.get('to') ?? '')
      if (!isStep(to)) throw data('Unknown step', { status: 400 })
      return moveTo(api, draft, to, {}, headers, 'goto')
    }
    case 'send':
      return send(api, draft, formData, headers)
    case 'discard':
      return discard(api, draft, headers)
    default:
      throw data('Unknown intent', { status: 400 })
  }
}

async function draftForAction(api: ApiClient, transmittalId: string, headers: Headers): Promise<Transmittal> {
  if (!isUuid(transmittalId)) throw loadError(notFoundError(), headers)
  const found = await api.GET('/api/transmittals/{transmittalId}', { path: { transmittalId } })
  if (!found.ok) throw loadError(found.error, headers)
  if (found.data.status !== 'draft') {
    await setFlash(headers, { tone: 'info', message: `${found.data.number} has been sent already.` })
    throw redirect(transmittalPage(found.data.id, found.data.projectId), { headers })
  }
  return found.data
}

const here = (draft: Transmittal) => wizardPage(draft.projectId, { transmittalId: draft.id })
/** The same step with its search and page kept (adding and removing revisions stays where the user was). */
const sameAddress = (request: Request) => {
  const url = new URL(request.url)
  return `${url.pathname}${url.search}`
}

async function addRevisions(api: ApiClient, draft: Transmittal, formData: FormData, request: Request, headers: Headers) {
  const picks = picksOf(formData)
  if (picks.length === 0) return fieldProblem('add-revisions', { pick: ['Tick at least one document to add.'] })
  const saved = await putRevisions(api, draft, withPicks(draft.revisions, picks))
  if (!saved.ok) return failure('add-revisions', saved.error, headers)
  await setFlash(headers, { tone: 'success', message: picks.length === 1 ? '1 revision added.' : `${picks.length} revisions added.` })
  throw redirect(sameAddress(request), { headers })
}

async function removeRevision(api: ApiClient, draft: Transmittal, formData: FormData, request: Request, headers: Headers) {
  const revisionId = String(formData.get('revisionId') ?? '')
  const removed = draft.revisions.find((revision) => revision.revisionId === revisionId)
  if (!removed) throw redirect(sameAddress(request), { headers })
  const saved = await putRevisions(api, draft, withoutRevision(draft.revisions, revisionId))
  if (!saved.ok) return failure('remove-revision', saved.error, headers)
  await setFlash(headers, { tone: 'success', message: `${removed.number} ${removed.code} removed.` })
  throw redirect(sameAddress(request), { headers })
}

async function addSet(api: ApiClient, draft: Transmittal, formData: FormData, request: Request, headers: Headers) {
  const setId = String(formData.get('setId') ?? '')
  if (!isUuid(setId)) return fieldProblem('add-set', { setId: ['Choose a set from the list.'] })
  const set = await api.GET('/api/sets/{setId}', { path: { setId } })
  if (!set.ok) return set.error.status === 404 ? fieldProblem('add-set', { setId: ['That set is no longer there.'] }) : failure('add-set', set.error, headers)
  const saved = await putRevisions(api, draft, withPicks(draft.revisions, set.data.revisions))
  if (!saved.ok) return failure('add-set', saved.error, headers)
  await setFlash(headers, { tone: 'success', message: `The revisions of “${set.data.name}” added.` })
  throw redirect(sameAddress(request), { headers })
}

function putRevisions(api: ApiClient, draft: Transmittal, revisionIds: string[]) {
  return api.PUT('/api/transmittals/{transmittalId}/revisions', { path: { transmittalId: draft.id }, body: { revisionIds, expectedRevision: draft.revision } })
}

function recipientsOf(formData: FormData) {
  return { userIds: idsOf(formData, 'userIds'), partyIds: idsOf(formData, 'partyIds') }
}

async function next(api: ApiClient, draft: Transmittal, formData: FormData, headers: Headers) {
  const step = stepOf(draft.wizardStep)
  switch (step) {
    case 'revisions': {
      // "Tick, Next" is one pass: what is ticked is added on the way.
      const picks = picksOf(formData)
      const revisionIds = withPicks(draft.revisions, picks)
      if (revisionIds.length === 0) return fieldProblem('next', { pick: ['Choose at least one revision to issue.'] })
      if (picks.length > 0) {
        const saved = await putRevisions(api, draft, revisionIds)
        if (!saved.ok) return failure('next', saved.error, headers)
        return moveTo(api, saved.data, 'recipients', {}, headers)
      }
      return moveTo(api, draft, 'recipients', {}, headers)
    }
    case 'recipients': {
      const chosen = recipientsOf(formData)
      if (chosen.userIds.length === 0 && chosen.partyIds.length === 0) {
        return data<WizardActionData>({ intent: 'next', result: { status: 'error', error: { recipients: ['Choose at least one person or party.'] } }, chosen }, { status: 400 })
      }
      const saved = await api.PUT('/api/transmittals/{transmittalId}/recipients', { path: { transmittalId: draft.id }, body: { ...chosen, expectedRevision: draft.revision } })
      if (!saved.ok) {
        const answer = failure('next', saved.error, headers, recipientErrors(saved.error))
        answer.data.chosen = chosen
        return answer
      }
      return moveTo(api, saved.data, 'message', {}, headers)
    }
    case 'message': {
      const submission = parseWithZod(formData, { schema: TransmittalPatchSchema })
      if (submission.status !== 'success') return data<WizardActionData>({ intent: 'next', result: submission.reply() }, { status: 400 })
      const { subject, purpose, message, responseDueDate } = submission.value
      // What this step asks beyond the PATCH body: a subject (sending needs one), and a due date still to come.
      const problems: Record<string, string[]> = {}
      if (!subject) problems.subject = ['Give the transmittal a subject.']
      if (responseDueDate && responseDueDate < todayUtc()) problems.responseDueDate = ['Give a date from today on.']
      if (Object.keys(problems).length > 0) return data<WizardActionData>({ intent: 'next', result: submission.reply({ fieldErrors: problems }) }, { status: 400 })
      const saved = await api.PATCH('/api/transmittals/{transmittalId}', { path: { transmittalId: draft.id }, body: {
        subject,
        purpose,
        message: message ?? '',
        responseDueDate: responseDueDate ?? null,
        wizardStep: 'review',
        expectedRevision: draft.revision,
      } })
      if (!saved.ok) return formFailure('next', submission, saved.error, headers)
      throw redirect(here(draft), { headers })
    }
    case 'review':
      throw redirect(here(draft), { headers })
  }
}

/** Back saves what the step holds that can be saved (nothing typed is thrown away by going back), then moves. */
async function back(api: ApiClient, draft: Transmittal, formData: FormData, headers: Headers) {
  const step = stepOf(draft.wizardStep)
  let current = draft
  if (step === 'recipients') {
    const saved = await api.PUT('/api/transmittals/{transmittalId}/recipients', { path: { transmittalId: draft.id }, body: { ...recipientsOf(formData), expectedRevision: draft.revision } })
    if (!saved.ok && saved.error.status !== 422 && saved.error.status !== 400) {
      const answer = failure('back', saved.error, headers)
      answer.data.chosen = recipientsOf(formData)
      return answer
    }
    if (saved.ok) current = saved.data
  }
  return moveTo(api, current, previousStep(step), step === 'message' ? savableFields(formData) : {}, headers, 'back')
}

/** The message step's fields that are valid on their own, for Back. */
function savableFields(formData: FormData): Record<string, string | null> {
  const fields: Record<string, string | null> = {}
  const text = (name: string) => String(formData.get(name) ?? '').trim()
  const subject = text('subject')
  if (subject.length <= TRANSMITTAL_SUBJECT_MAX) fields.subject = subject
  const purpose = PurposeSchema.safeParse(text('purpose'))
  if (purpose.success) fields.purpose = purpose.data
  const message = text('message')
  if (message.length <= TRANSMITTAL_MESSAGE_MAX) fields.message = message
  const due = text('responseDueDate')
  if (due === '') fields.responseDueDate = null
  else if (/^\d{4}-\d{2}-\d{2}$/.test(due) && !Number.isNaN(Date.parse(`${due}T00:00:00Z`))) fields.responseDueDate = due
  return fields
}

async function moveTo(api: ApiClient, draft: Transmittal, step: ScreenStep, fields: Record<string, string | null>, headers: Headers, intent = 'next') {
  const expectedRevision = draft.revision
  let moved = await api.PATCH('/api/transmittals/{transmittalId}', { path: { transmittalId: draft.id }, body: { ...fields, wizardStep: step, expectedRevision } })
  // Fields the API refused are not worth blocking a move for: the step itself is saved.
  if (!moved.ok && Object.keys(fields).length > 0 && (moved.error.status === 422 || moved.error.status === 400)) {
    moved = await api.PATCH('/api/transmittals/{transmittalId}', { path: { transmittalId: draft.id }, body: { wizardStep: step, expectedRevision } })
  }
  if (!moved.ok) return failure(intent, moved.error, headers)
  throw redirect(here(draft), { headers })
}

/**
 * "Send transmittal". When a revision's suitability does not fit the purpose (the rule book), the
 * API asks to confirm: the step shows the warnings and a confirmation to tick, and the second
 * Send carries it (`confirmPurpose`); the warnings and the answer stay on the transmittal.
 */
async function send(api: ApiClient, draft: Transmittal, formData: FormData, headers: Headers) {
  const confirmPurpose = formData.get('confirmPurpose') === 'yes'
  const sent = await api.POST('/api/transmittals/{transmittalId}/send', { path: { transmittalId: draft.id }, body: confirmPurpose ? { confirmPurpose: true } : {}, idempotencyKey: true })
  if (!sent.ok) {
    const warnings = sent.error.problem?.code === 'KR_PURPOSE_UNCONFIRMED' ? sent.error.problem.errors?.confirmPurpose : undefined
    if (warnings && warnings.length > 0) return data<WizardActionData>({ intent: 'send', purposeWarnings: warnings }, { status: 409, headers })
    return failure('send', sent.error, headers)
  }
  const count = sent.data.recipients.length + sent.data.outsideRecipients.length
  const recipients = count === 1 ? '1 recipient' : `${count} recipients`
  const outside = sent.data.outsideRecipients.length
  const outsideWords = outside === 0 ? '' : outside === 1 ? '1 outside contact gets a link by mail' : `${outside} outside contacts get a link by mail`
  // "Sent" only when mail really goes out; the transmittal is issued and in their inboxes either way.
  const message = (await mailSetUp(api))
    ? `${sent.data.number} sent to ${recipients}${outside > 0 ? ` (${outsideWords})` : ''}.`
    : `${sent.data.number} issued to ${recipients}: ${sent.data.recipients.length === 0 ? '' : outside > 0 ? 'members find it in their inbox; ' : 'they find it in their inbox; '}${outside > 0 ? `${outsideWords} once it goes out; ` : ''}${MAILS_QUEUED}.`
  await setFlash(headers, { tone: 'success', message })
  throw redirect(transmittalPage(sent.data.id, sent.data.projectId), { headers })
}

/** "Discard draft" (after its confirmation): DELETE /api/transmittals/{id}; the draft and its choices are gone. */
async function discard(api: ApiClient, draft: Transmittal, headers: Headers) {
  const deleted = await api.DELETE('/api/transmittals/{transmittalId}', { path: { transmittalId: draft.id } })
  if (!deleted.ok) return noticeFailure('discard', deleted.error, headers)
  await setFlash(headers, { tone: 'success', message: `Draft ${draft.number} discarded.` })
  throw redirect(wizardPage(draft.projectId), { headers })
}

// ---- Answers ----

function fieldProblem(intent: string, fieldErrors: Record<string, string[]>) {
  return data<WizardActionData>({ intent, result: { status: 'error', error: fieldErrors } }, { status: 400 })
}

/**
 * A call failed: field errors (422 with `errors`) go next to their fields; anything else (refused,
 * a conflict, what is missing for sending) is the page's banner, with the API's own words.
 */
function failure(intent: string, error: ApiError, headers: Headers, fieldErrors?: Record<string, string[]>) {
  const errors = fieldErrors ?? error.problem?.errors
  const init = { status: failureStatus(error), headers }
  if (errors && Object.keys(errors).length > 0 && intent !== 'send') return data<WizardActionData>({ intent, result: { status: 'error', error: errors } }, init)
  const notice = noticeOf(error)
  if (errors && Object.keys(errors).length > 0) notice.message = [notice.message, ...Object.values(errors).flat()].filter(Boolean).join(' ')
  // A stale save (409 KR_EDIT_CONFLICT): the step's next save goes against the draft as it is now.
  return data<WizardActionData>({ intent, notice, revision: conflictRevision(error) }, init)
}

/** The API names recipient problems by its fields; the step shows them above its choices. */
function recipientErrors(error: ApiError): Record<string, string[]> | undefined {
  const errors = error.problem?.errors
  if (!errors) return undefined
  return { recipients: Object.values(errors).flat() }
}

function todayUtc(): string {
  return new Date().toISOString().slice(0, 10)
}

function notFoundError(): ApiError {
  return { kind: 404, status: 404, data: null, problem: undefined, correlationId: undefined, message: 'Not found' }
}
