import { Link } from 'react-router'
import { folderHref } from '~/lib/documents/query'
import type { FolderNode } from '~/lib/documents/types'

/** The folders inside the one on screen, above its documents: on a phone the tree is folded away, so these are the way down. */
export function SubfolderList({ projectId, folders }: { projectId: string; folders: readonly FolderNode[] }) {
  return (
    <ul aria-label="Folders here" className="grid gap-2 sm:grid-cols-2 xl:grid-cols-3">
      {folders.map((folder) => (
        <li key={folder.id}>
          <Link
            to={folderHref(projectId, folder.id)}
            className="flex min-h-11 items-center justify-between gap-3 rounded-md border border-border bg-surface px-3 py-2 text-sm font-medium text-primary-strong no-underline hover:bg-surface-muted"
          >
            <span className="min-w-0 break-words">{folder.name}</span>
            <span className="shrink-0 text-xs font-normal text-muted">{folder.restricted ? 'Restricted: only what is shared with you' : countText(folder.folderCount, folder.documentCount)}</span>
          </Link>
        </li>
      ))}
    </ul>
  )
}

function countText(folders: number, documents: number): string {
  const parts = [documents === 1 ? '1 document' : `${documents} documents`]
  if (folders > 0) parts.push(folders === 1 ? '1 folder' : `${folders} folders`)
  return parts.join(', ')
}
