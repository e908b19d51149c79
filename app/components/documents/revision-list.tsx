import { Link } from 'react-router'
import { EmptyState } from '~/components/ui/empty-state'
import { formatDateTime } from '~/lib/format'
import type { Revision } from '~/lib/documents/types'
import { fileSizeText, RevisionMark, StatusText } from './document-badges'

/**
 * A document's revisions, newest first (as the API gives them): each with its code, whether it is
 * current or superseded (and by which), its status, who issued it and when, the comment, and its
 * file to open or download. Superseded revisions stay downloadable: the history is the record.
 */
export function RevisionList({ revisions, locale }: { revisions: readonly Revision[]; locale: string }) {
  if (revisions.length === 0) {
    return (
      <EmptyState heading="No revisions yet" headingLevel={3}>
        This document has no file yet. Upload one with “New revision”.
      </EmptyState>
    )
  }
  return (
    <ol aria-label="Revisions, newest first" className="flex flex-col gap-3">
      {revisions.map((revision) => (
        <li key={revision.id} aria-label={`Revision ${revision.code}`} className={`rounded-lg border bg-surface p-4 ${revision.superseded ? 'border-border' : 'border-success/40'}`}>
          <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
            <h3 className="font-mono text-lg font-semibold text-text">{revision.code}</h3>
            <RevisionMark superseded={revision.superseded} supersededBy={revision.supersededBy} />
          </div>
          <dl className="mt-3 grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
            <dt className="text-muted">Status</dt>
            <dd>
              <StatusText code={revision.status} />
            </dd>
            <dt className="text-muted">Issued</dt>
            <dd>
              {revision.issuedBy ? `${revision.issuedBy.displayName}, ` : ''}
              {formatDateTime(revision.issuedAtUtc, locale)}
            </dd>
            {revision.comment ? (
              <>
                <dt className="text-muted">Comment</dt>
                <dd className="break-words whitespace-pre-line">{revision.comment}</dd>
              </>
            ) : null}
            <dt className="text-muted">File</dt>
            <dd className="break-all">
              <a href={revision.downloadUrl} className="text-primary-strong underline underline-offset-2" aria-label={`Open ${revision.code}: ${revision.fileName}`}>
                {revision.fileName}
              </a>
              <span className="text-muted"> ({fileSizeText(revision.sizeBytes)})</span>
            </dd>
            {revision.sheet ? (
              <>
                <dt className="text-muted">Drawing</dt>
                <dd>
                  <Link to={sheetHref(revision)} className="text-primary-strong underline underline-offset-2">
                    View {revision.code} as a drawing{revision.superseded ? '' : ' with its pins'}
                  </Link>
                </dd>
              </>
            ) : null}
          </dl>
        </li>
      ))}
    </ol>
  )
}

/** The drawing view of a revision with a sheet (routes/document-sheet.tsx): the current one, or an older one by id. */
function sheetHref(revision: Revision): string {
  const base = `/documents/${encodeURIComponent(revision.documentId)}/sheet`
  return revision.superseded ? `${base}?${new URLSearchParams({ revisionId: revision.id })}` : base
}
