import { Link } from 'react-router'
import { cx } from '~/components/ui/class-names'
import { folderHref } from '~/lib/documents/query'
import type { FolderNode } from '~/lib/documents/types'

export type FolderTreeProps = {
  projectId: string
  projectName: string
  /** The top folders; the folders on the way to the current one carry their `children`. */
  folders: readonly FolderNode[]
  currentId: string | null
}

/**
 * A project's folders as nested lists of links: the top, and the path to the current folder open.
 * On a wide screen it stands beside the list; on a phone it folds away into a native disclosure,
 * closed until asked for, so the documents come first. Both work without JavaScript.
 */
export function FolderTree(props: FolderTreeProps) {
  const currentName = findName(props.folders, props.currentId) ?? props.projectName
  return (
    <>
      <nav aria-label="Folders" className="hidden lg:block">
        <TreeBody {...props} />
      </nav>
      <details className="group rounded-lg border border-border bg-surface lg:hidden">
        <summary className="flex min-h-11 cursor-pointer items-center gap-2 px-4 py-2 text-sm font-medium text-text">
          <span aria-hidden="true" className="transition-transform group-open:rotate-90">
            ›
          </span>
          <span className="min-w-0 truncate">Folders: {currentName}</span>
        </summary>
        <nav aria-label="Folders" className="border-t border-border px-2 py-3">
          <TreeBody {...props} />
        </nav>
      </details>
    </>
  )
}

function TreeBody({ projectId, projectName, folders, currentId }: FolderTreeProps) {
  return (
    <ul className="flex flex-col gap-0.5 text-sm">
      <li>
        <FolderLink to={folderHref(projectId, null)} current={currentId === null} name={projectName} />
        {folders.length > 0 ? <Branch projectId={projectId} nodes={folders} currentId={currentId} /> : null}
      </li>
    </ul>
  )
}

function Branch({ projectId, nodes, currentId }: { projectId: string; nodes: readonly FolderNode[]; currentId: string | null }) {
  return (
    <ul className="ml-3 flex flex-col gap-0.5 border-l border-border pl-2">
      {nodes.map((node) => (
        <li key={node.id}>
          <FolderLink to={folderHref(projectId, node.id)} current={node.id === currentId} name={node.name} count={node.documentCount} restricted={node.restricted === true} />
          {node.children && node.children.length > 0 ? <Branch projectId={projectId} nodes={node.children} currentId={currentId} /> : null}
        </li>
      ))}
    </ul>
  )
}

function FolderLink({ to, current, name, count, restricted = false }: { to: string; current: boolean; name: string; count?: number; restricted?: boolean }) {
  return (
    <Link
      to={to}
      aria-current={current ? 'page' : undefined}
      className={cx(
        'flex min-h-9 items-center justify-between gap-2 rounded-md px-2 break-words no-underline hover:bg-surface-muted',
        current ? 'bg-surface-muted font-semibold text-text' : 'text-primary-strong',
      )}
    >
      <span className="min-w-0">
        {name}
        {restricted ? <span className="ml-1 text-xs font-normal text-muted">(restricted)</span> : null}
      </span>
      {count !== undefined && count > 0 ? (
        <span className="shrink-0 text-xs text-muted">
          {count}
          <span className="sr-only"> {count === 1 ? 'document' : 'documents'}</span>
        </span>
      ) : null}
    </Link>
  )
}

function findName(nodes: readonly FolderNode[], id: string | null): string | undefined {
  if (id === null) return undefined
  for (const node of nodes) {
    if (node.id === id) return node.name
    const below = node.children ? findName(node.children, id) : undefined
    if (below) return below
  }
  return undefined
}
