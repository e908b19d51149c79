import { formatDateTime } from '~/lib/format'

/** A `<time>` element for a UTC moment. */
export function ItemTime({ iso, locale, className }: { iso: string; locale: string; className?: string }) {
  return (
    <time dateTime={iso} className={className}>
      {formatDateTime(iso, locale)}
    </time>
  )
}
