import { formatDate, formatDateTime } from '~/lib/format'
import type { DocumentDetail } from '~/lib/documents/types'
import { StateBadge, StatusText } from './document-badges'

/** The document at a glance (its number and title are the page's heading): state, status, current revision and who made it. */
export function DocumentFacts({ doc, locale }: { doc: DocumentDetail; locale: string }) {
  return (
    <dl className="grid gap-x-6 gap-y-3 text-sm sm:grid-cols-2">
      <Fact term="State">
        <StateBadge state={doc.state} />
      </Fact>
      <Fact term="Status">
        <StatusText code={doc.status} />
      </Fact>
      <Fact term="Current revision">{doc.currentRevision ? `${doc.currentRevision.code}, issued ${formatDateTime(doc.currentRevision.issuedAtUtc, locale)}` : 'None yet'}</Fact>
      <Fact term="Discipline and type">{[doc.discipline, doc.docType].filter(Boolean).join(' · ') || '—'}</Fact>
      <Fact term="Created">
        {doc.createdBy ? `${doc.createdBy.displayName}, ` : ''}
        {formatDate(doc.createdAtUtc, locale)}
      </Fact>
    </dl>
  )
}

function Fact({ term, children }: { term: string; children: React.ReactNode }) {
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <dt className="text-muted">{term}</dt>
      <dd className="break-words text-text">{children}</dd>
    </div>
  )
}
