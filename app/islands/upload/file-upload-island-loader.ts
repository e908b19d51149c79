import type { ComponentType } from 'react'
import type { FileUploadIslandProps } from './file-upload-island'
import type { UploadTarget } from './upload-target'

/** A file the form has a place for now (the document exists, the revision was checked): the island sends it there. */
export type PendingUpload = { key: string; target: UploadTarget; file: File }

// The island (the resumable queue and its progress row) is fetched once the page is idle after
// hydration, or as soon as the user turns to the form. Until then, and without JavaScript, the
// plain file input posts the file with the form, and the action forwards it in one request.
// Its own module, apart from the field: the screens' forms (`use-resumable-form.ts`) ask whether
// it is here, and the field itself is in their deferred chunks, not in the screens' first load.
let island: { FileUploadIsland: ComponentType<FileUploadIslandProps> } | undefined
let loading: Promise<unknown> | undefined

/** Fetches the island once; a failed fetch is tried again on the next call. */
export function loadFileUploadIsland(): Promise<unknown> {
  loading ??= import('./file-upload-island').then((m) => (island = m)).catch(() => (loading = undefined))
  return loading
}

/** The island's component, once it is here. */
export function fileUploadIsland(): ComponentType<FileUploadIslandProps> | undefined {
  return island?.FileUploadIsland
}

/** True once the island is here: a form may then send its file through it instead of with the post. */
export function resumableUploadReady(): boolean {
  return island !== undefined
}
