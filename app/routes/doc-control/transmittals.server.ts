import { parseWithZod } from '@conform-to/zod/v4'
import { redirect } from 'react-router'
import { loadProjectChoice } from '~/components/doc-control/project-choice.server'
import { hasNextPage, pageOf } from '~/components/doc-control/transmittal-paths'
import { NUMBERING_INTENT } from '~/components/doc-control/transmittal-numbering-form'
import { formFailure, invalidForm, noticeOf, type Notice } from '~/components/reporting/report-action'
import type { ApiClient } from '~/lib/api/types'
import type { ExportEstimate } from '~/lib/exports/types'
import { TRANSMITTAL_STATUSES, type TransmittalStatus } from '~/lib/doc-control/types'
import type { TransmittalNumbering } from '~/lib/doc-control/transmittal-numbering'
import { setFlash } from '~/lib/flash.server'
import { TransmittalNumberingPutSchema } from '~/lib/schemas/transmittal-numbering'
import { TRANSMITTAL_PAGE_SIZE } from '~/lib/schemas/transmittals'

/** /doc-control/transmittals: a project's transmittals, newest first, filtered by status, a page at a time (all of it in the address). */
export async function loadTransmittals(api: ApiClient, request: Request, headers: Headers) {
  const choice = await loadProjectChoice(api, request, headers)
  const status = statusFilterOf(request)
  const page = pageOf(new URL(request.url).searchParams)
  if (!choice.projectId) return { ...choice, status, page, list: null, hasNext: false, numbering: null as TransmittalNumbering | null, exportJob: null as ExportEstimate | null, notice: null as Notice | null }
  const query = new URLSearchParams({ page: String(page), pageSize: String(TRANSMITTAL_PAGE_SIZE) })
  if (status) query.set('status', status)
  const [list, numbering, exportSize] = await Promise.all([
    api.GET('/api/projects/{projectId}/transmittals', { path: { projectId: choice.projectId }, query: new URLSearchParams(query) }),
    api.GET('/api/projects/{projectId}/transmittal-numbering', { path: { projectId: choice.projectId } }),
    api.GET('/api/exports/estimate', { query: new URLSearchParams({ kind: 'transmittals-csv', ...transmittalsJobFilters(choice.projectId, status) }) }),
  ])
  return {
    numbering: numbering.ok ? numbering.data : null,
    // Too many to stream: exported as a job (docs/exports.md); without the answer, the links stream as before.
    exportJob: exportSize.ok && exportSize.data.asJob ? exportSize.data : null,
    ...choice,
    status,
    page,
    list: list.ok ? list.data.items : null,
    hasNext: list.ok ? hasNextPage(list.data, page, TRANSMITTAL_PAGE_SIZE) : false,
    notice: list.ok ? null : noticeOf(list.error),
  }
}

/** The list's selection as the export job's filters (POST /api/exports, kinds transmittals-csv and transmittals-xlsx). */
export function transmittalsJobFilters(projectId: string, status: TransmittalStatus | null): Record<string, string> {
  return status ? { project: projectId, transmittalStatus: status } : { project: projectId }
}

/** The status filter of the address, when it is one. */
export function statusFilterOf(request: Request): TransmittalStatus | null {
  const wanted = new URL(request.url).searchParams.get('status') ?? ''
  return (TRANSMITTAL_STATUSES as readonly string[]).includes(wanted) ? (wanted as TransmittalStatus) : null
}

/** The numbering form of /doc-control/transmittals: PUT the format, then back to the list with what the next number will be. */
export async function saveNumbering(api: ApiClient, projectId: string, formData: FormData, headers: Headers, back: string) {
  const submission = parseWithZod(formData, { schema: TransmittalNumberingPutSchema })
  if (submission.status !== 'success') return invalidForm(NUMBERING_INTENT, submission)
  const result = await api.PUT('/api/projects/{projectId}/transmittal-numbering', { path: { projectId }, body: submission.value })
  if (!result.ok) return formFailure(NUMBERING_INTENT, submission, result.error, headers)
  await setFlash(headers, { tone: 'success', message: `Number format saved: the next transmittal will be ${result.data.nextNumber}.` })
  throw redirect(back, { headers })
}
