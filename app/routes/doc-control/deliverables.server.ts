import { parseWithZod } from '@conform-to/zod/v4'
import { data, redirect } from 'react-router'
import { formFailure, invalidForm, noticeFailure, type ReportingActionData } from '~/components/reporting/report-action'
import type { ApiClient, ApiError } from '~/lib/api/types'
import type { DeliverableImport, Milestone } from '~/lib/doc-control/types'
import { setFlash } from '~/lib/flash.server'
import { revisionFromForm } from '~/lib/schemas/edit-conflict'
import { failureStatus, formMessageFor } from '~/lib/forms'
import { DeliverableEditSchema, DeliverableRefSchema, DeliverableSchema } from '~/lib/schemas/doc-control'

/** The actions of /doc-control/deliverables, one function per intent (docs/doc-control.md "Screens"). */

export type DeliverablesActionData = ReportingActionData & { imported?: DeliverableImport; importError?: string }

/** A CSV larger than this is not a register a person keeps (the API allows 4 MiB). */
const IMPORT_MAX_BYTES = 4 * 1024 * 1024


type Rows = Array<{ name?: string | undefined; plannedDate?: string | undefined } | undefined>

/** The filled rows as milestones, and where each sat in the form (its errors go back to that row). */
function milestonesOf(rows: Rows | undefined): { milestones: Milestone[]; at: number[] } {
  const milestones: Milestone[] = []
  const at: number[] = []
  ;(rows ?? []).forEach((row, index) => {
    if (!row?.name || !row.plannedDate) return
    milestones.push({ name: row.name, plannedDate: row.plannedDate })
    at.push(index)
  })
  return { milestones, at }
}

/** The API's `milestones.{i}.plannedDate` (of the filled rows) as the form's `milestones[{row}].plannedDate`. */
function rowErrors(error: ApiError, at: number[]): ApiError {
  const errors = error.problem?.errors
  if (!errors || !error.problem) return error
  const renamed = Object.fromEntries(
    Object.entries(errors).map(([key, messages]) => [key.replace(/^milestones\.(\d+)\./, (_, i: string) => `milestones[${at[Number(i)] ?? i}].`), messages]),
  )
  return { ...error, problem: { ...error.problem, errors: renamed } }
}

export async function createDeliverable(api: ApiClient, projectId: string, formData: FormData, headers: Headers, back: string) {
  const submission = parseWithZod(formData, { schema: DeliverableSchema })
  if (submission.status !== 'success') return invalidForm('create-deliverable', submission)
  const { number, title, partyId } = submission.value
  const { milestones, at } = milestonesOf(submission.value.milestones)
  const result = await api.POST('/api/projects/{id}/deliverables', { path: { id: projectId }, body: { number, title, partyId: partyId || null, milestones }, idempotencyKey: true })
  if (!result.ok) return formFailure('create-deliverable', submission, rowErrors(result.error, at), headers)
  await setFlash(headers, { tone: 'success', message: `Deliverable ${result.data.number} added.` })
  throw redirect(back, { headers })
}

export async function updateDeliverable(api: ApiClient, formData: FormData, headers: Headers, back: string) {
  const submission = parseWithZod(formData, { schema: DeliverableEditSchema })
  if (submission.status !== 'success') return invalidForm('update-deliverable', submission)
  const { deliverableId, number, title, partyId } = submission.value
  const { milestones, at } = milestonesOf(submission.value.milestones)
  const result = await api.PATCH('/api/deliverables/{id}', {
    path: { id: deliverableId },
    body: { number, title, partyId: partyId || null, milestones, expectedRevision: revisionFromForm(formData.get('expectedRevision')) },
  })
  if (!result.ok) return formFailure('update-deliverable', submission, rowErrors(result.error, at), headers, deliverableId)
  await setFlash(headers, { tone: 'success', message: `Deliverable ${result.data.number} saved.` })
  throw redirect(back, { headers })
}

export async function deleteDeliverable(api: ApiClient, formData: FormData, headers: Headers, back: string) {
  const submission = parseWithZod(formData, { schema: DeliverableRefSchema })
  if (submission.status !== 'success') throw data('The deliverable is missing.', { status: 400 })
  const result = await api.DELETE('/api/deliverables/{id}', { path: { id: submission.value.deliverableId } })
  if (!result.ok) return noticeFailure('delete-deliverable', result.error, headers, submission.value.deliverableId)
  await setFlash(headers, { tone: 'success', message: 'Deliverable deleted.' })
  throw redirect(back, { headers })
}

/**
 * "Import CSV": the uploaded file's text to the API. A clean import goes back to the register with
 * what changed; one with refused lines stays on the page listing them (the good lines are in).
 */
export async function importDeliverables(api: ApiClient, projectId: string, formData: FormData, headers: Headers, back: string) {
  const file = formData.get('file')
  const refuse = (message: string, status = 400) => data<DeliverablesActionData>({ intent: 'import-csv', importError: message }, { status, headers })
  if (!(file instanceof File) || file.size === 0) return refuse('Choose the CSV file to import.')
  if (file.size > IMPORT_MAX_BYTES) return refuse('The file is larger than 4 MB: split it, or import fewer columns.')
  const result = await api.POST('/api/projects/{id}/deliverables/import', { path: { id: projectId }, body: new Blob([await file.text()], { type: 'text/csv' }), idempotencyKey: true })
  if (!result.ok) {
    const message = result.error.problem?.errors?.csv?.[0] ?? formMessageFor(result.error)
    return refuse(message, failureStatus(result.error))
  }
  const { created, updated, errors } = result.data
  if (errors.length > 0) return data<DeliverablesActionData>({ intent: 'import-csv', imported: result.data }, { headers })
  await setFlash(headers, { tone: 'success', message: `Imported: ${created} added, ${updated} updated.` })
  throw redirect(back, { headers })
}
