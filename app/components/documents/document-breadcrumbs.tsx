import { Link } from 'react-router'
import { folderHref } from '~/lib/documents/query'
import type { Breadcrumb } from '~/lib/documents/types'

export type BreadcrumbsProps = {
  projectId: string
  projectName: string
  /** Folders from the top down. */
  folders: readonly Breadcrumb[]
  /** The page itself (a folder or a document), shown last and not a link. */
  current?: string
}

/** Where a folder or document sits: its project's documents, then each folder, each a link into /documents. */
export function DocumentBreadcrumbs({ projectId, projectName, folders, current }: BreadcrumbsProps) {
  const crumbs = [{ id: null, name: projectName }, ...folders]
  return (
    <nav aria-label="Breadcrumb" className="mb-3 text-sm">
      <ol className="flex flex-wrap gap-x-2 gap-y-1 text-muted">
        {crumbs.map((crumb, index) => {
          const last = index === crumbs.length - 1 && current === undefined
          return (
            <li key={crumb.id ?? 'top'} className="min-w-0 break-words">
              {last ? (
                <span aria-current="page" className="font-medium text-text">
                  {crumb.name}
                </span>
              ) : (
                <>
                  <Link to={folderHref(projectId, crumb.id)} className="text-primary-strong underline underline-offset-2">
                    {crumb.name}
                  </Link>
                  <span aria-hidden="true"> /</span>
                </>
              )}
            </li>
          )
        })}
        {current !== undefined ? (
          <li className="min-w-0 break-words">
            <span aria-current="page" className="font-medium text-text">
              {current}
            </span>
          </li>
        ) : null}
      </ol>
    </nav>
  )
}
