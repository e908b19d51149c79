import { cx } from './class-names'

/**
 * A status in the shell's header (live connection, sync): a live region with a small mark and its
 * words; on a phone only the mark shows, so the header stays uncrowded, and the words are still
 * read out. Empty until there is something to say.
 */
export function HeaderStatus({ text, mark, data }: { text: string; mark: string; data: Record<`data-${string}`, string> }) {
  return (
    <span role="status" {...data} className="inline-flex min-w-0 items-center text-sm text-muted">
      {text ? (
        <>
          <span aria-hidden="true" title={text} className={cx('size-2 shrink-0', mark)} />
          <span className="ml-1.5 max-sm:sr-only">{text}</span>
        </>
      ) : null}
    </span>
  )
}
