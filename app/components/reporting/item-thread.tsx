import { type ReactNode } from 'react'
import { ItemTime } from '~/components/reporting/item-time'
import { Badge, type BadgeTone } from '~/components/ui/badge'
import { EmptyState } from '~/components/ui/empty-state'
import type { ItemResponse } from '~/lib/reporting/types'

type Kind = { label: string; tone: BadgeTone }

/** A response that asked for the close reads as a close request: that is what it did. */
function kindOf(response: ItemResponse): Kind {
  switch (response.kind) {
    case 'close_confirmed':
      return { label: 'Close confirmed', tone: 'success' }
    case 'close_rejected':
      return { label: 'Close rejected', tone: 'critical' }
    case 'response':
      return response.requestClose ? { label: 'Close requested', tone: 'warning' } : { label: 'Response', tone: 'neutral' }
  }
}

/** The item's thread, oldest first, each entry saying what kind it is in words. */
export function ItemThread({ responses, locale, photosOf }: { responses: readonly ItemResponse[]; locale: string; photosOf?: (response: ItemResponse) => ReactNode }) {
  if (responses.length === 0) {
    return (
      <EmptyState heading="No responses yet" headingLevel={3}>
        Responses, close requests and the verifier’s decisions appear here, oldest first.
      </EmptyState>
    )
  }
  return (
    <ol className="flex flex-col gap-3">
      {responses.map((response) => {
        const kind = kindOf(response)
        return (
          <li key={response.id} className="rounded-lg border border-border bg-surface p-3 sm:p-4">
            <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm">
              <span className="font-semibold text-text">{response.author?.displayName ?? 'A former member'}</span>
              <Badge tone={kind.tone}>{kind.label}</Badge>
              <ItemTime iso={response.createdAtUtc} locale={locale} className="text-muted" />
            </div>
            {response.body ? (
              <p className="mt-2 break-words whitespace-pre-line text-text">
                {response.kind === 'close_rejected' ? <span className="font-semibold">Reason: </span> : null}
                {response.body}
              </p>
            ) : null}
            {photosOf?.(response)}
          </li>
        )
      })}
    </ol>
  )
}
