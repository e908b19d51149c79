import { type FormEvent, useEffect, useRef, useState } from 'react'
import { useFetcher, useLocation, useSubmit } from 'react-router'
import { useCsrfToken } from '~/components/ui/csrf-input'
import { type PendingUpload, resumableUploadReady } from '~/islands/upload/file-upload-island-loader'
import type { UploadOutcome } from '~/islands/upload/upload-api'
import { revisionTarget } from '~/islands/upload/upload-target'
import { type DocumentsActionData, type ReadyUpload, UPLOAD_FINISHED, UPLOAD_REFUSED } from './document-action'

type ResumableState = {
  /** The last submission of the form went through the fetcher (its answer is the form's). */
  viaFetcher: boolean
  upload: (PendingUpload & { ready: ReadyUpload }) | null
  fileErrors: string[] | null
  /** The file is stored (or refused for good) and the finishing post is on its way. */
  finishing: boolean
}

const IDLE: ResumableState = { viaFetcher: false, upload: null, fileErrors: null, finishing: false }

export type ResumableForm = {
  /** The form's submit handler, after conform's. */
  onSubmit: (event: FormEvent<HTMLFormElement>) => void
  /** The file on its way, for the file field. */
  upload: PendingUpload | null
  onOutcome: (outcome: UploadOutcome) => void
  /** A refused file of this page's form, for the file field. */
  fileErrors: string[] | null
  /** The action's answer to the first step, when this form last went that way. */
  answer: DocumentsActionData | undefined
  busy: boolean
}

/**
 * A form with a revision's file, with JavaScript (docs/documents.md "Screens"). Without it, or
 * before the upload island has arrived, the form posts everything, file included, and the action
 * forwards the file in one request. With the island, submitting takes three steps:
 *
 * 1. the form without its file goes to the action through a fetcher, which checks it and does the
 *    rest of the work (creates the document, checks the revision's code against the current one)
 *    and answers where the file goes, or field errors as usual;
 * 2. the island sends the file as a resumable upload to that document, and completing it issues
 *    the revision;
 * 3. a post of `upload-finished` lets the action say so (a flash) and redirect to the document.
 *
 * When the server refuses the file in step 2, `refusedGoesToAction` (a new document: it exists
 * now, without a revision) posts `upload-refused` so the document's page says what happened;
 * otherwise the refusal shows at the file field and the form stays as it was.
 */
export function useResumableForm({ intent, refusedGoesToAction }: { intent: string; refusedGoesToAction: boolean }): ResumableForm {
  const fetcher = useFetcher<DocumentsActionData>()
  const submit = useSubmit()
  const csrf = useCsrfToken() ?? ''
  const { key: locationKey } = useLocation()
  const chosen = useRef<File | null>(null)
  const [state, setState] = useState<ResumableState>(IDLE)
  const { upload, fileErrors, viaFetcher, finishing } = state

  // The finishing post has navigated (to the same route, on a document's page, so this state lives
  // on): start afresh. Until then the file is stored and its island gone, so nothing can send it twice.
  useEffect(() => {
    setState((before) => (before.finishing ? IDLE : before))
  }, [locationKey])

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    if (event.defaultPrevented) return
    const submitter = (event.nativeEvent as SubmitEvent).submitter
    if (!(submitter instanceof HTMLButtonElement) || submitter.value !== intent) {
      setState((before) => ({ ...before, viaFetcher: false }))
      return
    }
    // A second click while the first is on its way would create the document twice.
    if (upload || finishing || fetcher.state !== 'idle') {
      event.preventDefault()
      return
    }
    const file = event.currentTarget.querySelector<HTMLInputElement>('input[type="file"][name="file"]')?.files?.[0]
    if (!file || !resumableUploadReady()) {
      setState((before) => ({ ...before, viaFetcher: false }))
      return
    }
    event.preventDefault()
    const formData = new FormData(event.currentTarget, submitter)
    formData.delete('file')
    formData.set('transfer', 'resumable')
    formData.set('fileName', file.name)
    chosen.current = file
    setState({ ...IDLE, viaFetcher: true })
    void fetcher.submit(formData, { method: 'post' })
  }

  useEffect(() => {
    const ready = fetcher.state === 'idle' ? fetcher.data?.ready : undefined
    const file = chosen.current
    if (!ready || !file) return
    chosen.current = null
    const upload = { key: `${ready.documentId}:${ready.code}:${file.name}:${file.size}`, target: revisionTarget(ready.documentId, ready), file, ready }
    setState((before) => ({ ...before, upload }))
  }, [fetcher.state, fetcher.data])

  function onOutcome(outcome: UploadOutcome) {
    if (!upload) return
    const { documentId, code } = upload.ready
    if (outcome.ok) {
      setState((before) => ({ ...before, finishing: true }))
      void submit({ intent: UPLOAD_FINISHED, documentId, code, revisionId: outcome.id, csrf }, { method: 'post' })
    } else if (refusedGoesToAction) {
      setState((before) => ({ ...before, finishing: true }))
      void submit({ intent: UPLOAD_REFUSED, documentId, reason: outcome.message, csrf }, { method: 'post' })
    } else {
      setState((before) => ({ ...before, upload: null, fileErrors: outcome.cancelled ? null : [outcome.message] }))
    }
  }

  return {
    onSubmit,
    // Once the file is stored the island has done its work: it goes before the page changes.
    upload: finishing ? null : upload,
    onOutcome,
    fileErrors,
    answer: viaFetcher && !finishing ? fetcher.data : undefined,
    busy: fetcher.state !== 'idle' || upload !== null,
  }
}
