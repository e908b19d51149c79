import { parseWithZod } from '@conform-to/zod/v4'
import { redirect } from 'react-router'
import { loadProjectChoice } from '~/components/doc-control/project-choice.server'
import { hasNextPage, pageOf, setPage } from '~/components/doc-control/transmittal-paths'
import { formFailure, invalidForm, noticeOf, type Notice } from '~/components/reporting/report-action'
import type { ApiClient } from '~/lib/api/types'
import { setFlash } from '~/lib/flash.server'
import { SET_PAGE_SIZE, SetCreateSchema } from '~/lib/schemas/sets'

/** /doc-control/sets: a project's sets, a page at a time, and "New set". */
export async function loadSets(api: ApiClient, request: Request, headers: Headers) {
  const choice = await loadProjectChoice(api, request, headers)
  const page = pageOf(new URL(request.url).searchParams)
  if (!choice.projectId) return { ...choice, page, list: null, hasNext: false, notice: null as Notice | null }
  const list = await api.GET('/api/projects/{projectId}/sets', { path: { projectId: choice.projectId }, query: new URLSearchParams({ page: String(page), pageSize: String(SET_PAGE_SIZE) }) })
  return {
    ...choice,
    page,
    list: list.ok ? list.data.items : null,
    hasNext: list.ok ? hasNextPage(list.data, page, SET_PAGE_SIZE) : false,
    notice: list.ok ? null : noticeOf(list.error),
  }
}

export async function createSet(api: ApiClient, projectId: string, formData: FormData, headers: Headers) {
  const submission = parseWithZod(formData, { schema: SetCreateSchema })
  if (submission.status !== 'success') return invalidForm('create', submission)
  const created = await api.POST('/api/projects/{projectId}/sets', { path: { projectId }, body: submission.value, idempotencyKey: true })
  if (!created.ok) return formFailure('create', submission, created.error, headers)
  await setFlash(headers, { tone: 'success', message: `Set “${created.data.name}” created. Choose its revisions.` })
  throw redirect(setPage(created.data.id, projectId), { headers })
}
